"""Decision skill (rules §7)."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import CardError, parse_indices
from .hands import back_value_of, front_value_of
from .house_way import house_way_setting_of
from .settle import check_mode, outcome


def skill(
    *,
    mode: str,
    cards: str | Iterable[str],
    front: str | Iterable[str],
    back: str | Iterable[str],
    other_front: str | Iterable[str],
    other_back: str | Iterable[str],
    side: str = "player",
) -> float:
    """Score of the locked setting minus the house way's, against the same opponent.

    In solo the side passed is the player unless ``side="dealer"``.

    >>> skill(mode="solo", cards="As Ah 8d 8c Ks 7h 4d", front="As Ah",
    ...       back="Ks 8d 8c 7h 4d", other_front="Qs Jd", other_back="Ts 9s 5h 4c 2d")
    -0.5
    """
    solo = check_mode(mode) == "solo"
    hand = parse_indices(cards, count=7)
    f, b = parse_indices(front, count=2), parse_indices(back, count=5)
    if tuple(sorted(f + b)) != hand:
        raise CardError("The setting must use exactly the seven cards of the hand.")
    hw_front, hw_back = house_way_setting_of(hand)
    of = front_value_of(parse_indices(other_front, count=2))
    ob = back_value_of(parse_indices(other_back, count=5))
    actual = _score(solo, side, front_value_of(f), back_value_of(b), of, ob)
    baseline = _score(solo, side, front_value_of(hw_front), back_value_of(hw_back), of, ob)
    return (actual - baseline) / 2


def _score(solo: bool, side: str, f: int, b: int, of: int, ob: int) -> int:
    """Score in halves (2 win, 1 push, 0 loss) for the side."""
    if solo and side == "dealer":
        return 2 - outcome(True, of, ob, f, b)
    if side != "player":
        raise ValueError(f"“{side}” is not a side: use player or dealer.")
    return outcome(solo, f, b, of, ob)
