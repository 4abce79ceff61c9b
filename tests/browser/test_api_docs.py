"""The API docs page in a real Chromium: Swagger UI from the site's own static
files (drf-spectacular-sidecar) draws every endpoint of the schema, with its
parameters and the answer's field descriptions, under the site's strict
Content-Security-Policy (nothing blocked, no inline script) and with every
request staying on the site (the guarded context aborts and reports any
other)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.api.test_schema import ENDPOINTS
from tests.browser.conftest import screenshot
from tests.browser.test_csp import CspWatch


def test_swagger_ui_draws_every_endpoint_offline_under_the_policy(
    contexts: Any, site: str
) -> None:
    watch = CspWatch(contexts)
    page = watch.page
    scripts: list[str] = []
    page.on("request", lambda r: scripts.append(r.url) if r.resource_type == "script" else None)
    watch.visit(f"{site}/api/docs/", "API docs")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Pai Gow Lab API")
    paths = page.locator(".opblock-summary-path")
    expect(paths).to_have_count(len(ENDPOINTS))
    # Swagger UI breaks a path after each "/" with a zero-width space.
    assert {text.replace("\u200b", "") for text in paths.all_inner_texts()} == ENDPOINTS
    # The skill report's parameters are the history's filters, with their help.
    page.locator(".opblock-summary", has_text="/api/reports/skill/").click()
    block = page.locator(".opblock.is-open")
    for name in ("table", "mode", "result", "date_from", "date_to"):
        expect(block.locator(".parameter__name", has_text=name)).to_be_visible()
    expect(block).to_contain_text("Revealed on or after this day")
    # A deal in full: the answer's schema names skill_detail and its description.
    page.locator(".opblock-summary-path[data-path='/api/hands/{id}/']").click()
    detail = page.locator(".opblock.is-open", has_text="One revealed deal in full")
    detail.get_by_role("tab", name="Schema").click()
    expect(detail).to_contain_text("skill_detail")
    watch.check("API docs, endpoints drawn")
    assert all(url.startswith(site) for url in scripts), scripts
    assert any("/static/drf_spectacular_sidecar/swagger-ui-dist/" in url for url in scripts)
    assert any(url.endswith("/api/docs/?script=") for url in scripts), scripts
    screenshot(page, "api-docs-1280")
