"""The history's one FilterSet (games/history/filters.py) behind the page, the
API and the schema: the same parameters everywhere, each bad one refused
with its own sentence in the ``{"error", "detail"}`` shape, and the page
showing every deal, with the sentence, while any filter is not valid."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from games import services
from games.history.filters import HistoryFilter
from games.models import Deal, Table
from tests.support import COPY_A, COPY_B, STRONG, WEAK

pytestmark = pytest.mark.django_db

FILTERED = ("/api/hands/", "/api/reports/skill/")
REFUSED = [
    ("mode=poker", "mode", "Use solo or friend."),
    ("result=tie", "result", "Use win, push or loss."),
    ("date_from=2025-13-01", "date_from", "Enter a valid date."),
    ("date_to=yesterday", "date_to", "Enter a valid date."),
    ("table=0", "table", "Ensure this value is greater than or equal to 1."),
    ("table=abc", "table", "Enter a whole number."),
    (f"table={2**63}", "table", f"Ensure this value is less than or equal to {2**63 - 1}."),
    ("date_from=2025-02-01&date_to=2025-01-01", "non_field_errors",
     "The start date is after the end date."),
]


@pytest.fixture
def played(play_solo: Callable[..., Deal], player: Any) -> Table:
    table = services.table_start(user=player, mode="solo")
    play_solo(player, table, STRONG, WEAK)  # a win
    play_solo(player, table, COPY_A, COPY_B)
    return table


@pytest.fixture
def api(player: Any) -> Client:
    client = Client()
    client.force_login(player)
    return client


@pytest.mark.parametrize(("query", "field", "sentence"), REFUSED)
@pytest.mark.parametrize("path", FILTERED)
def test_a_bad_filter_is_a_400_with_its_sentence(
    api: Client, path: str, query: str, field: str, sentence: str
) -> None:
    response = api.get(f"{path}?{query}")
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid", "detail": sentence, "fields": {field: [sentence]}
    }


def test_the_sessions_mode_is_the_same_filter(api: Client, played: Table) -> None:
    refused = api.get("/api/tables/?mode=poker")
    assert refused.status_code == 400
    assert refused.json()["detail"] == "Use solo or friend."
    assert api.get("/api/tables/?mode=solo").json()["count"] == 1
    assert api.get("/api/tables/?mode=friend").json()["count"] == 0


def test_the_schema_parameters_are_the_filtersets(api: Client) -> None:
    schema = api.get("/api/schema/?format=json").json()
    names = set(HistoryFilter.base_filters)
    assert names == {"table", "mode", "result", "date_from", "date_to"}
    for path in FILTERED:
        parameters = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
        assert names <= set(parameters), path
        assert parameters["table"]["schema"] == {"type": "integer"}
        assert parameters["mode"]["schema"]["enum"] == ["friend", "solo"]
        assert parameters["result"]["schema"]["enum"] == ["loss", "push", "win"]
        assert parameters["date_from"]["schema"] == {"type": "string", "format": "date"}
        assert all(parameters[name]["description"] for name in names)
    tables = {p["name"] for p in schema["paths"]["/api/tables/"]["get"]["parameters"]}
    assert tables == {"mode", "page"}


def test_the_page_and_the_api_select_the_same_deals(api: Client, played: Table) -> None:
    for query, count in (("result=win", 1), (f"table={played.pk}", 2), ("mode=friend", 0),
                         ("date_to=2000-01-01", 0), ("", 2)):
        assert api.get(f"/api/hands/?{query}").json()["count"] == count, query
        page = api.get(f"/history/?{query}")
        assert f"{count} revealed deal".encode() in page.content, query


def test_the_page_offers_the_players_own_tables_and_refuses_another(
    api: Client, played: Table, friend: Any, play_solo: Callable[..., Deal]
) -> None:
    theirs = services.table_start(user=friend, mode="solo")
    play_solo(friend, theirs, STRONG, WEAK)
    page = api.get("/history/").content.decode()
    assert f'<option value="{played.pk}">Solo table {played.pk}</option>' in page
    assert f'value="{theirs.pk}"' not in page
    refused = api.get(f"/history/?table={theirs.pk}&result=win").content.decode()
    assert "Select a valid choice." in refused
    assert "2 revealed deals" in refused  # nothing half-applied: every deal, with the sentence
    # The API takes any id, and another player's table holds none of yours.
    assert api.get(f"/api/hands/?table={theirs.pk}").json()["count"] == 0


def test_the_page_says_why_a_filter_was_not_applied(api: Client, played: Table) -> None:
    page = api.get("/history/skill/?date_from=2025-02-01&date_to=2025-01-01").content.decode()
    assert '<div class="alert" role="alert">The start date is after the end date.</div>' in page
    page = api.get("/history/?mode=poker").content.decode()
    assert "Select a valid choice." not in page
    assert "Use solo or friend." in page
    assert "2 revealed deals" in page
