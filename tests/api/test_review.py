"""/api/review/: the player's review deck for their token, their own only."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.test import Client

from accounts.tokens import token_create
from games.models import ReviewCard
from games.services import review
from tests.review import STRONG, WEAK, played, practised, scored_test

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def token_client(user: Any) -> Client:
    _, token = token_create(user=user)
    return Client(HTTP_AUTHORIZATION=f"Token {token}")


def test_a_tests_hand_is_listed_as_from_a_test(player: Any) -> None:
    scored_test(player, [(STRONG, "As Kd")])
    rows = token_client(player).get("/api/review/").json()["results"]
    assert [(r["source"], r["mode"], r["front"]) for r in rows] == [
        ("test", "solo", ["As", "Kd"])]


def test_a_token_lists_its_players_deck_due_first_worst_first(
    play_solo: Callable[..., Any], player: Any, friend: Any,
) -> None:
    with mock.patch("django.utils.timezone.now", return_value=T0):
        costly = played(play_solo, player, STRONG, "As Kd")
        drilled = practised(player, WEAK, "3h 2c")
        middling = played(play_solo, player, WEAK, "7d 5c")
        played(play_solo, friend, STRONG, "As Kd")  # another player's mistake
        client = token_client(player)
        first = client.get("/api/review/")  # reading the deck adds the cards
        assert first.status_code == 200
        assert [r["id"] for r in first.json()["results"]] == list(
            ReviewCard.objects.filter(user=player).order_by("-cost").values_list("pk", flat=True))
        # Set the worst at the best: it moves to box 2 and leaves the due ones.
        card = ReviewCard.objects.get(hand=costly)
        review.review_answer(user=player, card_id=card.pk, front="As Ah")
        listing = client.get("/api/review/").json()
    assert listing["count"] == 3
    rows = listing["results"]
    assert [(r["source"], r["due"], r["box"]) for r in rows] == [
        ("practice", True, 1), ("table", True, 1), ("table", False, 2)]
    assert rows[0]["cards"] == WEAK.split()
    assert rows[0]["front"] == ["3h", "2c"]
    assert rows[0]["cost"] == f"{drilled.loss:.9f}"
    assert rows[1]["cost"] == str(middling.cost_loss)
    assert rows[2]["next_review"] == (T0 + timedelta(days=1)).isoformat().replace("+00:00", "Z")
    assert rows[2]["reviews"] == 1
    assert rows[2]["last_reviewed_at"] is not None
    assert rows[0]["next_review"] == T0.isoformat().replace("+00:00", "Z")
    assert {r["mode"] for r in rows} == {"solo"}
    # The friend's deck is the friend's alone.
    theirs = token_client(friend).get("/api/review/").json()
    assert theirs["count"] == 1
    assert theirs["results"][0]["id"] not in {r["id"] for r in rows}


def test_anonymous_and_bad_tokens_are_refused_in_the_error_shape() -> None:
    anonymous = Client().get("/api/review/")
    assert anonymous.status_code == 401  # with the scheme to use
    assert anonymous["WWW-Authenticate"] == "Token"
    assert anonymous.json()["error"] == "not_authenticated"
    bad = Client(HTTP_AUTHORIZATION="Token nope").get("/api/review/")
    assert bad.status_code == 401
    assert bad.json()["error"] == "authentication_failed"


def test_the_deck_is_read_only(player: Any) -> None:
    client = token_client(player)
    for method in ("post", "put", "patch", "delete"):
        assert getattr(client, method)("/api/review/").status_code == 405, method


def test_the_api_root_and_the_schema_name_the_deck(player: Any) -> None:
    root = Client().get("/api/", HTTP_ACCEPT="application/json").json()
    assert root["endpoints"]["review"]["url"] == "http://testserver/api/review/"
    schema = Client().get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/review/"]["get"]
    assert operation["summary"] == "Your review deck"
    fields = schema["components"]["schemas"]["ReviewCard"]["properties"]
    assert {"due", "box", "next_review", "cost"} <= set(fields)
