"""The house way's own loss on each costed hand (``Hand.cost_house_loss``):
stored with the exact cost, from the same analysis (the best setting's
expected score minus the house way's), so /record/ can set the player's
cost beside the house way's on the same hands; and filled in by the sweep
for hands costed exactly before it was kept."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from games import services
from games.engine import ExactAnalysis, exact
from games.models import Deal, Hand
from games.services import costs, upkeep
from tests.background.test_decision_cost import TWO_PAIR, solo
from tests.support import WEAK, house_front

pytestmark = pytest.mark.django_db

# Low two pair: the house way keeps it together (10-5 in front), the best
# splits it (the deuces in front), giving up about 0.097 a hand.
HOUSE_GIVES_UP = "6h Ts 5c 2d 6c 2s 3s"
DEALER = "Ah Kd Qc Jh 9d 8c 7s"


def house_loss(analysis: ExactAnalysis) -> Decimal:
    return Decimal(analysis.best.expected - analysis.house_way.expected).quantize(
        Decimal("0.000000001"))


def test_the_house_ways_loss_is_stored_with_the_exact_cost(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    best = list(exact(HOUSE_GIVES_UP, mode="solo").best.front)
    table = services.table_start(user=player, mode="solo")
    with django_capture_on_commit_callbacks(execute=True):
        deal = play_solo(player, table, HOUSE_GIVES_UP, DEALER, front=best)
    hand = Hand.objects.get(deal=deal, seat_number=0)
    expected = house_loss(exact(HOUSE_GIVES_UP, mode="solo"))
    assert expected > Decimal("0.09")
    assert (hand.cost_method, hand.cost_loss, hand.cost_house_loss) == (
        "exact", Decimal(0), expected)


def test_set_by_the_house_way_the_two_losses_are_the_same(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    with django_capture_on_commit_callbacks(execute=True):
        deal = play_solo(player, table, HOUSE_GIVES_UP, DEALER,
                         front=house_front(HOUSE_GIVES_UP))
    hand = Hand.objects.get(deal=deal, seat_number=0)
    assert hand.cost_loss == hand.cost_house_loss > 0


def test_the_house_way_of_the_lesson_gives_up_nothing_where_the_player_does(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    hand = solo(player, play_solo, TWO_PAIR, ["Ks", "7h"], django_capture_on_commit_callbacks)
    assert hand.cost_loss is not None
    assert hand.cost_loss > 0
    assert hand.cost_house_loss == Decimal(0)


def test_the_sweep_fills_in_the_house_ways_loss_of_hands_costed_before(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    with django_capture_on_commit_callbacks(execute=True):
        deals = [play_solo(player, table, HOUSE_GIVES_UP, DEALER, front=["Ts", "6h"])
                 for _ in range(3)]
    # Costed exactly before the house way's loss was kept.
    Hand.objects.filter(deal__in=deals, seat_number=0).update(cost_house_loss=None)
    before = list(Hand.objects.filter(deal__in=deals, seat_number=0)
                  .values_list("cost_loss", "cost_at", "cost_method"))
    assert upkeep.decision_costs_sweep(size=2) == 2  # bounded batches
    assert upkeep.decision_costs_sweep(size=2) == 1
    assert upkeep.decision_costs_sweep(size=2) == 0  # nothing left
    hands = Hand.objects.filter(deal__in=deals, seat_number=0)
    assert set(hands.values_list("cost_house_loss", flat=True)) == {
        house_loss(exact(HOUSE_GIVES_UP, mode="solo"))}
    # The cost itself is left as it was.
    assert list(hands.values_list("cost_loss", "cost_at", "cost_method")) == before


def test_the_sweep_costs_hands_with_no_figure_before_filling_in_house_losses(
    player: Any, play_solo: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    with django_capture_on_commit_callbacks(execute=True):
        old = play_solo(player, table, HOUSE_GIVES_UP, DEALER)
    Hand.objects.filter(deal=old, seat_number=0).update(cost_house_loss=None)
    new = play_solo(player, table, TWO_PAIR, WEAK)  # its task never ran
    assert upkeep.decision_costs_sweep(size=1) == 1
    assert Hand.objects.get(deal=new, seat_number=0).cost_method == "exact"
    assert Hand.objects.get(deal=old, seat_number=0).cost_house_loss is None
    assert upkeep.decision_costs_sweep(size=1) == 1
    assert Hand.objects.get(deal=old, seat_number=0).cost_house_loss is not None


def test_filling_in_is_a_no_op_the_second_time_and_never_touches_an_estimate(
    player: Any, play_solo: Callable[..., Deal],
) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, TWO_PAIR, WEAK)  # on-commit work not run
    hand = Hand.objects.get(deal=deal, seat_number=0)
    services.hand_cost_record(
        hand_id=hand.pk, chosen_expected=0.5, best_expected=0.6, best_front=["8d", "8c"],
        opponents=2000, exact=False, at_best=False)
    assert not costs.hand_house_loss_record(hand_id=hand.pk, house_expected=0.6,
                                            best_expected=0.6)
    Hand.objects.filter(pk=hand.pk).update(cost_method="", cost_loss=None, cost_at_best=None,
                                           cost_best_front="", cost_opponents=None,
                                           cost_at=None)
    services.hand_cost_record(
        hand_id=hand.pk, chosen_expected=0.6, best_expected=0.6, best_front=["8d", "8c"],
        opponents=53_524_680, exact=True)
    assert costs.hand_house_loss_record(hand_id=hand.pk, house_expected=0.55,
                                        best_expected=0.6)
    assert not costs.hand_house_loss_record(hand_id=hand.pk, house_expected=0.6,
                                            best_expected=0.6)
    hand.refresh_from_db()
    assert hand.cost_house_loss == Decimal("0.050000000")


def test_a_house_way_better_than_the_best_is_refused() -> None:
    with pytest.raises(ValueError, match="house way"):
        costs.hand_house_loss_record(hand_id=1, house_expected=0.7, best_expected=0.6)
