"""Who may see what: every endpoint against the owner, the opponent before
and after the reveal, a stranger and an anonymous visitor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from accounts.tokens import token_create
from games import services
from games.models import Deal, Table
from tests.support import COPY_A, COPY_B, STRONG, WEAK, deal_friend, house_front

pytestmark = pytest.mark.django_db


@pytest.fixture
def stranger(make_user: Callable[[str], Any]) -> Any:
    return make_user("mallory")


def client_for(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def body(response: Any) -> bytes:
    """A response's body, streamed (the CSV export) or not."""
    if not getattr(response, "streaming", False):
        return bytes(response.content)
    content = response.streaming_content
    if hasattr(content, "__aiter__"):

        async def collect() -> bytes:
            return b"".join([chunk async for chunk in content])

        return async_to_sync(collect)()
    return b"".join(content)


@pytest.fixture
def shared(
    rig: Callable[..., None], joined_table: Table, player: Any, friend: Any
) -> dict[str, Any]:
    """A friend table with one deal the player has locked and the friend not."""
    deal = deal_friend(rig, joined_table, player, friend, STRONG, WEAK)
    services.setting_lock(user=player, table_id=joined_table.pk, front=house_front(STRONG))
    return {"table": joined_table, "deal": deal}


def reveal(shared: dict[str, Any], friend: Any) -> Deal:
    services.setting_lock(
        user=friend, table_id=shared["table"].pk, front=house_front(WEAK)
    )
    deal: Deal = shared["deal"]
    deal.refresh_from_db()
    assert deal.revealed
    return deal


def api_urls(deal: Deal) -> dict[str, str]:
    return {
        "hands": "/api/hands/",
        "hand": f"/api/hands/{deal.pk}/",
        "tables": "/api/tables/",
        "table": f"/api/tables/{deal.table_id}/",
        "skill": "/api/reports/skill/",
    }


def page_urls(deal: Deal) -> dict[str, str]:
    return {
        "hands": "/history/",
        "hand": f"/history/deals/{deal.pk}/",
        "tables": "/history/sessions/",
        "table": f"/history/sessions/{deal.table_id}/",
        "skill": "/history/skill/",
        "csv": "/history/export.csv",
    }


@pytest.mark.parametrize("who", ["player", "friend"])
def test_before_the_reveal_nobody_sees_the_deal(
    shared: dict[str, Any], who: str, request: pytest.FixtureRequest
) -> None:
    user = request.getfixturevalue(who)
    deal, client = shared["deal"], client_for(user)
    urls = api_urls(deal)
    assert client.get(urls["hand"]).status_code == 404
    assert client.get(urls["hand"]).json()["error"] == "not_found"
    assert client.get(urls["hands"]).json()["count"] == 0
    assert client.get(urls["skill"]).json()["total"]["deals"] == 0
    session = client.get(urls["table"]).json()
    assert session["deals_played"] == 0
    assert session["series"] == []
    pages = page_urls(deal)
    assert client.get(pages["hand"]).status_code == 404
    assert client.get(pages["hands"]).status_code == 200
    csv = body(client.get(pages["csv"])).decode()
    assert csv.count("\n") == 1  # the header only
    # The locked setting never leaks anywhere before the reveal.
    for url in [*urls.values(), pages["hands"], pages["table"], pages["skill"]]:
        text = body(client.get(url)).decode()
        assert "Ah Kd" not in text, url
        assert "Kd Kc Qs" not in text, url


@pytest.mark.parametrize(("who", "seat"), [("player", 0), ("friend", 1)])
def test_after_the_reveal_both_friends_see_their_own_side(
    shared: dict[str, Any], who: str, seat: int, request: pytest.FixtureRequest, friend: Any
) -> None:
    deal = reveal(shared, friend)
    user = request.getfixturevalue(who)
    client = client_for(user)
    urls = api_urls(deal)
    detail = client.get(urls["hand"]).json()
    assert detail["id"] == deal.pk
    assert detail["you"]["seat"] == seat
    assert detail["you"]["name"] == user.username
    assert detail["other"]["seat"] == 1 - seat
    assert len(detail["other"]["front"]) == 2
    assert detail["result"] == ("win" if seat == 0 else "loss")
    listing = client.get(urls["hands"]).json()
    assert [r["id"] for r in listing["results"]] == [deal.pk]
    assert client.get(urls["tables"]).json()["count"] == 1
    assert client.get(urls["table"]).json()["deals_played"] == 1
    assert client.get(urls["skill"]).json()["total"]["deals"] == 1
    for url in page_urls(deal).values():
        response = client.get(url)
        assert response.status_code == 200, url
    assert str(deal.pk) in body(client.get(page_urls(deal)["csv"])).decode()


def test_a_stranger_sees_nothing(shared: dict[str, Any], friend: Any, stranger: Any) -> None:
    deal = reveal(shared, friend)
    client = client_for(stranger)
    urls = api_urls(deal)
    for name in ("hand", "table"):
        response = client.get(urls[name])
        assert response.status_code == 404, name
        assert set(response.json()) == {"error", "detail"}
    assert client.get(urls["hands"]).json() == {
        "count": 0, "next": None, "previous": None, "results": []
    }
    assert client.get(urls["tables"]).json()["count"] == 0
    assert client.get(urls["skill"]).json()["total"]["deals"] == 0
    pages = page_urls(deal)
    assert client.get(pages["hand"]).status_code == 404
    assert client.get(pages["table"]).status_code == 404
    assert body(client.get(pages["csv"])).decode().count("\n") == 1


def test_anonymous_visitors_are_refused(shared: dict[str, Any], friend: Any) -> None:
    deal = reveal(shared, friend)
    client = Client()
    for url in api_urls(deal).values():
        response = client.get(url)
        assert response.status_code == 401, url
        assert response["WWW-Authenticate"] == "Token", url
        assert response.json()["error"] == "not_authenticated", url
    for url in page_urls(deal).values():
        response = client.get(url)
        assert response.status_code == 302, url
        assert "/accounts/" in response["Location"], url
    # The schema and its documentation page are public.
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200


def test_a_script_pulls_its_own_history_with_a_token(
    shared: dict[str, Any], friend: Any, player: Any
) -> None:
    deal = reveal(shared, friend)
    _, token = token_create(user=player)
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    listing = client.get("/api/hands/").json()
    assert [r["id"] for r in listing["results"]] == [deal.pk]
    refused = Client(HTTP_AUTHORIZATION="Token nope").get("/api/hands/")
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"] == "Token"
    assert refused.json()["error"] == "authentication_failed"


def test_solo_history_is_the_players_alone(
    play_solo: Callable[..., Deal], player: Any, friend: Any
) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, COPY_A, COPY_B)
    assert client_for(player).get(f"/api/hands/{deal.pk}/").json()["other"]["name"] == "Dealer"
    assert client_for(friend).get(f"/api/hands/{deal.pk}/").status_code == 404


def test_unknown_ids_and_bad_filters_answer_in_the_error_shape(player: Any) -> None:
    client = client_for(player)
    for url in ("/api/hands/999999/", "/api/tables/999999/", f"/api/hands/{2**70}/"):
        response = client.get(url)
        assert response.status_code == 404
        assert set(response.json()) == {"error", "detail"}
    bad = client.get("/api/hands/?mode=poker")
    assert bad.status_code == 400
    assert bad.json()["error"] == "invalid"
    backwards = client.get("/api/reports/skill/?date_from=2025-02-01&date_to=2025-01-01")
    assert backwards.status_code == 400
    assert "start date" in backwards.json()["detail"]
