"""Each player's decision cost is worked out exactly, over every opponent, in
the background after the reveal (``games.decision_cost_hands`` on the costs
queue, queued on commit), once; a broker that is down never fails the reveal,
and the beat's sweep costs what was missed, and makes earlier estimates
exact, a full batch queueing the next until it has caught up."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any
from unittest import mock

import pytest

from games import enqueue, services, tasks
from games.engine import ExactAnalysis, exact
from games.engine.cost import decision_cost
from games.models import Deal, ExactAnalysisCache, Hand
from games.services import analysis, costs, upkeep
from paigow_site.celery import app
from tests.support import (
    SPLIT_A,
    SPLIT_B,
    STRONG,
    WEAK,
    deck_with,
    friends_mid_deal,
    house_front,
)

pytestmark = pytest.mark.django_db

TWO_PAIR = "As Ah 8d 8c Ks 7h 4d"  # the two-pair lesson (rules §9)


OPPONENTS = 53_524_680


def exact_loss(analysis: ExactAnalysis, front: str) -> Decimal:
    chosen = next(row for row in analysis.settings if set(row.front) == set(front.split()))
    return Decimal(analysis.best.expected - chosen.expected).quantize(Decimal("0.000000001"))


def estimated(hand: Hand, samples: int = 2000) -> None:
    """Record an estimate, as the task did before it costed hands exactly."""
    cost = decision_cost(hand.cards, mode="solo", front=hand.front, samples=samples)
    services.hand_cost_record(
        hand_id=hand.pk, chosen_expected=cost.chosen_expected, best_expected=cost.best_expected,
        best_front=list(cost.best_front), opponents=cost.opponents, exact=False,
        at_best=cost.at_best,
    )


def solo(player: Any, play_solo: Callable[..., Deal], mine: str, front: list[str],
         capture: Any) -> Hand:
    table = services.table_start(user=player, mode="solo")
    with capture(execute=True):
        deal = play_solo(player, table, mine, WEAK, front=front)
    return Hand.objects.get(deal=deal, seat_number=0)


def test_the_players_hand_is_costed_exactly_after_the_reveal(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    hand = solo(player, play_solo, TWO_PAIR, ["Ks", "7h"], django_capture_on_commit_callbacks)
    assert (hand.cost_method, hand.cost_opponents, hand.cost_at_best, hand.cost_best_front) == (
        "exact", OPPONENTS, False, "8d 8c"
    )
    assert hand.cost_loss == exact_loss(exact(TWO_PAIR, mode="solo"), "Ks 7h")
    # Worked out for the hand, not stored: a row a hand would only grow the cache.
    assert not ExactAnalysisCache.objects.exists()


def test_the_house_way_of_the_two_pair_lesson_gives_up_nothing(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    hand = solo(player, play_solo, TWO_PAIR, house_front(TWO_PAIR),
                django_capture_on_commit_callbacks)
    assert (hand.cost_loss, hand.cost_at_best) == (Decimal(0), True)


def test_the_dealers_hand_is_not_estimated(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    hand = solo(player, play_solo, STRONG, house_front(STRONG),
                django_capture_on_commit_callbacks)
    dealer = Hand.objects.get(deal=hand.deal, seat_number=1)
    assert dealer.cost_method == ""


def test_both_friends_are_costed_exactly(
    player: Any, friend: Any, rig: Callable[..., None],
    django_capture_on_commit_callbacks: Any,
) -> None:
    rig(deck_with(SPLIT_A, SPLIT_B))
    table = friends_mid_deal(player, friend, stake=5)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(SPLIT_A))
    with django_capture_on_commit_callbacks(execute=True):
        services.setting_lock(user=friend, table_id=table.pk, front=house_front(SPLIT_B))
    methods = Hand.objects.filter(deal__table=table).values_list("cost_method", flat=True)
    assert list(methods) == ["exact", "exact"]


def test_a_foul_counts_as_the_setting_chosen(
    player: Any, rig: Callable[..., None], django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    rig(deck_with(WEAK, STRONG))
    services.stake_propose(user=player, table_id=table.pk, amount=5)
    deal = services.deal_start(user=player, table_id=table.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.setting_lock(user=player, table_id=table.pk, front=["Js", "9h"],
                              confirm_foul=True)
    hand = Hand.objects.get(deal=deal, seat_number=0)
    assert (hand.foul, hand.cost_at_best, hand.cost_method) == (True, False, "exact")
    assert hand.cost_loss == exact_loss(exact(WEAK, mode="solo"), "Js 9h")


def test_running_the_task_again_changes_nothing(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    hand = solo(player, play_solo, TWO_PAIR, ["Ks", "7h"], django_capture_on_commit_callbacks)
    before = (hand.cost_loss, hand.cost_at)
    assert tasks.decision_cost.delay(hand.pk).get() is None
    hand.refresh_from_db()
    assert (hand.cost_loss, hand.cost_at) == before


def test_the_task_leaves_an_exact_figure_alone(
    player: Any, play_solo: Callable[..., Deal],
) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, TWO_PAIR, WEAK)  # on-commit work not run
    hand = Hand.objects.get(deal=deal, seat_number=0)
    services.hand_cost_record(
        hand_id=hand.pk, chosen_expected=0.6, best_expected=0.6, best_front=["8d", "8c"],
        opponents=53_524_680, exact=True,
    )
    assert upkeep.decision_cost_estimate(hand_id=hand.pk) is None
    hand.refresh_from_db()
    assert (hand.cost_method, hand.cost_loss) == ("exact", Decimal(0))


def test_an_unknown_hand_is_nothing_to_do() -> None:
    assert tasks.decision_cost.delay(10**9).get() is None


def test_the_task_is_retried_like_the_others() -> None:
    from django.db import OperationalError

    assert (OperationalError in tasks.decision_cost.autoretry_for,
            tasks.decision_cost.acks_late) == (True, True)


@pytest.mark.parametrize("eager", [True, False])
def test_a_broker_that_is_down_never_fails_a_reveal_and_the_sweep_catches_up(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch, eager: bool,
) -> None:
    monkeypatch.setitem(app.conf, "task_always_eager", eager)
    table = services.table_start(user=player, mode="solo")
    down = ConnectionError("the broker is down")
    with (
        mock.patch.object(tasks.decision_cost_hands, "delay", side_effect=down),
        mock.patch.object(tasks.report_refresh, "delay", side_effect=down),
        mock.patch.object(tasks.report_refresh, "apply_async", side_effect=down),
        django_capture_on_commit_callbacks(execute=True),
    ):
        deal = play_solo(player, table, TWO_PAIR, WEAK, front=["Ks", "7h"])
    enqueue.wait()
    deal.refresh_from_db()
    hand = Hand.objects.get(deal=deal, seat_number=0)
    assert (deal.revealed, hand.cost_method) == (True, "")
    monkeypatch.setitem(app.conf, "task_always_eager", True)
    assert tasks.decision_costs_sweep.delay().get() == 1
    hand.refresh_from_db()
    assert (hand.cost_method, hand.cost_best_front) == ("exact", "8d 8c")
    assert tasks.decision_costs_sweep.delay().get() == 0  # nothing left


def test_the_sweep_takes_the_oldest_first_and_at_most_its_size(
    player: Any, play_solo: Callable[..., Deal],
) -> None:
    table = services.table_start(user=player, mode="solo")
    deals = [play_solo(player, table, TWO_PAIR, WEAK) for _ in range(3)]
    assert upkeep.decision_costs_sweep(size=2) == 2
    costed = Hand.objects.filter(deal__in=deals, seat_number=0).order_by("deal__number")
    assert [h.cost_method for h in costed] == ["exact", "exact", ""]


def test_the_sweep_costs_hands_with_no_figure_before_it_makes_estimates_exact(
    player: Any, play_solo: Callable[..., Deal],
) -> None:
    table = services.table_start(user=player, mode="solo")
    deals = [play_solo(player, table, TWO_PAIR, WEAK, front=["Ks", "7h"]) for _ in range(3)]
    hands = list(Hand.objects.filter(deal__in=deals, seat_number=0).order_by("deal__number"))
    estimated(hands[0])  # the oldest, estimated before costs were exact
    assert upkeep.decision_costs_sweep(size=2) == 2
    assert [Hand.objects.get(pk=h.pk).cost_method for h in hands] == ["sampled", "exact", "exact"]
    assert upkeep.decision_costs_sweep(size=2) == 1
    hand = Hand.objects.get(pk=hands[0].pk)
    assert (hand.cost_method, hand.cost_opponents, hand.cost_loss) == (
        "exact", OPPONENTS, exact_loss(exact(TWO_PAIR, mode="solo"), "Ks 7h"))
    assert upkeep.decision_costs_sweep(size=2) == 0


@pytest.fixture
def queued_sweeps(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The sweep runs queued, as a worker's broker would hold them (not eager)."""
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.decision_costs_sweep, "delay", lambda *a: queued.append(a))
    return queued


def sweep(size: int, capture: Any) -> int:
    """One run of the sweep as a worker runs it: what it queues once it commits."""
    with capture(execute=True):
        written = upkeep.decision_costs_sweep(size=size)
    enqueue.wait()
    return written


def test_after_an_outage_a_full_batch_queues_the_next_until_the_sweep_has_caught_up(
    player: Any, play_solo: Callable[..., Deal], queued_sweeps: list[tuple[Any, ...]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    for _ in range(5):  # revealed while the broker was down: nothing queued
        play_solo(player, table, TWO_PAIR, WEAK)
    runs = [sweep(2, django_capture_on_commit_callbacks)]  # the beat's run
    while queued_sweeps:
        queued_sweeps.pop()
        runs.append(sweep(2, django_capture_on_commit_callbacks))
    assert runs == [2, 2, 1]  # the last batch was not full: nothing more queued
    assert set(Hand.objects.filter(seat_number=0).values_list("cost_method", flat=True)) == {
        "exact"}


def test_a_run_that_finds_its_hands_costed_meanwhile_ends_the_chain(
    player: Any, play_solo: Callable[..., Deal], queued_sweeps: list[tuple[Any, ...]],
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    deals = [play_solo(player, table, TWO_PAIR, WEAK) for _ in range(4)]
    first = Hand.objects.get(deal=deals[0], seat_number=0)
    real = costs.exact

    def another_run_got_there_first(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        if not Hand.objects.filter(pk=first.pk, cost_method="exact").exists():
            services.hand_cost_record(
                hand_id=first.pk, chosen_expected=found.house_way.expected,
                best_expected=found.best.expected, best_front=list(found.best.front),
                opponents=found.opponents, exact=True)
        return found

    monkeypatch.setattr(costs, "exact", another_run_got_there_first)
    assert sweep(2, django_capture_on_commit_callbacks) == 1
    assert queued_sweeps == []
    # Undisturbed, a full batch queues the next run.
    monkeypatch.setattr(costs, "exact", real)
    assert sweep(2, django_capture_on_commit_callbacks) == 2
    assert queued_sweeps == [()]


def test_a_recorded_cost_brings_the_players_report_up_to_date(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
    settings: Any,
) -> None:
    from games.models import PlayerReport

    settings.REPORT_REFRESH_SECONDS = 0  # a refresh after every change
    hand = solo(player, play_solo, TWO_PAIR, ["Ks", "7h"], django_capture_on_commit_callbacks)
    report = PlayerReport.objects.get(user=player)
    assert (report.hands, report.costed, report.cost_loss_sum) == (1, 1, hand.cost_loss)


def test_an_estimate_recorded_before_becomes_exact_when_the_task_runs(
    player: Any, play_solo: Callable[..., Deal],
) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, TWO_PAIR, WEAK, front=["Ks", "7h"])
    hand = Hand.objects.get(deal=deal, seat_number=0)
    estimated(hand)
    assert upkeep.decision_cost_estimate(hand_id=hand.pk) == "exact"
    hand.refresh_from_db()
    found = exact(TWO_PAIR, mode="solo")
    assert (hand.cost_method, hand.cost_opponents, hand.cost_best_front, hand.cost_loss) == (
        "exact", OPPONENTS, " ".join(found.best.front), exact_loss(found, "Ks 7h")
    )
    assert upkeep.decision_cost_estimate(hand_id=hand.pk) is None  # exact stays


def test_a_hand_of_an_analysed_class_is_costed_exactly_at_once(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    analysis.exact_analysis_compute(cards="As Ah 8d 8c Ks 7h 4d", mode="solo")
    # The same hand in other suits (spades and hearts swapped, diamonds and clubs):
    # read from the stored analysis, never worked out again.
    with mock.patch.object(costs, "exact", side_effect=AssertionError("analysed again")):
        hand = solo(player, play_solo, "Ah As 8c 8d Kh 7s 4c", ["Kh", "7s"],
                    django_capture_on_commit_callbacks)
    assert (hand.cost_method, hand.cost_opponents) == ("exact", OPPONENTS)
