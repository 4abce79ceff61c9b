"""Writes of the luck estimates the players' devices compute after a reveal.

The estimate (rules §6) is computed on the device; the server stores it once
per hand and, once that commits, has a worker re-derive it
(``games.luck_verify``): the other seat sees it only once it passed.
"""

from __future__ import annotations

from typing import Any

from .. import engine, enqueue
from ..engine.errors import InvalidLuck, LuckAlreadyRecorded, NoDeal, NotRevealed
from ..engine.luck import LUCK_SAMPLES
from ..models import Hand
from .transition import OpenTable, touch, transition

__all__ = ["LUCK_SAMPLES", "luck_record"]


def luck_record(
    *,
    user: Any,
    table_id: int,
    deal_number: int,
    wins: object,
    pushes: object,
    losses: object,
    opened: OpenTable | None = None,
) -> Hand:
    """Store the luck estimate the player's device computed after the reveal
    (rules §6: 120 samples), once per hand. Once stored, it is checked off
    the room server against the deterministic draw (``games.luck_verify``,
    queued when this commits); the other seat sees it only once it passed."""
    counts = (wins, pushes, losses)
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts):
        raise InvalidLuck()
    if sum(counts) != LUCK_SAMPLES:  # type: ignore[arg-type]
        raise InvalidLuck(
            f"A luck estimate counts exactly {LUCK_SAMPLES} samples "
            f"(wins, pushes and losses add up to {sum(counts)})."  # type: ignore[arg-type]
        )
    with transition(table_id, opened) as held:
        table = held.table
        seat = held.seat_of(user)
        deal, hands = held.latest_deal()
        if deal is not None and deal.number == deal_number:
            hand = next((h for h in hands if h.seat_id == seat.pk), None)
        else:  # an earlier deal's estimate, sent late
            hand = Hand.objects.filter(
                deal__table=table, deal__number=deal_number, seat=seat
            ).first()
        if hand is None:
            raise NoDeal("There is no such deal at this table.")
        if not hand.result:
            raise NotRevealed()
        if hand.luck_wins is not None:
            raise LuckAlreadyRecorded()
        estimate = engine.luck_from_counts(wins=wins, pushes=pushes, losses=losses)  # type: ignore[arg-type]
        hand.luck_wins, hand.luck_pushes, hand.luck_losses = (
            estimate.wins,
            estimate.pushes,
            estimate.losses,
        )
        hand.luck, hand.luck_low, hand.luck_high = (
            float(estimate.luck),
            float(estimate.low),
            float(estimate.high),
        )
        hand.luck_label = estimate.label()
        seat.session_lucks += 1
        seat.session_luck_points += 2 * estimate.wins + estimate.pushes
        held.save(seat, ["session_lucks", "session_luck_points"])
        held.save(
            hand,
            [
                "luck_wins",
                "luck_pushes",
                "luck_losses",
                "luck",
                "luck_low",
                "luck_high",
                "luck_label",
            ],
        )
        touch(held)
        enqueue.luck_verify_later(hand_id=hand.pk)
    return hand
