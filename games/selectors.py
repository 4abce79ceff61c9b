"""Reads for pages and the table socket.

``table_state`` is the one place a seat's view of a table is built: the deal
part comes from ``engine.seat_view`` (which leaves the other side's cards and
setting, the deck and the secret out until the reveal), and everything added
around it here is either public (stacks, stakes) or only added after the
reveal (results). Pages and every socket frame use it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import QuerySet

from . import engine
from .exceptions import NotSeated, TableNotFound
from .models import Deal, Hand, Seat, Table


def seat_for(*, user: Any, table_id: int) -> Seat:
    """The user's seat at a table, or a domain error (the same for a table that
    does not exist and one they are not at, so ids reveal nothing)."""
    if not getattr(user, "is_authenticated", False):
        raise NotSeated()
    seat = (
        Seat.objects.filter(table_id=table_id, user_id=user.pk).select_related("table").first()
    )
    if seat is None:
        raise TableNotFound()
    return seat


def tables_open_for(*, user: Any) -> QuerySet[Table]:
    """Tables the user is seated at that can still deal, most recent first."""
    return (
        Table.objects.filter(seats__user=user)
        .exclude(status=Table.Status.FINISHED)
        .order_by("-updated_at")
    )


def _money(value: Decimal) -> str:
    return f"{value:.2f}"


def _seat_summary(seat: Seat) -> dict[str, Any]:
    return {
        "seat": seat.number,
        "name": seat.name,
        "dealer": seat.is_dealer,
        "stack": seat.stack,
        "with_5": _money(seat.balance_with_commission),
    }


def _snapshot(deal: Deal, hands: list[Hand]) -> engine.DealSnapshot:
    seats = tuple(
        engine.SeatState(cards=h.card_list, front=h.front_cards, back=h.back_cards) for h in hands
    )
    return engine.DealSnapshot(
        seats=(seats[0], seats[1]),
        revealed=deal.revealed,
        commitment=deal.commitment,
        deck_order=deal.deck,
        secret=deal.secret,
    )


def _outcome(hand: Hand) -> dict[str, Any]:
    """A side's settlement. Only ever called for a revealed deal."""
    front, back = hand.front_cards or (), hand.back_cards or ()
    return {
        "front_name": engine.front_name(front),
        "back_name": engine.back_name(back),
        "front_result": hand.front_result,
        "back_result": hand.back_result,
        "result": hand.result,
        "foul": bool(hand.foul),
        "score": float(hand.score) if hand.score is not None else None,
        "house_way": {
            "front": hand.house_front.split(),
            "back": hand.house_back.split(),
            "row": hand.house_row,
        },
        "skill": float(hand.skill) if hand.skill is not None else None,
        "luck": hand.luck_label or None,
    }


def deal_view(*, deal: Deal, viewer: int) -> dict[str, Any]:
    """One seat's view of one deal."""
    hands = list(Hand.objects.filter(deal=deal).order_by("seat_number"))
    view: dict[str, Any] = {"number": deal.number, "stake": deal.stake}
    view.update(engine.seat_view(_snapshot(deal, hands), viewer))
    mine = hands[viewer]
    view["you"]["foul_confirmed"] = mine.foul_confirmed
    if mine.locked:
        view["you"]["front_name"] = engine.front_name(mine.front_cards or ())
        view["you"]["back_name"] = engine.back_name(mine.back_cards or ())
    visible = list(mine.card_list)
    if deal.revealed:
        view["results"] = {"you": _outcome(mine), "other": _outcome(hands[1 - viewer])}
        visible = list(deal.deck)
    # Card names for people, only for cards this seat may see.
    view["names"] = {code: engine.card_name(code) for code in visible}
    return view


def table_state(*, table_id: int, seat_number: int) -> dict[str, Any]:
    """Everything seat ``seat_number`` may see of a table now (resume included)."""
    try:
        table = Table.objects.get(pk=table_id)
    except Table.DoesNotExist:
        raise TableNotFound() from None
    seats = list(Seat.objects.filter(table=table).order_by("number").select_related("user"))
    you, other = seats[seat_number], seats[1 - seat_number]
    proposal = None
    if table.stake_proposed is not None:
        proposal = {
            "amount": table.stake_proposed,
            "by": "you" if table.stake_proposed_by == seat_number else "other",
        }
    deal = Deal.objects.filter(table=table).order_by("-number").first()
    return {
        "table": {
            "id": table.pk,
            "mode": table.mode,
            "status": table.status,
            "stake": table.stake,
            "proposal": proposal,
            "last_stake": table.last_stake,
            "max_stake": min(you.stack, other.stack),
            "deals": table.deals_count,
        },
        "seats": {"you": _seat_summary(you), "other": _seat_summary(other)},
        "deal": None if deal is None else deal_view(deal=deal, viewer=seat_number),
    }
