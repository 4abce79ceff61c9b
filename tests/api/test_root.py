"""GET /api/ lists the endpoints with absolute URLs; any other path under
/api/ is a 404 in the API's error shape, not Django's page of URL patterns."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.api.test_permissions import client_for

pytestmark = pytest.mark.django_db


def test_the_api_root_lists_every_endpoint_with_its_absolute_url(player: Any) -> None:
    root = Client().get("/api/", HTTP_ACCEPT="application/json")
    assert root.status_code == 200
    endpoints = root.json()["endpoints"]
    assert {"hands", "hand", "tables", "table", "skill_report", "record", "exact", "schema",
            "docs", "tokens"} <= set(endpoints)
    assert endpoints["hands"]["url"] == "http://testserver/api/hands/"
    assert endpoints["hand"]["url"] == "http://testserver/api/hands/{id}/"
    assert endpoints["exact"]["url"] == (
        "http://testserver/api/tables/{id}/deals/{number}/exact/")
    assert "Authorization: Token" in root.json()["authentication"]
    # Each listed list endpoint answers a signed-in player.
    client = client_for(player)
    for key, entry in endpoints.items():
        if "{id}" in entry["url"]:
            continue
        path = entry["url"].removeprefix("http://testserver")
        assert client.get(path).status_code == 200, key


def test_the_api_root_is_in_the_schema() -> None:
    schema = Client().get("/api/schema/?format=json").json()
    assert "/api/" in schema["paths"]
    assert "/api/{rest}" not in schema["paths"]  # the catch-all 404 is left out


@pytest.mark.parametrize("path", ["/api/nothing/", "/api/hands/1/x/", "/api/v2"])
def test_an_unknown_api_path_is_a_404_in_the_error_shape(path: str, player: Any) -> None:
    for client in (Client(), client_for(player)):
        answer = client.get(path)
        assert answer.status_code == 404
        assert answer.json() == {
            "error": "not_found",
            "detail": "There is no such API endpoint: the list of endpoints is at /api/.",
        }


def test_a_path_missing_its_final_slash_is_still_redirected() -> None:
    answer = Client().get("/api/hands?page=2")
    assert answer.status_code == 301
    assert answer["Location"] == "/api/hands/?page=2"
