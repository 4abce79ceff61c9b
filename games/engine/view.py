"""What a viewer may see of a deal: every frame the server sends is built here.

Hidden information (the other seat's cards and setting, the deck order and
the secret) is left out of the dict entirely before the reveal, not blanked,
so no serializer can leak it by accident. A seat's own part also carries the
guide of its own seven cards (``guide.guide_view``), never the other seat's.
"""

from __future__ import annotations

from dataclasses import dataclass

from .guide import guide_view


@dataclass(frozen=True)
class SeatState:
    """One seat's seven cards and its locked setting, if any."""

    cards: tuple[str, ...]
    front: tuple[str, ...] | None = None
    back: tuple[str, ...] | None = None

    @property
    def locked(self) -> bool:
        """Whether the seat has locked a setting."""
        return self.front is not None and self.back is not None


@dataclass(frozen=True)
class DealSnapshot:
    """A deal as the server holds it; ``deck_order`` and ``secret`` are server-only."""

    seats: tuple[SeatState, SeatState]
    revealed: bool
    commitment: str
    deck_order: tuple[str, ...] | None = None
    secret: str | None = None


def _opt(cards: tuple[str, ...] | None) -> list[str] | None:
    return None if cards is None else list(cards)


def _own(seat: SeatState) -> dict[str, object]:
    # The guide (names, fouls, the house way, coaching) of the seat's own seven
    # cards: all 21 settings while it chooses, its locked one after.
    return {"cards": list(seat.cards), "locked": seat.locked,
            "front": _opt(seat.front), "back": _opt(seat.back),
            "guide": guide_view(seat.cards, seat.front if seat.locked else None)}


def _other(seat: SeatState, revealed: bool) -> dict[str, object]:
    out: dict[str, object] = {"locked": seat.locked}
    if revealed:
        out.update(cards=list(seat.cards), front=_opt(seat.front), back=_opt(seat.back))
    return out


def seat_view(snapshot: DealSnapshot, viewer: int | None) -> dict[str, object]:
    """JSON-ready data for seat ``viewer`` (0 or 1), or a spectator (None).

    >>> mine, theirs = "As Ah 8d 8c Ks 7h 4d".split(), "Kd Qd Jd 9c 5s 3h 2c".split()
    >>> snap = DealSnapshot((SeatState(tuple(mine)), SeatState(tuple(theirs))), False, "c0ffee")
    >>> view = seat_view(snap, 0)
    >>> view["you"]["cards"][0], view["other"], "deck" in view
    ('As', {'locked': False}, False)

    Only the seat's own part has a guide: its own seven cards, set 21 ways.

    >>> len(view["you"]["guide"]["settings"]), view["you"]["guide"]["house_way"]["row"]
    (21, 'two-pair-split')
    >>> seat_view(snap, None)
    {'seats': [{'locked': False}, {'locked': False}], 'revealed': False, 'commitment': 'c0ffee'}
    """
    revealed = snapshot.revealed
    out: dict[str, object]
    if viewer is None:
        out = {"seats": [_other(seat, revealed) for seat in snapshot.seats]}
    elif viewer in (0, 1):
        out = {"you": _own(snapshot.seats[viewer]),
               "other": _other(snapshot.seats[1 - viewer], revealed)}
    else:
        raise ValueError("A viewer is seat 0, seat 1 or None for a spectator.")
    out["revealed"] = revealed
    out["commitment"] = snapshot.commitment
    if revealed:
        out["deck"] = None if snapshot.deck_order is None else list(snapshot.deck_order)
        out["secret"] = snapshot.secret
    return out
