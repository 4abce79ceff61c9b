"""Writes of a revealed hand's decision cost (the project's own measure, beside
rules §7's decision skill): the expected score its locked setting gave up
against the best of the 21 settings.

Every player's revealed hand is costed exactly, over all C(46, 7) opponents,
in the background (``games.decision_cost_hands`` on the costs queue, queued
after each reveal; ``games.decision_costs_sweep`` for what was missed):
``hand_cost_exact``. The exact analysis takes about 0.05 s of CPU
(engine.exact, docs/benchmarks.md), less than the 10,000-opponent estimate
that came first, so a hand is no longer estimated on its way to the exact
figure. Estimates recorded before are shown as they were, labelled, until the
sweep makes them exact. An exact figure replaces an estimate; nothing
replaces an exact one.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import transaction
from django.db.models import Case, Q, When
from django.utils import timezone

from .. import enqueue
from ..engine import exact
from ..engine.cards import parse_cards
from ..engine.cost import EXACT_OPPONENTS, LOSS_PLACES
from ..models import Hand
from . import analysis

__all__ = ["LOSS_PLACES", "cost_loss", "hand_cost_exact", "hand_cost_record", "hand_costs_sweep",
           "hand_house_loss_record"]


def cost_loss(*, chosen_expected: float, best_expected: float) -> Decimal:
    """The loss as stored: ``best_expected − chosen_expected`` from the two
    floats' exact values, rounded half up to nine places.

    >>> cost_loss(chosen_expected=0.5, best_expected=0.543)
    Decimal('0.043000000')
    """
    return (Decimal(best_expected) - Decimal(chosen_expected)).quantize(
        LOSS_PLACES, rounding=ROUND_HALF_UP
    )


def hand_cost_record(
    *,
    hand_id: int,
    chosen_expected: float,
    best_expected: float,
    best_front: list[str] | tuple[str, ...],
    opponents: int,
    exact: bool,
    at_best: bool | None = None,
    house_expected: float | None = None,
) -> bool:
    """Store what a revealed hand's locked setting gave up against the best
    setting: ``best_expected − chosen_expected`` over ``opponents`` opponents
    (``exact``: every one of the C(46, 7)), and the best setting's front.

    ``at_best`` says whether the locked setting counts as set at the best; by
    default (and always for an exact figure) when it gives up nothing. An
    estimate may pass the explorer's tie rule instead (within its 95%
    interval of the best).

    ``house_expected``, the house way's expected score over the same
    opponents, is stored with an exact figure as the house way's own loss
    (``cost_house_loss``; ``hand_house_loss_record`` for a hand costed
    exactly before it was kept).

    In one transaction holding the hand's row: an exact figure replaces an
    estimate, an estimate is written only where there is none yet, and an
    exact one is never replaced (a second run is a no-op). Returns whether
    anything was written. Once it commits, the player's skill report catches
    up (``games.report_refresh``). The cost is no part of what a seat sees at
    the table, so the table's own lock and version are left alone.
    """
    values = (chosen_expected, best_expected)
    if any(isinstance(v, bool) or not isinstance(v, int | float) for v in values):
        raise TypeError("Expected scores are numbers from 0 to 1.")
    if not 0 <= chosen_expected <= best_expected <= 1:
        raise ValueError(
            "Expected scores run from 0 to 1, and the best is at least the chosen setting's."
        )
    if isinstance(opponents, bool) or not isinstance(opponents, int) or opponents < 1:
        raise ValueError("A cost is computed over at least one opponent.")
    if exact and opponents != EXACT_OPPONENTS:
        raise ValueError(f"An exact cost is over all {EXACT_OPPONENTS:,} opponents.")
    loss = cost_loss(chosen_expected=chosen_expected, best_expected=best_expected)
    house_loss = None
    if exact and house_expected is not None:
        if not 0 <= house_expected <= best_expected:
            raise ValueError("The house way's expected score runs from 0 to the best's.")
        house_loss = cost_loss(chosen_expected=house_expected, best_expected=best_expected)
    if exact or at_best is None:
        at_best = loss == 0
    with transaction.atomic():
        hand = (
            Hand.objects.select_for_update(of=("self",))
            .select_related("seat")
            .filter(pk=hand_id)
            .first()
        )
        if hand is None:
            raise Hand.DoesNotExist(f"There is no hand {hand_id}.")
        if not hand.result:
            raise ValueError("A decision cost is recorded only for a revealed hand.")
        front = parse_cards(best_front, count=2)  # a CardError is a ValueError
        if not set(front) <= set(hand.card_list):
            raise ValueError("The best setting's front must be two of the hand's cards.")
        if hand.cost_method == "exact" or (hand.cost_method and not exact):
            return False
        Hand.objects.filter(pk=hand.pk).update(
            cost_house_loss=house_loss,
            cost_loss=loss,
            cost_at_best=at_best,
            cost_best_front=" ".join(front),
            cost_method="exact" if exact else "sampled",
            cost_opponents=opponents,
            cost_at=timezone.now(),
        )
        if hand.seat.user_id is not None:
            enqueue.report_refresh_later(user_ids=[hand.seat.user_id])
    return True


def hand_house_loss_record(*, hand_id: int, house_expected: float, best_expected: float
                           ) -> bool:
    """Store the house way's own loss (``best_expected − house_expected``,
    exact) on a hand costed exactly before it was kept. One conditional
    update: only an exact hand without it is written, so a second run is a
    no-op. Returns whether it was written. Nothing a report sums changes."""
    if not 0 <= house_expected <= best_expected <= 1:
        raise ValueError("The house way's expected score runs from 0 to the best's.")
    loss = cost_loss(chosen_expected=house_expected, best_expected=best_expected)
    return bool(
        Hand.objects.filter(pk=hand_id, cost_method="exact", cost_house_loss__isnull=True)
        .update(cost_house_loss=loss)
    )


def _costable(*, house_loss_missing: bool = False) -> Any:
    """Players' revealed hands whose cost is not exact yet (the dealer's are
    never costed: nobody reviews them); with ``house_loss_missing``, also the
    exact ones costed before the house way's own loss was kept."""
    wanted = ~Q(cost_method="exact")
    if house_loss_missing:
        wanted |= Q(cost_method="exact") & Q(cost_house_loss__isnull=True) & ~Q(house_front="")
    return (
        Hand.objects.filter(seat__user__isnull=False)
        .exclude(result="")
        .filter(wanted)
        .select_related("deal__table")
    )


# The sweep's order: hands with no figure, then estimates, then exact hands
# missing only the house way's loss.
_SWEEP_ORDER = Case(When(cost_method="", then=0), When(cost_method="sampled", then=1), default=2)


def _record_exact(hand: Hand) -> bool:
    """Cost the hand exactly: from its suit class's stored analysis if the
    explorer asked for it, else analysed here (on the costs worker's own
    CPUs, docker-compose.yml) and not stored, one row a hand would only grow
    the cache. The work runs before any lock is
    taken: a revealed setting never changes."""
    mode = hand.deal.table.mode
    found = analysis.exact_analysis_cached(cards=hand.cards, mode=mode)
    if found is None:
        found = exact(hand.cards, mode=mode, side="player")
    front = set(hand.front.split())
    chosen = next(row for row in found.settings if set(row.front) == front)
    house_front = set(hand.house_front.split())
    house = next((row for row in found.settings if set(row.front) == house_front), None)
    if hand.cost_method == "exact":  # costed before the house way's loss was kept
        return house is not None and hand_house_loss_record(
            hand_id=hand.pk, house_expected=house.expected, best_expected=found.best.expected)
    return hand_cost_record(
        hand_id=hand.pk, chosen_expected=chosen.expected, best_expected=found.best.expected,
        best_front=list(found.best.front), opponents=found.opponents, exact=True,
        house_expected=None if house is None else house.expected,
    )


def hand_cost_exact(*, hand_id: int) -> bool:
    """Record the exact cost of one player's revealed hand; False when there
    is nothing to do (no such revealed hand of a player, or its cost is exact
    already: a second run is a no-op; the sweep fills in the house way's loss
    of a hand costed before it was kept)."""
    hand = _costable().filter(pk=hand_id).first()
    return hand is not None and _record_exact(hand)


def hand_costs_sweep(*, size: int) -> int:
    """Cost exactly up to ``size`` players' revealed hands that have no exact
    cost: those with none first (a broker that was down, a lost task), then
    estimates recorded before, then exact hands costed before the house way's
    own loss was kept, oldest first. Returns how many were written.

    A full batch, all written, means more may wait: another run is queued
    behind the work already queued (``enqueue.decision_costs_sweep_later``), so
    the sweep catches up after an outage at the pace the costs' workers have
    room for, not ``size`` hands a beat. A run that found some of its hands
    costed meanwhile (another run at the same hands) ends the chain instead,
    so two runs never go on doing each other's work."""
    hands = list(
        _costable(house_loss_missing=True)
        .order_by(_SWEEP_ORDER, "deal__revealed_at", "pk")[:size]
    )
    written = sum(_record_exact(hand) for hand in hands)
    if hands and written == len(hands) == size:
        enqueue.decision_costs_sweep_later()
    return written
