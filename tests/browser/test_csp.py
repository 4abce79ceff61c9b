"""Every page under the site's Content-Security-Policy in a real Chromium.

A player goes through the whole site: home, sign-up, sign-in, the lobby, a
solo table while choosing and after the reveal (the engine loads in its Web
Worker and the luck figure appears), the verify page, the history with its
charts, a replay, the sessions, a session, the skill report, the rules, the
API docs and the browsable API, and the admin's sign-in. On each page:

- the document (and the engine worker's script, whose response sets the
  worker's own policy) was served with exactly the site's policy;
- nothing was blocked: no ``securitypolicyviolation`` event (a listener every
  document gets before its own scripts run) and no console message, from the
  page or its worker, about the Content Security Policy;
- the policy is enforced: an inline script the test adds does not run.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import sign_up
from tests.browser.test_history import assert_charts_drawn
from tests.browser.test_table import deal, wait_engine
from tests.security.test_csp import EXPECTED, directives

LISTENER = """
(() => {
  const seen = [];
  Object.defineProperty(window, "__cspViolations", { value: seen });
  window.addEventListener("securitypolicyviolation", (event) => {
    seen.push(`${event.effectiveDirective} blocked ${event.blockedURI || "inline"}`
      + ` at ${event.sourceFile}:${event.lineNumber} ${event.sample}`);
  }, true);
})();
"""
# An inline script the policy must stop. Chromium logs the refusal with the
# script's hash, which tells the probe's message from any other.
PROBE_SCRIPT = "window.__inlineRan = true;"
# The refusal's securitypolicyviolation event comes after the console message:
# the probe waits for it and takes its own entry out, or it would be counted
# against the next page checked (it was, once: "script-src-elem blocked inline
# at :4", this function's fourth line). No event in 5 s: the script was let run.
PROBE = """(text) => new Promise((resolve) => {
  const before = window.__cspViolations.length;
  const done = () => resolve(window.__inlineRan === true);
  window.addEventListener("securitypolicyviolation", () => {
    window.__cspViolations.splice(before, 1);
    done();
  }, { once: true });
  setTimeout(done, 5000);
  const script = document.createElement("script");
  script.textContent = text;
  document.head.append(script);
})"""
PROBE_HASH = "sha256-" + base64.b64encode(hashlib.sha256(PROBE_SCRIPT.encode()).digest()).decode()
CSP_WORDS = re.compile(r"Content[ -]Security[ -]Policy", re.IGNORECASE)


class CspWatch:
    """One page of a guarded context, watched for the policy."""

    def __init__(self, contexts: Any) -> None:
        self.guarded = contexts()
        self.guarded.context.add_init_script(LISTENER)
        self.page = self.guarded.new_page()
        self.messages: list[str] = []
        self.policies: dict[str, str] = {}
        self.page.on("console", self._console)
        self.page.on("response", self._response)

    def _console(self, message: Any) -> None:
        if CSP_WORDS.search(message.text):
            self.messages.append(f"{message.type}: {message.text} @ {message.location.get('url')}")

    def _response(self, response: Any) -> None:
        request = response.request
        if request.resource_type == "document" or "/engine-worker.mjs" in request.url:
            key = "worker" if "/engine-worker.mjs" in request.url else "document"
            self.policies[key] = response.headers.get("content-security-policy", "")

    def check(self, where: str) -> None:
        page = self.page
        policy = self.policies.get("document", "")
        assert policy, f"{where}: the page was served without a Content-Security-Policy"
        assert directives(policy) == EXPECTED, (where, policy)
        violations = page.evaluate("() => window.__cspViolations")
        assert violations == [], (where, violations)
        assert self.messages == [], (where, self.messages)
        with page.expect_console_message(lambda m: PROBE_HASH in m.text, timeout=5_000):
            ran = page.evaluate(PROBE, PROBE_SCRIPT)
        assert ran is False, f"{where}: an inline script ran: the policy is not enforced"
        assert page.evaluate("() => window.__cspViolations") == [], where
        # The probe's own refusal is expected: forget it, keep everything else.
        self.messages[:] = [m for m in self.messages if PROBE_HASH not in m]
        assert self.messages == [], (where, self.messages)
        self.guarded.console_errors[:] = [
            e for e in self.guarded.console_errors if PROBE_HASH not in e
        ]

    def visit(self, url: str, where: str) -> None:
        self.page.goto(url)
        self.check(where)


def test_every_page_works_under_the_policy(contexts: Any, site: str) -> None:
    watch = CspWatch(contexts)
    page = watch.page
    watch.visit(f"{site}/", "home")
    watch.visit(f"{site}/accounts/sign-up/", "sign-up")
    watch.visit(f"{site}/accounts/sign-in/", "sign-in")
    watch.visit(f"{site}/rules/", "rules")

    sign_up(page, site)
    watch.check("lobby")
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(page.locator("#connection")).to_have_text("Connected")  # the ws: socket
    table_url = page.url
    deal(page)
    wait_engine(page)
    page.get_by_role("button", name="House way").click()
    expect(page.locator("#house-reason")).to_contain_text("House way (")
    watch.check("table, choosing")
    worker = watch.policies.get("worker", "")
    assert worker, "the engine worker's script was served without a policy"
    assert directives(worker) == EXPECTED, worker
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
    expect(page.locator("#luck")).to_contain_text(re.compile(r"Luck \d+\.\d \(\d+\.\d–\d+\.\d\)"))
    expect(page.locator("#luck")).to_have_attribute("data-state", "stored")
    page.get_by_role("button", name="Explore the 21 settings").click()
    expect(page.locator(".explorer-table tbody tr")).to_have_count(21)
    watch.check("table, after the reveal")

    watch.visit(f"{table_url}deals/1/verify/", "verify")
    expect(page.locator(".verified")).to_be_visible()

    watch.visit(f"{site}/history/", "history")
    assert_charts_drawn(page, 2)
    watch.check("history, charts drawn")
    page.locator("table.history-table tbody tr").first.get_by_role("link").click()
    page.wait_for_url(re.compile(r"/history/deals/\d+/"))
    expect(page.locator(".skill-arithmetic .equation")).to_contain_text("=")
    watch.check("replay")
    watch.visit(f"{site}/history/sessions/", "sessions")
    page.locator("table.history-table tbody tr").first.get_by_role("link").click()
    page.wait_for_url(re.compile(r"/history/sessions/\d+/"))
    assert_charts_drawn(page, 2)
    watch.check("session, charts drawn")
    watch.visit(f"{site}/history/skill/", "skill report")
    assert_charts_drawn(page, 2)
    watch.check("skill report, charts drawn")

    watch.visit(f"{site}/api/docs/", "API docs")
    # The page's own heading, then Swagger UI's once it has drawn the schema
    # (its info title is a heading too: a role query alone would find two).
    expect(page.locator(".api-docs > h1")).to_contain_text("Pai Gow Lab API")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Pai Gow Lab API")
    watch.visit(f"{site}/api/hands/", "browsable API")
    expect(page.locator(".response-info")).to_contain_text('"count": 1')
    watch.visit(f"{site}/admin/login/", "admin sign-in")
    expect(page.get_by_role("button", name="Log in")).to_be_visible()
