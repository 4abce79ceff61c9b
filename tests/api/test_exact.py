"""GET /api/tables/{id}/deals/{number}/exact/: the exact figures of the
player's own hand once that seat locked; 202 while a worker computes them;
a 404 in the error shape for anything else."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from django.test import Client

from games import engine, enqueue, services, tasks
from games.engine.exact import OPPONENTS
from games.models import Deal, ExactAnalysisCache
from games.services.analysis import exact_analysis_compute
from paigow_site.celery import app
from tests.api.test_permissions import client_for
from tests.support import STRONG, WEAK, deal_friend, friend_table, house_front

pytestmark = pytest.mark.django_db

NOT_FOUND = {
    "error": "not_found",
    "detail": "There is no such deal of yours to analyse: lock your setting first.",
}


def url(deal: Deal) -> str:
    return f"/api/tables/{deal.table_id}/deals/{deal.number}/exact/"


def test_a_revealed_solo_hand_answers_its_exact_figures_best_first(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, STRONG, WEAK)
    # Embedded, the task runs eagerly in the on-commit callback: outside a
    # transaction at once, here (the test's transaction) once the block ends.
    with django_capture_on_commit_callbacks(execute=True):
        first = client_for(player).get(url(deal))
    assert first.status_code == 202
    answer = client_for(player).get(url(deal))
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "ready"
    assert body["opponents"] == OPPONENTS
    rows = body["settings"]
    assert len(rows) == 21
    assert set(rows[0]) == {"front", "back", "front_name", "back_name", "foul", "wins",
                            "pushes", "losses", "expected", "house_way"}
    assert all(r["wins"] + r["pushes"] + r["losses"] == OPPONENTS for r in rows)
    assert [r["expected"] for r in rows] == sorted((r["expected"] for r in rows), reverse=True)
    assert [r["front"].split() for r in rows if r["house_way"]] == [house_front(STRONG)]
    assert {c for r in rows[:1] for c in (r["front"] + " " + r["back"]).split()} == set(
        STRONG.split())
    # Solo, a player's seat: the player's side.
    assert ExactAnalysisCache.objects.get().key == engine.exact_key(STRONG, mode="solo")


@pytest.fixture
def queued_later(monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> Iterator[Any]:
    """As in production: tasks go to a broker (here a mock of ``delay``) from
    the queueing thread once the transaction commits; no class queued a
    moment ago."""
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    for cards in (STRONG, WEAK):
        for mode in ("solo", "friend"):
            enqueue.shared_cache().delete(
                enqueue.exact_mark(cards=engine.canonical(cards)[0], mode=mode, side="player"))

    class Queued:
        def __init__(self) -> None:
            self.patch = mock.patch.object(tasks.exact_analyse, "delay")

        def get(self, client: Client, path: str) -> Any:
            with django_capture_on_commit_callbacks(execute=True):
                answer = client.get(path)
            enqueue.wait()
            return answer

    queued = Queued()
    queued.delay = queued.patch.start()
    yield queued
    queued.patch.stop()


def test_while_a_worker_computes_it_the_answer_is_202_and_the_class_is_queued(
    player: Any, play_solo: Callable[..., Deal], queued_later: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, WEAK, STRONG)
    answer = queued_later.get(client_for(player), url(deal))
    again = queued_later.get(client_for(player), url(deal))  # the explorer asks again
    queued = queued_later.delay
    assert answer.status_code == 202
    assert answer.json() == {
        "status": "pending",
        "detail": "The exact analysis of your hand is being computed; ask again in a few seconds.",
    }
    assert again.status_code == 202
    # Queued once for the two requests, with the class's representative.
    assert [c.args for c in queued.call_args_list] == [
        (engine.canonical(WEAK)[0], "solo", "player")]
    # Once the worker stored it, the same request answers at once.
    exact_analysis_compute(cards=engine.canonical(WEAK)[0], mode="solo", side="player")
    assert client_for(player).get(url(deal)).status_code == 200


def test_a_friend_seat_is_answered_after_its_own_lock_and_never_for_the_others(
    player: Any, friend: Any, rig: Callable[..., None], make_user: Callable[[str], Any],
    queued_later: Any,
) -> None:
    table = friend_table(player, friend)
    deal = deal_friend(rig, table, player, friend, STRONG, WEAK)
    before = queued_later.get(client_for(player), url(deal))
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    mine = queued_later.get(client_for(player), url(deal))
    theirs = queued_later.get(client_for(friend), url(deal))  # the friend has not locked yet
    stranger = queued_later.get(client_for(make_user("mallory")), url(deal))
    queued = queued_later.delay
    assert (before.status_code, before.json()) == (404, NOT_FOUND)
    assert mine.status_code == 202
    assert (theirs.status_code, theirs.json()) == (404, NOT_FOUND)
    assert (stranger.status_code, stranger.json()) == (404, NOT_FOUND)
    # Only the locked seat's own hand was ever queued (friend mode, a player's side).
    assert [c.args for c in queued.call_args_list] == [
        (engine.canonical(STRONG)[0], "friend", "player")]


@pytest.mark.parametrize("path", [
    "/api/tables/999/deals/1/exact/", "/api/tables/1/deals/0/exact/",
    "/api/tables/99999999999999999999/deals/1/exact/",
])
def test_unknown_deals_are_a_404_in_the_error_shape(player: Any, path: str) -> None:
    answer = client_for(player).get(path)
    assert (answer.status_code, answer.json()) == (404, NOT_FOUND)


def test_anonymous_visitors_are_refused(player: Any, play_solo: Callable[..., Deal]) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, STRONG, WEAK)
    answer = Client().get(url(deal))
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"] == "Token"
    assert answer.json()["error"] == "not_authenticated"


def test_the_ready_figures_make_the_hands_decision_cost_exact(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, STRONG, WEAK)
    with django_capture_on_commit_callbacks(execute=True):
        assert client_for(player).get(url(deal)).status_code == 202
    with django_capture_on_commit_callbacks(execute=True):
        assert client_for(player).get(url(deal)).status_code == 200
    hand = deal.hands.get(seat_number=0)
    assert (hand.cost_method, hand.cost_opponents) == ("exact", OPPONENTS)
