"""hand_cost_record: a revealed hand's decision cost, written once as an
estimate and replaced by an exact figure, never the reverse."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from hypothesis import given
from hypothesis import strategies as st

from games import services
from games.engine.cost import EXACT_OPPONENTS
from games.models import Deal, Hand
from games.services.costs import cost_loss
from tests.support import STRONG, WEAK, deck_with, house_front

pytestmark = pytest.mark.django_db


@pytest.fixture
def hand(player: Any, play_solo: Callable[..., Deal]) -> Hand:
    """Ada's hand of one revealed solo deal (STRONG, set by the house way)."""
    table = services.table_start(user=player, mode="solo")
    deal = play_solo(player, table, STRONG, WEAK)
    return Hand.objects.get(deal=deal, seat_number=0)


def record(hand: Hand, **changes: Any) -> bool:
    fields: dict[str, Any] = {
        "hand_id": hand.pk, "chosen_expected": 0.5, "best_expected": 0.543,
        "best_front": ["Kd", "Kc"], "opponents": 10_000, "exact": False,
    }
    fields.update(changes)
    return services.hand_cost_record(**fields)


def stored(hand: Hand) -> tuple[Any, ...]:
    hand.refresh_from_db()
    return (hand.cost_loss, hand.cost_at_best, hand.cost_best_front, hand.cost_method,
            hand.cost_opponents)


def test_an_estimate_is_stored_with_its_loss_the_best_front_and_how_it_was_computed(
    hand: Hand,
) -> None:
    assert record(hand) is True
    assert stored(hand) == (Decimal("0.043000000"), False, "Kd Kc", "sampled", 10_000)


def test_the_time_of_the_figure_is_stored(hand: Hand) -> None:
    record(hand)
    hand.refresh_from_db()
    assert hand.cost_at is not None


def test_an_exact_figure_replaces_an_estimate(hand: Hand) -> None:
    record(hand)
    assert record(hand, chosen_expected=0.55, best_expected=0.55, best_front=["Ah", "As"],
                  opponents=EXACT_OPPONENTS, exact=True) is True
    assert stored(hand) == (Decimal(0), True, "As Ah", "exact", EXACT_OPPONENTS)


def test_an_estimate_never_replaces_an_exact_figure(hand: Hand) -> None:
    record(hand, opponents=EXACT_OPPONENTS, exact=True)
    assert record(hand, chosen_expected=0.1, best_expected=0.9, opponents=50_000) is False
    assert stored(hand) == (Decimal("0.043000000"), False, "Kd Kc", "exact", EXACT_OPPONENTS)


def test_a_second_estimate_changes_nothing(hand: Hand) -> None:
    record(hand)
    assert record(hand, chosen_expected=0.2) is False
    assert stored(hand)[0] == Decimal("0.043000000")


def test_a_second_exact_figure_changes_nothing(hand: Hand) -> None:
    record(hand, opponents=EXACT_OPPONENTS, exact=True)
    assert record(hand, chosen_expected=0.3, opponents=EXACT_OPPONENTS, exact=True) is False
    assert stored(hand)[0] == Decimal("0.043000000")


def test_an_estimate_may_count_a_setting_tied_within_its_interval_as_at_the_best(
    hand: Hand,
) -> None:
    record(hand, chosen_expected=0.541, at_best=True)
    assert stored(hand)[:2] == (Decimal("0.002000000"), True)


def test_an_exact_figure_is_at_the_best_only_when_it_gives_up_nothing(hand: Hand) -> None:
    record(hand, chosen_expected=0.541, at_best=True, opponents=EXACT_OPPONENTS, exact=True)
    assert stored(hand)[1] is False


def test_the_smallest_exact_difference_is_not_rounded_away(hand: Hand) -> None:
    half_push = 1 / (2 * EXACT_OPPONENTS)
    record(hand, chosen_expected=0.5, best_expected=0.5 + half_push,
           opponents=EXACT_OPPONENTS, exact=True)
    assert stored(hand)[:2] == (Decimal("0.000000009"), False)


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"chosen_expected": 0.6}, ValueError),  # better than the best
        ({"best_expected": 1.5}, ValueError),
        ({"chosen_expected": -0.1}, ValueError),
        ({"chosen_expected": True}, TypeError),
        ({"opponents": 0}, ValueError),
        ({"exact": True}, ValueError),  # an exact figure is over every opponent
        ({"best_front": ["2s", "3s"]}, ValueError),  # not the hand's cards
        ({"best_front": ["As"]}, ValueError),
        ({"hand_id": 0}, Hand.DoesNotExist),
    ],
)
def test_it_refuses_figures_that_cannot_be_a_cost(
    hand: Hand, changes: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        record(hand, **changes)


def test_it_refuses_a_hand_not_revealed_yet(player: Any, rig: Callable[..., None]) -> None:
    table = services.table_start(user=player, mode="solo")
    rig(deck_with(STRONG, WEAK))
    services.stake_propose(user=player, table_id=table.pk, amount=5)
    deal = services.deal_start(user=player, table_id=table.pk)
    hand = Hand.objects.get(deal=deal, seat_number=0)
    with pytest.raises(ValueError, match="revealed"):
        record(hand, best_front=house_front(STRONG))


def test_the_database_refuses_a_cost_without_its_method(hand: Hand) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.filter(pk=hand.pk).update(cost_loss=Decimal("0.1"))


def test_the_database_refuses_an_exact_cost_at_the_best_that_loses(hand: Hand) -> None:
    record(hand)
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.filter(pk=hand.pk).update(
            cost_method="exact", cost_opponents=EXACT_OPPONENTS, cost_at_best=True
        )


HALF_PUSHES = 2 * EXACT_OPPONENTS


@given(
    chosen=st.integers(0, HALF_PUSHES), gap=st.integers(0, HALF_PUSHES),
)
def test_an_exact_loss_is_never_negative_and_zero_only_when_nothing_is_given_up(
    chosen: int, gap: int
) -> None:
    """Exact expected scores are whole half-pushes over every opponent:
    (2·wins + pushes) / (2 × C(46, 7))."""
    best = min(HALF_PUSHES, chosen + gap)
    loss = cost_loss(chosen_expected=chosen / HALF_PUSHES, best_expected=best / HALF_PUSHES)
    assert (loss >= 0, loss == 0) == (True, best == chosen)


@given(chosen=st.floats(0, 1), best=st.floats(0, 1))
def test_a_loss_is_the_difference_to_nine_places(chosen: float, best: float) -> None:
    loss = cost_loss(chosen_expected=chosen, best_expected=best)
    assert abs(loss - (Decimal(best) - Decimal(chosen))) <= Decimal("0.0000000005")
