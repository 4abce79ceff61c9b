"""The exact analysis cache (games.services.analysis): one row per suit class
and mode and side, computed once, each hand answered with its own cards."""

from __future__ import annotations

from typing import Any

import pytest

from games import engine
from games.engine.exact import OPPONENTS
from games.models import ExactAnalysisCache
from games.services import analysis

pytestmark = pytest.mark.django_db

HAND = "Kd Qd 7c 7h 2d 3c JK"
SAME_CLASS = "Ks Qs 7h 7c 2s 3h JK"  # HAND with diamonds → spades, clubs → hearts, hearts → clubs


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The cards every real ``engine.exact`` call of the service analysed."""
    seen: list[str] = []
    real = analysis.exact

    def counted(seven: Any, **kwargs: Any) -> engine.ExactAnalysis:
        seen.append(" ".join(seven) if not isinstance(seven, str) else seven)
        return real(seven, **kwargs)

    monkeypatch.setattr(analysis, "exact", counted)
    return seen


def _cards(result: engine.ExactAnalysis) -> set[str]:
    row = result.settings[0]
    return set(row.front + row.back)


def test_two_hands_of_one_suit_class_are_computed_once_each_with_its_own_cards(
    calls: list[str],
) -> None:
    assert analysis.exact_analysis_cached(cards=HAND, mode="friend") is None
    first = analysis.exact_analysis_compute(cards=HAND, mode="friend", side="player")
    second = analysis.exact_analysis_compute(cards=SAME_CLASS, mode="friend", side="player")
    assert calls == [engine.canonical(HAND)[0]]  # the class's representative, once
    assert ExactAnalysisCache.objects.count() == 1
    assert _cards(first) == set(HAND.split())
    assert _cards(second) == set(SAME_CLASS.split())
    assert set(first.house_way.front) == set(engine.house_way(HAND).setting.front)
    assert set(second.house_way.front) == set(engine.house_way(SAME_CLASS).setting.front)
    assert sorted((r.wins, r.pushes, r.losses) for r in first.settings) == sorted(
        (r.wins, r.pushes, r.losses) for r in second.settings)
    assert all(r.wins + r.pushes + r.losses == OPPONENTS for r in first.settings)


def test_a_cached_hand_reads_its_classs_row_without_computing(calls: list[str]) -> None:
    stored = analysis.exact_analysis_compute(cards=HAND, mode="solo", side="player")
    calls.clear()
    assert analysis.exact_analysis_cached(cards=SAME_CLASS, mode="solo", side="player") == (
        analysis.exact_analysis_compute(cards=SAME_CLASS, mode="solo", side="player"))
    assert analysis.exact_analysis_cached(cards=HAND, mode="solo") == stored
    assert calls == []
    # Another mode or side is another class.
    assert analysis.exact_analysis_cached(cards=HAND, mode="friend") is None
    assert analysis.exact_analysis_cached(cards=HAND, mode="solo", side="dealer") is None


def test_a_second_store_of_the_same_class_does_not_fail(
    calls: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two workers that both found the class missing both store it: the second
    insert does nothing, and both answer."""
    first = analysis.exact_analysis_compute(cards=HAND, mode="friend", side="player")
    monkeypatch.setattr(analysis, "exact_analysis_cached", lambda **_: None)
    second = analysis.exact_analysis_compute(cards=HAND, mode="friend", side="player")
    assert len(calls) == 2
    assert second == first
    assert ExactAnalysisCache.objects.count() == 1


def test_a_request_queues_the_class_only_when_it_is_not_cached(
    monkeypatch: pytest.MonkeyPatch, player: Any,
) -> None:
    queued: list[dict[str, str]] = []
    monkeypatch.setattr(analysis.enqueue, "exact_analyse_later", lambda **kw: queued.append(kw))
    assert analysis.exact_analysis_request(
        user=player, cards=HAND, mode="friend", side="player") is True
    # The task is told the class's representative, never the hand itself, and
    # the player's analysis slot it gives back.
    slot = queued[0].pop("slot")
    assert queued == [{"cards": engine.canonical(HAND)[0], "mode": "friend", "side": "player"}]
    assert slot.endswith(f"-slot:{player.pk}:0")
    analysis.exact_analysis_compute(cards=SAME_CLASS, mode="friend", side="player")
    assert analysis.exact_analysis_request(
        user=player, cards=HAND, mode="friend", side="player") is False
    assert len(queued) == 1
