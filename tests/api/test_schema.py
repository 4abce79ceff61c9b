"""The OpenAPI schema validates, describes every field, and a bounded
schemathesis run against the live schema finds no server error."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.management import call_command
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, given, settings

from accounts.tokens import token_create
from games import services
from games.models import Deal
from tests.support import COPY_A, COPY_B, SPLIT_A, SPLIT_B, STRONG, WEAK

ENDPOINTS = {
    "/api/", "/api/hands/", "/api/hands/{id}/", "/api/hands/export/", "/api/tables/",
    "/api/tables/{id}/",
    "/api/reports/skill/", "/api/record/", "/api/tables/{id}/deals/{number}/exact/",
    "/api/review/",
}


def test_the_schema_validates_without_warnings(tmp_path: Path) -> None:
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))


def _undescribed(schema: dict[str, Any]) -> list[str]:
    missing = []
    for name, component in schema["components"]["schemas"].items():
        for prop, field in component.get("properties", {}).items():
            if not field.get("description"):
                missing.append(f"{name}.{prop}")
    return missing


@pytest.mark.django_db
def test_every_endpoint_and_field_is_described() -> None:
    schema = Client().get("/api/schema/?format=json").json()
    assert set(schema["paths"]) >= ENDPOINTS
    for path in ENDPOINTS:
        operation = schema["paths"][path]["get"]
        assert operation["summary"], path
        assert operation["description"], path
    missing = [m for m in _undescribed(schema) if not m.startswith("Paginated")]
    assert not missing, missing
    components = schema["components"]["schemas"]
    assert components["HandDetail"]["properties"]["skill_detail"]["allOf"] == [
        {"$ref": "#/components/schemas/SkillDetail"}
    ]
    assert components["SkillDetail"]["properties"]["difference"]["description"]


@pytest.mark.django_db
def test_the_schema_describes_the_decision_cost() -> None:
    components = Client().get("/api/schema/?format=json").json()["components"]["schemas"]
    cost = {"allOf": [{"$ref": "#/components/schemas/Cost"}]}
    summary = {"allOf": [{"$ref": "#/components/schemas/CostSummary"}]}
    assert {k: components[k]["properties"]["cost"]["allOf"] for k in (
        "Hand", "HandDetail", "Session", "SkillBucket", "SkillByRow")} == {
        "Hand": cost["allOf"], "HandDetail": cost["allOf"], "Session": summary["allOf"],
        "SkillBucket": summary["allOf"], "SkillByRow": summary["allOf"],
    }
    assert components["CostStatusEnum"]["enum"] == ["pending", "sampled", "exact"]
    assert set(components["Cost"]["properties"]) == {
        "status", "loss", "at_best", "best_front", "best_front_name", "opponents", "computed_at"
    }
    for name in ("SessionDetail", "SkillReport"):
        worst = components[name]["properties"]["worst"]
        assert worst["items"] == {"$ref": "#/components/schemas/WorstRow"}, name


SIDECAR = "/static/drf_spectacular_sidecar/swagger-ui-dist/"


@pytest.mark.django_db
def test_the_docs_page_is_swagger_ui_from_the_sites_own_files() -> None:
    """The page, its start-up script (a file: the policy runs nothing inline)
    and the stylesheet all come from the site; the browser side, drawing every
    endpoint under the policy, is tests/browser/test_api_docs.py."""
    client = Client()
    page = client.get("/api/docs/").content.decode()
    scripts = re.findall(r'<script src="([^"]+)"', page)
    assert scripts == [f"{SIDECAR}swagger-ui-bundle.js",
                       f"{SIDECAR}swagger-ui-standalone-preset.js", "/api/docs/?script="]
    assert '<link rel="stylesheet" href="/api/docs/swagger-ui.css">' in page
    # The site's own icon, as on every page (one icon link, from the base template).
    icons = re.findall(r'<link rel="icon" href="([^"]+)"', page)
    assert icons == ["/static/img/favicon.svg"]
    for asset in scripts[:2] + icons:
        assert client.get(asset).status_code == 200, asset
    script = client.get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert 'url: "/api/schema/"' in script.content.decode()
    assert '"validatorUrl": null' in script.content.decode()  # no badge from elsewhere
    css = client.get("/api/docs/swagger-ui.css")
    assert css["Content-Type"].startswith("text/css")
    text = css.content.decode()
    assert "data:" not in text
    assert "http" not in text.replace("http://www.w3.org", "")
    images = set(re.findall(r'url\("(/api/docs/images/[^"]+)"\)', text))
    assert len(images) > 10
    for image in images:
        answer = client.get(image)
        assert answer.status_code == 200, image
        assert answer["Content-Type"].startswith("image/"), image


@pytest.mark.django_db
def test_schemathesis_finds_no_server_error(
    play_solo: Callable[..., Deal], player: Any
) -> None:
    table = services.table_start(user=player, mode="solo")
    for mine, theirs, luck in ((STRONG, WEAK, (100, 10, 10)), (SPLIT_A, SPLIT_B, None),
                               (COPY_A, COPY_B, (0, 60, 60))):
        play_solo(player, table, mine, theirs, luck=luck)
    _, token = token_create(user=player)
    headers = {"Authorization": f"Token {token}"}
    # Like Django's test client: keep the test's database connection (and its
    # transaction) open across the requests the WSGI app serves.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        _run_schemathesis(headers)
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def _run_schemathesis(headers: dict[str, str]) -> None:
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    deadline = time.monotonic() + 30
    seen: list[str] = []
    statuses: set[int] = set()
    calls: list[int] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        seen.append(operation.path)

        @given(case=operation.as_strategy())
        @settings(max_examples=12, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def run(case: Any) -> None:
            if time.monotonic() > deadline:
                return
            response = case.call(headers=headers)
            statuses.add(response.status_code)
            calls.append(response.status_code)
            assert response.status_code < 500, (case.path, case.query, response.text[:300])

        run()
    print(f"\nschemathesis: {len(calls)} requests, statuses {sorted(statuses)}")
    assert set(seen) >= ENDPOINTS
    assert 200 in statuses  # authenticated: it reached real answers, not only refusals
