"""The Content-Security-Policy: every HTML answer of every URL the resolver
knows carries it with exactly the site's directives, static files (the engine
worker's script above all: a worker runs under its own response's policy)
carry it too, and no page or template relies on anything inline that the
policy would block. The browser side is tests/browser/test_csp.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import get_resolver

from tests.conftest import REPO
from tests.security import test_authorization as authorization
from tests.security.test_authorization import client_for, concrete, walk

# The authorization matrix's world: a friend table, one deal revealed, one open.
world = authorization.world

EXPECTED = {
    "default-src": {"'self'"},
    "script-src": {"'self'", "'wasm-unsafe-eval'"},
    "style-src": {"'self'"},
    "img-src": {"'self'"},
    "connect-src": {"'self'"},
    "worker-src": {"'self'"},
    "object-src": {"'none'"},
    "base-uri": {"'self'"},
    "form-action": {"'self'"},
    "frame-ancestors": {"'none'"},
}
# Django templates, and the static pages the client ships (the engine self-test).
TEMPLATE_DIRS = (
    "paigow_site/templates", "games/templates", "accounts/templates", "frontend/src",
)


def directives(header: str) -> dict[str, set[str]]:
    """``"a x y; b z"`` -> ``{"a": {"x", "y"}, "b": {"z"}}``, nonces left out."""
    parsed: dict[str, set[str]] = {}
    for part in header.split(";"):
        name, *sources = part.split()
        parsed[name] = {s for s in sources if not s.startswith("'nonce-")}
    return parsed


class InlineFinder(HTMLParser):
    """Everything in a page that a policy without 'unsafe-inline' blocks."""

    def __init__(self, nonce: str | None = None) -> None:
        super().__init__()
        self.nonce = nonce
        self.found: list[str] = []
        self._inline_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            if name in {"href", "src", "action", "formaction"} and (value or "").strip(
            ).lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value}>")
        nonced = self.nonce is not None and values.get("nonce") == self.nonce
        if tag == "style" and not nonced:
            self.found.append("<style> without the response's nonce")
        data_only = values.get("type") == "application/json"  # json_script: never run
        self._inline_script = tag == "script" and "src" not in values and not data_only

    def handle_data(self, data: str) -> None:
        if self._inline_script and data.strip():
            self.found.append(f"inline <script>: {data.strip()[:60]}")

    def handle_endtag(self, tag: str) -> None:
        self._inline_script = False


def nonce_of(header: str) -> str | None:
    match = re.search(r"'nonce-([^']+)'", header)
    return match.group(1) if match else None


@pytest.mark.django_db
def test_every_html_answer_carries_the_policy_and_nothing_inline(world: Any) -> None:
    clients = {actor: client_for(user) for actor, user in world["users"].items()}
    pages: list[str] = []
    failures: list[str] = []
    for name, route in walk(get_resolver().url_patterns):
        values = world["values"]
        if name == "api:table-detail":
            values = {**values, "pk": values["table_id"]}
        path = concrete(route, values)
        for actor in ("anonymous", "owner", "staff"):
            # text/html first: the API's endpoints answer their browsable page.
            response = clients[actor].get(path, HTTP_ACCEPT="text/html,*/*;q=0.8")
            if not response.get("Content-Type", "").startswith("text/html"):
                continue
            pages.append(f"{actor} {path}")
            header = response.get("Content-Security-Policy", "")
            if directives(header or "none") != EXPECTED:
                failures.append(f"{actor} GET {path} ({response.status_code}): {header!r}")
                continue
            finder = InlineFinder(nonce_of(header))
            finder.feed(response.content.decode("utf-8", "replace"))
            if finder.found:
                failures.append(f"{actor} GET {path}: {finder.found}")
    assert not failures, "\n".join(failures)
    # The walk reached the pages people use, not only redirects.
    for must in ("anonymous /", "owner /lobby/", "owner /history/skill/", "anonymous /api/docs/",
                 "owner /api/hands/", "anonymous /admin/login/", "staff /admin/"):
        assert must in pages, (must, pages)


def test_the_engine_worker_script_carries_the_policy_it_runs_under() -> None:
    """A dedicated worker's policy is its own script's response header: the
    worker compiles WebAssembly ('wasm-unsafe-eval') and may eval nothing."""
    for path in ("/static/js/engine-worker.mjs", "/static/js/engine-selftest.html"):
        response = Client().get(path)
        assert response.status_code == 200, path
        assert directives(response["Content-Security-Policy"]) == EXPECTED, path


def test_the_browsable_api_style_is_allowed_by_its_nonce_only(world: Any) -> None:
    response = client_for(world["users"]["owner"]).get("/api/hands/", HTTP_ACCEPT="text/html")
    header = response["Content-Security-Policy"]
    style_src = next(p for p in header.split(";") if p.split()[0] == "style-src").split()
    nonce = nonce_of(header)
    assert nonce
    assert f"'nonce-{nonce}'" in style_src
    assert "'unsafe-inline'" not in style_src
    assert f'<style nonce="{nonce}">' in response.content.decode()
    # A page that writes no inline style gets no nonce at all.
    assert nonce_of(Client().get("/").headers["Content-Security-Policy"]) is None


@pytest.mark.parametrize("folder", TEMPLATE_DIRS)
def test_no_template_writes_inline_script_style_or_handlers(folder: str) -> None:
    """Pages the URL walk cannot reach in their every state (an error, a
    branch) still render nothing the policy blocks."""
    found = []
    for template in sorted(Path(REPO, folder).rglob("*.html")):
        finder = InlineFinder(nonce="{{ request.csp_nonce }}")
        finder.feed(template.read_text())
        found += [f"{template.relative_to(REPO)}: {item}" for item in finder.found]
    assert not found, "\n".join(found)
