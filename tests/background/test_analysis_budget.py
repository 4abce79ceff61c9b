"""Each account's budget on the analysis queue (games.services.analysis): at
most ANALYSIS_AT_ONCE analyses queued or running at once and
ANALYSIS_PER_MINUTE a minute; past either a 429 ``analysis_budget`` with a
sentence the player can act on. Every part of it expires by itself, so a
worker killed before it gives a slot back locks nobody out."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.test import Client

from accounts.models import User
from games import engine, enqueue, services, tasks
from games.models import Deal, PracticeHand
from games.services import analysis
from games.services.analysis import AnalysisBudgetSpent
from paigow_site.celery import app
from tests.api.test_permissions import client_for
from tests.support import STRONG, WEAK

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def budget(settings: Any) -> None:
    settings.ANALYSIS_AT_ONCE, settings.ANALYSIS_PER_MINUTE = 3, 30


def claims(user: User, count: int) -> list[str]:
    return [analysis.analysis_budget_claim(user_id=user.pk) for _ in range(count)]


def test_an_account_has_at_most_its_slots_at_once_then_a_sentence(player: User) -> None:
    claims(player, 3)
    with pytest.raises(AnalysisBudgetSpent) as refused:
        analysis.analysis_budget_claim(user_id=player.pk)
    assert (refused.value.code, refused.value.status) == ("analysis_budget", 429)
    assert "already have 3 analyses waiting" in refused.value.detail
    assert "wait a few seconds" in refused.value.detail


def test_a_slot_given_back_is_free_again_and_accounts_are_apart(
    player: User, friend: User
) -> None:
    slots = claims(player, 3)
    claims(friend, 3)  # another account's budget is its own
    analysis.analysis_budget_release(slot=slots[1])
    assert analysis.analysis_budget_claim(user_id=player.pk) == slots[1]


def test_a_slot_never_given_back_frees_itself(player: User, settings: Any) -> None:
    """A worker SIGKILLed mid-analysis never gives its slot back: the slot's
    own timeout does."""
    settings.ANALYSIS_SLOT_SECONDS = 1
    claims(player, 3)
    with pytest.raises(AnalysisBudgetSpent):
        analysis.analysis_budget_claim(user_id=player.pk)
    time.sleep(1.2)
    assert analysis.analysis_budget_claim(user_id=player.pk)


def test_an_account_starts_at_most_its_analyses_a_minute(player: User, settings: Any) -> None:
    settings.ANALYSIS_AT_ONCE, settings.ANALYSIS_PER_MINUTE = 3, 5
    for _ in range(5):
        analysis.analysis_budget_release(slot=analysis.analysis_budget_claim(user_id=player.pk))
    with pytest.raises(AnalysisBudgetSpent) as refused:
        analysis.analysis_budget_claim(user_id=player.pk)
    assert "5 analyses within a minute" in refused.value.detail
    assert refused.value.retry_after == 60


@pytest.mark.parametrize(("task", "args"), [
    (tasks.exact_analyse, ("AB", "solo", "player")),
    (tasks.practice_analyse, (10**9,)),
])
def test_a_task_gives_its_slot_back_even_when_it_fails(
    player: User, task: Any, args: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch,
) -> None:
    from games.services import practice

    def broken(**_: Any) -> Any:
        raise ValueError("broken")

    monkeypatch.setattr(analysis, "exact_analysis_compute", broken)
    monkeypatch.setattr(practice, "practice_analyse", broken)
    slots = claims(player, 3)
    with pytest.raises(ValueError, match="broken"):
        task.apply(args=args, kwargs={"slot": slots[0]}).get()
    assert analysis.analysis_budget_claim(user_id=player.pk) == slots[0]


@pytest.fixture
def production(monkeypatch: pytest.MonkeyPatch) -> Any:
    """As in production: tasks go to a broker (a mock of ``delay`` here)."""
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    for cards in (STRONG, WEAK):
        enqueue.shared_cache().delete(
            enqueue.exact_mark(cards=engine.canonical(cards)[0], mode="solo", side="player"))
    with (
        mock.patch.object(tasks.exact_analyse, "delay") as exact,
        mock.patch.object(tasks.practice_analyse, "delay") as practice,
    ):
        yield exact, practice


def test_a_flood_of_exact_requests_gets_the_budget_answer_in_the_error_shape(
    player: User, play_solo: Callable[..., Deal], production: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, STRONG, WEAK)
    claims(player, 3)  # three analyses of other hands still waiting
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(player).get(
            f"/api/tables/{deal.table_id}/deals/{deal.number}/exact/")
    assert answer.status_code == 429
    assert answer.json() == {
        "error": "analysis_budget",
        "detail": "You already have 3 analyses waiting for the server: wait a few seconds "
                  "for them to finish, then ask again.",
    }
    assert answer["Retry-After"] == "5"
    assert production[0].call_count == 0


def test_a_practice_deal_past_the_budget_deals_nothing_and_says_why(
    player: User, production: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    client = Client()
    client.force_login(player)
    json = {"HTTP_ACCEPT": "application/json"}
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            assert client.post("/practice/deal/", {"drill": "any"}, **json).status_code == 201
    enqueue.wait()
    assert production[1].call_count == 3
    refused = client.post("/practice/deal/", {"drill": "any"}, **json)
    assert refused.status_code == 429
    assert refused.json()["error"] == "analysis_budget"
    assert PracticeHand.objects.count() == 3
    page = client.post("/practice/deal/", {"drill": "any"})  # the form: the sentence on the page
    assert page.status_code == 429
    assert "already have 3 analyses waiting" in page.content.decode()
