"""The practice table's writes (games.services.practice): no stake, no ledger,
one lock a hand, and the analysis computed once."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import services, tasks
from games.engine import house_way, in_drill, sampled_analysis
from games.engine.errors import (
    InvalidSetting,
    PracticeAlreadyLocked,
    PracticeHandNotFound,
    UnknownDrill,
)
from games.models import Deal, Hand, LedgerEntry, PracticeHand, ReportBucket, Seat, Table
from games.practice import selectors

pytestmark = pytest.mark.django_db

TWO_PAIR = "As Ah 8d 8c Ks 7h 4d"
FEW = 2000  # opponents in these tests (the default, 20,000, is measured in benchmarks/)


@pytest.fixture(autouse=True)
def few_opponents(settings: Any) -> None:
    settings.PRACTICE_OPPONENTS = FEW


def dealt(user: User, cards: str = TWO_PAIR, drill: str = "two-pair", *,
          analysed: bool = True) -> PracticeHand:
    """A practice hand of known cards (a dealt one, its cards replaced), with
    its analysis (what the deal's task stores) unless ``analysed`` is False."""
    hand = services.practice_deal(user=user, drill=drill, rng=random.Random(1))
    hw = house_way(cards)
    PracticeHand.objects.filter(pk=hand.pk).update(
        cards=cards, house_front=" ".join(hw.setting.front), house_row=hw.row)
    if analysed:
        services.practice_analyse(hand_id=hand.pk)
    hand.refresh_from_db()
    return hand


def test_a_deal_is_a_hand_of_its_drill_with_its_house_way(player: User) -> None:
    hand = services.practice_deal(user=player, drill="full-house", rng=random.Random(4))
    assert in_drill("full-house", hand.card_list)
    assert hand.house_row == house_way(hand.card_list).row


def test_practice_touches_no_table_seat_deal_hand_ledger_or_report(player: User) -> None:
    hand = services.practice_deal(user=player, drill="any")
    services.practice_analyse(hand_id=hand.pk)
    services.practice_lock(user=player, hand_id=hand.pk, front=list(hand.card_list[:2]))
    counts = [m.objects.count() for m in (Table, Seat, Deal, Hand, LedgerEntry, ReportBucket)]
    assert counts == [0, 0, 0, 0, 0, 0]


def test_an_unknown_drill_is_refused_naming_the_drills(player: User) -> None:
    with pytest.raises(UnknownDrill, match="choose one of any, two-pair"):
        services.practice_deal(user=player, drill="five-aces")


def test_the_deal_queues_its_analysis_once_it_commits(
    player: User, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        hand = services.practice_deal(user=player, drill="two-pair")
    hand.refresh_from_db()
    assert (hand.opponents, len(hand.expected), hand.exact) == (FEW, 21, False)


def test_the_analysis_task_writes_once(player: User) -> None:
    hand = dealt(player, analysed=False)
    assert tasks.practice_analyse.apply(args=[hand.pk]).get() is True
    assert services.practice_analyse(hand_id=hand.pk) is False


def test_a_lock_records_the_house_way_the_best_and_the_loss(player: User) -> None:
    hand = dealt(player)
    locked = services.practice_lock(user=player, hand_id=hand.pk, front=["Ks", "7h"])
    analysis = sampled_analysis(TWO_PAIR, opponents=FEW)
    by_front = dict(zip(analysis.fronts, analysis.expected, strict=True))
    best = max(analysis.expected)
    assert locked.best_front == "8d 8c"
    assert locked.loss == best - by_front[("Ks", "7h")]
    assert locked.at_best is False


def test_the_house_way_of_the_two_pair_lesson_is_at_the_best(player: User) -> None:
    hand = dealt(player)
    locked = services.practice_lock(user=player, hand_id=hand.pk, front="8c 8d")
    assert (locked.front, locked.at_best, locked.loss) == ("8d 8c", True, 0.0)


def test_a_lock_uses_the_analysis_the_deal_already_stored(player: User) -> None:
    hand = dealt(player)
    PracticeHand.objects.filter(pk=hand.pk).update(analysis_ms=123_456)
    locked = services.practice_lock(user=player, hand_id=hand.pk, front="8c 8d")
    assert locked.analysis_ms == 123_456


def test_a_lock_before_the_analysis_is_refused_and_queues_it_again_never_computing_it(
    player: User, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    """The analysis (180 ms of CPU at 20,000 opponents) never runs in the
    web process: a lock that comes first is refused, changes nothing, and
    queues the hand's analysis again (its task may have been lost)."""
    hand = dealt(player, analysed=False)
    queued: list[int] = []
    monkeypatch.setattr(tasks.practice_analyse, "delay",
                        lambda hand_id, **_: queued.append(hand_id))
    monkeypatch.setattr(services.practice, "hand_analysis",
                        lambda cards: pytest.fail("the lock analysed the hand itself"))
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(
        services.practice.PracticeAnalysing, match="still being analysed"
    ):
        services.practice_lock(user=player, hand_id=hand.pk, front="8c 8d")
    hand.refresh_from_db()
    assert (hand.locked_at, hand.expected, queued) == (None, None, [hand.pk])


def test_a_foul_may_be_locked_and_gives_up_the_whole_best_score(player: User) -> None:
    hand = dealt(player)
    locked = services.practice_lock(user=player, hand_id=hand.pk, front=["As", "Ah"])
    assert locked.loss == max(locked.expected)


def test_a_second_lock_is_refused_with_what_to_do_next(player: User) -> None:
    hand = dealt(player)
    services.practice_lock(user=player, hand_id=hand.pk, front="8c 8d")
    with pytest.raises(PracticeAlreadyLocked, match="deal the next hand"):
        services.practice_lock(user=player, hand_id=hand.pk, front="As Ah")


def test_a_second_lock_changes_nothing(player: User) -> None:
    hand = dealt(player)
    first = services.practice_lock(user=player, hand_id=hand.pk, front="8c 8d")
    with pytest.raises(PracticeAlreadyLocked):
        services.practice_lock(user=player, hand_id=hand.pk, front="As Ah")
    first.refresh_from_db()
    assert (first.front, first.at_best) == ("8d 8c", True)


def test_another_players_practice_hand_is_refused(player: User, friend: User) -> None:
    hand = dealt(player)
    with pytest.raises(PracticeHandNotFound, match="not yours"):
        services.practice_lock(user=friend, hand_id=hand.pk, front="8c 8d")


def test_another_players_refused_lock_leaves_the_hand_open(player: User, friend: User) -> None:
    hand = dealt(player)
    with pytest.raises(PracticeHandNotFound):
        services.practice_lock(user=friend, hand_id=hand.pk, front="8c 8d")
    hand.refresh_from_db()
    assert hand.locked_at is None


@pytest.mark.parametrize("front", [["8c"], ["2c", "3c"], "8c 8c", []])
def test_a_front_that_is_not_two_of_the_hand_is_refused(player: User, front: Any) -> None:
    hand = dealt(player)
    with pytest.raises(InvalidSetting, match="Pick exactly two of your seven cards"):
        services.practice_lock(user=player, hand_id=hand.pk, front=front)


def test_a_lock_is_one_transaction_that_locks_the_hand_row(player: User) -> None:
    hand = dealt(player)
    with CaptureQueriesContext(connection) as queries:
        services.practice_lock(user=player, hand_id=hand.pk, front="8c 8d")
    writes = [q["sql"] for q in queries if q["sql"].startswith("UPDATE")]
    assert len(writes) == 1


# ------------------------------------------------------------------ the record


def test_the_record_counts_locked_hands_only(player: User) -> None:
    services.practice_lock(user=player, hand_id=dealt(player).pk, front="8c 8d")
    services.practice_lock(user=player, hand_id=dealt(player).pk, front="Ks 7h")
    dealt(player)  # not locked
    record = selectors.practice_record(user=player)
    assert (record["hands"], record["at_best"], record["accuracy"]) == (2, 1, 0.5)


def test_the_record_averages_the_loss_per_hand(player: User) -> None:
    a = services.practice_lock(user=player, hand_id=dealt(player).pk, front="8c 8d")
    b = services.practice_lock(user=player, hand_id=dealt(player).pk, front="Ks 7h")
    record = selectors.practice_record(user=player)
    assert record["average_loss"] == pytest.approx((a.loss + b.loss) / 2)


def test_the_record_is_per_drill(player: User) -> None:
    services.practice_lock(user=player, hand_id=dealt(player).pk, front="8c 8d")
    joker = dealt(player, "JK Ah 9s 9d Kc Qh Jd", drill="joker")
    services.practice_lock(user=player, hand_id=joker.pk, front="9s 9d")
    rows = {r["drill"]: (r["hands"], r["at_best"]) for r in
            selectors.practice_record(user=player)["by_drill"]}
    assert rows == {"two-pair": (1, 1), "joker": (1, 1)}


def test_a_player_with_no_practice_has_no_accuracy(player: User) -> None:
    record = selectors.practice_record(user=player)
    assert (record["hands"], record["accuracy"], record["average_loss"]) == (0, None, None)


def test_the_record_is_the_players_own(player: User, friend: User) -> None:
    services.practice_lock(user=player, hand_id=dealt(player).pk, front="8c 8d")
    assert selectors.practice_record(user=friend)["hands"] == 0


def test_progress_runs_by_hand_number(player: User) -> None:
    services.practice_lock(user=player, hand_id=dealt(player).pk, front="8c 8d")
    services.practice_lock(user=player, hand_id=dealt(player).pk, front="Ks 7h")
    progress = selectors.practice_progress(user=player)
    assert (progress["hand"], progress["accuracy"]) == ([1, 2], [100.0, 50.0])
