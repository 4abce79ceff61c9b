"""Reads for a player's own history: revealed deals, their records and sessions.

Every function here is keyword-only and starts from the signed-in user, so it
can only ever return that user's own hands. A deal appears only once it is
revealed: until then the other side's cards and setting stay on the server,
for the API, the pages and the CSV export alike.

A record is keyed by the deal's id, which both friends at a table share; each
sees the deal from their own side. The numbers come from what the reveal
stored (``games.services``); the skill spelled out is recomputed with
``engine.settle`` and ``engine.skill`` on the stored settings, never with a
second copy of the rules. Money is ``Decimal``; skill sums and means are
``Decimal``; luck values are the stored floats, and luck averages are the
engine's exact ``luck_average`` of the stored counts (rules §6 and §8).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import Count, F, Max, Min, OuterRef, Q, QuerySet, Subquery, Sum, Window
from django.db.models.functions import RowNumber

from .. import engine
from ..models import Deal, Hand, LedgerEntry, Seat, Table

MEAN_PLACES = Decimal("0.0001")
LUCK_PLACES = 3  # a session's luck average, to three decimals
CENTS = Decimal("0.01")
# A mean decision cost, to six places; the share set at the best, to four.
LOSS_MEAN_PLACES = Decimal("0.000001")
SHARE_PLACES = Decimal("0.0001")
# The worst decisions listed for review: this many a house-way row at most,
# in this many rows at most (the rows whose worst decision lost most).
WORST_PER_ROW = 3
WORST_ROWS = 8


@dataclass(frozen=True)
class HandFilters:
    """The history's filters; every field is optional."""

    table: int | None = None
    mode: str | None = None
    result: str | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None


# --- querysets --------------------------------------------------------------


def revealed_hands(*, user: Any, filters: HandFilters | None = None) -> QuerySet[Hand]:
    """The user's own hands of revealed deals, newest first, filtered."""
    if not getattr(user, "is_authenticated", False):
        return Hand.objects.none()
    hands = Hand.objects.filter(
        seat__user_id=user.pk, deal__status=Deal.Status.REVEALED
    ).select_related("deal", "deal__table", "seat__user")
    return hands_filtered(hands, filters or HandFilters()).order_by(
        "-deal__revealed_at", "-deal_id"
    )


def hands_filtered(hands: QuerySet[Hand], f: HandFilters) -> QuerySet[Hand]:
    """The hands that match the filters (``filters.HistoryFilter`` validates them)."""
    if f.table is not None:
        hands = hands.filter(deal__table_id=f.table)
    if f.mode:
        hands = hands.filter(deal__table__mode=f.mode)
    if f.result:
        hands = hands.filter(result=f.result)
    if f.date_from is not None:
        hands = hands.filter(deal__revealed_at__date__gte=f.date_from)
    if f.date_to is not None:
        hands = hands.filter(deal__revealed_at__date__lte=f.date_to)
    return hands


def revealed_hand(*, user: Any, deal_id: int) -> Hand | None:
    """The user's own hand of one revealed deal, or None (also for a deal that
    is not revealed yet, or that the user did not play: ids reveal nothing)."""
    return revealed_hands(user=user).filter(deal_id=deal_id).first()


# --- one record -------------------------------------------------------------


def card_face(code: str) -> dict[str, Any]:
    """What a card looks like on the history: rank, suit symbol, colour, name."""
    if code == "JK":
        return {"code": code, "rank": "Jkr", "suit": "★", "red": False, "joker": True,
                "name": engine.card_name(code)}
    rank, suit = code[0], code[1]
    return {"code": code, "rank": "10" if rank == "T" else rank,
            "suit": engine.SUIT_SYMBOLS[suit], "red": suit in engine.RED_SUITS,
            "joker": False, "name": engine.card_name(code)}


def _cards(text: str) -> list[str]:
    return text.split() if text else []


def _luck(hand: Hand) -> dict[str, Any]:
    if hand.luck_wins is None:
        return {"status": "pending", "value": None, "low": None, "high": None, "label": "pending",
                "wins": None, "pushes": None, "losses": None}
    return {
        "status": "completed",
        "value": hand.luck,
        "low": hand.luck_low,
        "high": hand.luck_high,
        "label": hand.luck_label,
        "wins": hand.luck_wins,
        "pushes": hand.luck_pushes,
        "losses": hand.luck_losses,
    }


def _cost(hand: Hand) -> dict[str, Any]:
    """The decision cost of a hand: "pending" until the background estimate
    is in, then "sampled" (over ``opponents``) or "exact"."""
    if not hand.cost_method:
        return {"status": "pending", "loss": None, "at_best": None, "best_front": [],
                "best_front_name": "", "opponents": None, "computed_at": None}
    best = _cards(hand.cost_best_front)
    return {
        "status": hand.cost_method,
        "loss": hand.cost_loss,
        "at_best": hand.cost_at_best,
        "best_front": best,
        "best_front_name": engine.front_name(best),
        "opponents": hand.cost_opponents,
        "computed_at": hand.cost_at,
    }


def _side(hand: Hand) -> dict[str, Any]:
    front, back = _cards(hand.front), _cards(hand.back)
    return {
        "name": hand.seat.name,
        "seat": hand.seat_number,
        "cards": _cards(hand.cards),
        "front": front,
        "back": back,
        "front_name": engine.front_name(front),
        "back_name": engine.back_name(back),
        "foul": bool(hand.foul),
    }


def _records(hands: list[Hand]) -> Iterator[dict[str, Any]]:
    """Records for a page of hands, with the other sides and the ledger
    entries fetched in two queries."""
    mine = {h.deal_id: h.seat_id for h in hands}
    deal_ids = list(mine)
    others = {
        h.deal_id: h
        for h in Hand.objects.filter(deal_id__in=deal_ids).select_related("seat__user")
        if h.seat_id != mine[h.deal_id]
    }
    entries: dict[tuple[int, int, str], LedgerEntry] = {
        (e.deal_id, e.seat_id, e.ledger): e
        for e in LedgerEntry.objects.filter(deal_id__in=deal_ids)
    }
    for hand in hands:
        yield _record(hand, others[hand.deal_id], entries)


def _record(
    hand: Hand, other: Hand, entries: dict[tuple[int, int, str], LedgerEntry]
) -> dict[str, Any]:
    deal, table = hand.deal, hand.deal.table
    actual = entries[(deal.pk, hand.seat_id, LedgerEntry.Ledger.ACTUAL)]
    with_5 = entries[(deal.pk, hand.seat_id, LedgerEntry.Ledger.WITH_COMMISSION)]
    house_front, house_back = _cards(hand.house_front), _cards(hand.house_back)
    return {
        "id": deal.pk,
        "table": table.pk,
        "mode": table.mode,
        "deal_number": deal.number,
        "dealt_at": deal.dealt_at,
        "revealed_at": deal.revealed_at,
        "stake": deal.stake,
        "you": _side(hand),
        "other": _side(other),
        "house_way": {
            "front": house_front,
            "back": house_back,
            "front_name": engine.front_name(house_front),
            "back_name": engine.back_name(house_back),
            "row": hand.house_row,
            "followed": not engine.left_house_way(
                hand.front, hand.back, hand.house_front, hand.house_back
            ),
        },
        "parts": {"front": hand.front_result, "back": hand.back_result},
        "result": hand.result,
        "score": hand.score,
        "ledgers": {
            "actual": {"delta": actual.amount, "balance": actual.balance},
            "with_5": {"delta": with_5.amount, "balance": with_5.balance},
        },
        "luck": _luck(hand),
        "skill": hand.skill,
        "cost": _cost(hand),
    }


def hand_records(hands: Iterable[Hand]) -> list[dict[str, Any]]:
    """The history records of these hands (one page), in the same order."""
    return list(_records(list(hands)))


def _settled(s: engine.Settlement) -> dict[str, Any]:
    """A settlement as the replay shows it. ``by_foul``: a foul settled the
    whole bet (rules §4), so its parts were not played and the page calls
    neither a win nor a loss."""
    return {"result": s.result, "front": s.front, "back": s.back, "foul": s.foul,
            "by_foul": s.foul or s.other_foul, "score": Decimal(str(s.score))}


def skill_detail(*, record: dict[str, Any]) -> dict[str, Any]:
    """The skill spelled out (rules §7): the locked setting's score and the
    house-way setting's score against the same opponent setting, and the
    difference, all from the engine on the stored settings."""
    mode, you, other, way = record["mode"], record["you"], record["other"], record["house_way"]
    actual = engine.settle(
        mode=mode, front=you["front"], back=you["back"],
        other_front=other["front"], other_back=other["back"],
    )
    house = engine.settle(
        mode=mode, front=way["front"], back=way["back"],
        other_front=other["front"], other_back=other["back"],
    )
    difference = engine.skill(
        mode=mode, cards=you["cards"], front=you["front"], back=you["back"],
        other_front=other["front"], other_back=other["back"],
    )
    return {
        "actual": _settled(actual),
        "house_way": _settled(house),
        "difference": Decimal(str(difference)),
    }


def hand_detail(*, user: Any, deal_id: int) -> dict[str, Any] | None:
    """One revealed deal in full, from the user's side, or None."""
    hand = revealed_hand(user=user, deal_id=deal_id)
    if hand is None:
        return None
    record = hand_records([hand])[0]
    record["skill_detail"] = skill_detail(record=record)
    return record


# --- aggregates -------------------------------------------------------------


def mean(total: Decimal, count: int) -> Decimal | None:
    """``total`` per deal to four places (None without deals)."""
    if not count:
        return None
    return (Decimal(total) / count).quantize(MEAN_PLACES, rounding=ROUND_HALF_UP)


def share(part: int, count: int) -> Decimal | None:
    """``part`` of ``count`` as a fraction to four places (None of nothing)."""
    if not count:
        return None
    return (Decimal(part) / count).quantize(SHARE_PLACES, rounding=ROUND_HALF_UP)


def cost_summary(*, deals: int, costed: int, at_best: int, exact: int,
                 loss_sum: Decimal) -> dict[str, Any]:
    """Decision cost over a set of revealed deals: the mean loss per hand and
    the share set at the best, over the hands with a cost (the others are
    pending, as luck estimates are)."""
    loss_mean = None if not costed else (Decimal(loss_sum) / costed).quantize(
        LOSS_MEAN_PLACES, rounding=ROUND_HALF_UP
    )
    return {
        "hands": costed,
        "pending": deals - costed,
        "exact": exact,
        "at_best": at_best,
        "at_best_share": share(at_best, costed),
        "loss_sum": Decimal(loss_sum).quantize(LOSS_MEAN_PLACES, rounding=ROUND_HALF_UP),
        "loss_mean": loss_mean,
    }


def worst_decisions(hands: QuerySet[Hand]) -> list[dict[str, Any]]:
    """The decisions that gave up most, to review: of these revealed hands,
    those not set at the best, at most ``WORST_PER_ROW`` a house-way row,
    worst first; the rows ordered by their worst decision (at most
    ``WORST_ROWS``), each decision with its replay's deal id."""
    ranked = (
        hands.filter(cost_at_best=False, cost_loss__gt=0)
        .annotate(rank=Window(RowNumber(), partition_by=[F("house_row")],
                              order_by=[F("cost_loss").desc(), F("deal_id").desc()]))
        .filter(rank__lte=WORST_PER_ROW)
        .select_related("deal", "deal__table")
        .order_by("-cost_loss", "-deal_id")
    )
    rows: dict[str, list[dict[str, Any]]] = {}
    for hand in ranked:
        if hand.house_row not in rows and len(rows) >= WORST_ROWS:
            continue
        front, back = _cards(hand.front), _cards(hand.back)
        rows.setdefault(hand.house_row, []).append({
            "id": hand.deal_id,
            "table": hand.deal.table_id,
            "mode": hand.deal.table.mode,
            "deal_number": hand.deal.number,
            "revealed_at": hand.deal.revealed_at,
            "front": front,
            "back": back,
            "foul": bool(hand.foul),
            "cost": _cost(hand),
        })
    return [{"row": row, "decisions": decisions} for row, decisions in rows.items()]


REVEALED = Q(hands__deal__status=Deal.Status.REVEALED)
COMPLETED = Q(hands__luck_wins__isnull=False)
COSTED = REVEALED & ~Q(hands__cost_method="")


def sessions(*, user: Any) -> QuerySet[Seat]:
    """The user's seats at tables that have dealt, newest first, with their
    session figures annotated (rules §8)."""
    if not getattr(user, "is_authenticated", False):
        return Seat.objects.none()
    other = Seat.objects.filter(table_id=OuterRef("table_id")).exclude(pk=OuterRef("pk"))
    seats = Seat.objects.filter(user_id=user.pk, table__deals_count__gt=0)
    return (
        seats.select_related("table")
        .annotate(
            deals_played=Count("hands", filter=REVEALED),
            skill_total=Sum("hands__skill", filter=REVEALED),
            luck_completed=Count("hands", filter=COMPLETED),
            luck_points=Sum(2 * F("hands__luck_wins") + F("hands__luck_pushes"), filter=COMPLETED),
            cost_hands=Count("hands", filter=COSTED),
            cost_at_best=Count("hands", filter=COSTED & Q(hands__cost_at_best=True)),
            cost_exact=Count("hands", filter=COSTED & Q(hands__cost_method="exact")),
            cost_loss_sum=Sum("hands__cost_loss", filter=COSTED),
            started_at=Min("hands__deal__dealt_at"),
            ended_at=Max("hands__deal__revealed_at"),
            other_stack=Subquery(other.values("stack")[:1]),
            other_with_5=Subquery(other.values("balance_with_commission")[:1]),
            other_user=Subquery(other.values("user__username")[:1]),
            other_dealer=Subquery(other.values("is_dealer")[:1]),
        )
        .order_by("-table__updated_at", "-table_id")
    )


def session_record(seat: Seat) -> dict[str, Any]:
    """One annotated seat from ``sessions`` as a session summary."""
    table: Table = seat.table
    skill_total = Decimal(seat.skill_total or 0).quantize(CENTS)  # type: ignore[attr-defined]
    deals: int = seat.deals_played  # type: ignore[attr-defined]
    completed: int = seat.luck_completed  # type: ignore[attr-defined]
    points: int = seat.luck_points or 0  # type: ignore[attr-defined]
    average = engine.luck_average(points=points, estimates=completed)
    opponent = "Dealer" if seat.other_dealer else (seat.other_user or "Empty seat")  # type: ignore[attr-defined]
    return {
        "id": table.pk,
        "mode": table.mode,
        "status": table.status,
        "opponent": opponent,
        "deals_played": deals,
        "luck_average": None if average is None else engine.half_up(average, LUCK_PLACES),
        # Shown with one decimal, rounded once from the exact mean (rules §6):
        # rounding luck_average again would turn 5.0495 into 5.050 into 5.1.
        "luck_shown": None if average is None else str(engine.half_up(average)),
        "luck_completed": completed,
        "luck_pending": deals - completed,
        "skill_total": skill_total,
        "skill_mean": mean(skill_total, deals),
        "cost": cost_summary(
            deals=deals,
            costed=seat.cost_hands,  # type: ignore[attr-defined]
            at_best=seat.cost_at_best,  # type: ignore[attr-defined]
            exact=seat.cost_exact,  # type: ignore[attr-defined]
            loss_sum=seat.cost_loss_sum or Decimal(0),  # type: ignore[attr-defined]
        ),
        "stacks": {"you": seat.stack, "other": seat.other_stack},  # type: ignore[attr-defined]
        "with_5": {
            "you": seat.balance_with_commission,
            "other": Decimal(seat.other_with_5).quantize(CENTS),  # type: ignore[attr-defined]
        },
        "starting_stack": table.starting_stack,
        "started_at": seat.started_at,  # type: ignore[attr-defined]
        "ended_at": seat.ended_at,  # type: ignore[attr-defined]
    }


def session_detail(*, user: Any, table_id: int) -> dict[str, Any] | None:
    """One session with its deal-by-deal series (both ledgers, luck, skill,
    decision cost) and its worst decisions to review."""
    seat = sessions(user=user).filter(table_id=table_id).first()
    if seat is None:
        return None
    record = session_record(seat)
    rows = (
        Hand.objects.filter(seat=seat, deal__status=Deal.Status.REVEALED)
        .select_related("deal")
        .order_by("deal__number")
    )
    entries = {
        (e.deal_id, e.ledger): e.balance for e in LedgerEntry.objects.filter(seat=seat)
    }
    record["series"] = [
        {
            "id": h.deal_id,
            "deal_number": h.deal.number,
            "stake": h.deal.stake,
            "result": h.result,
            "score": h.score,
            "skill": h.skill,
            "luck": h.luck,
            "loss": h.cost_loss,
            "actual_balance": entries[(h.deal_id, LedgerEntry.Ledger.ACTUAL)],
            "with_5_balance": entries[(h.deal_id, LedgerEntry.Ledger.WITH_COMMISSION)],
        }
        for h in rows
    ]
    record["worst"] = worst_decisions(rows)
    return record
