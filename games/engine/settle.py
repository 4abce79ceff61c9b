"""Settling a deal, scores and the two ledgers (rules §4 and §5)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .cards import parse_indices
from .choices import Mode, Part, Result
from .hands import back_value_of, front_value_of, is_foul_values

# A result's score: exact in binary, so ``Decimal(SCORES[r])`` is exact too.
SCORES: dict[str, float] = {"win": 1.0, "push": 0.5, "loss": 0.0}
_HUNDREDTHS = Decimal("0.01")


@dataclass(frozen=True)
class Settlement:
    """The outcome of one deal from the first side's point of view.

    ``front`` and ``back`` are the raw part comparisons (``copy`` = equal),
    before any foul or copy rule; ``result`` and ``score`` apply the rules.
    """

    result: Result
    front: Part
    back: Part
    foul: bool
    other_foul: bool
    score: float

    def mirror(self) -> Settlement:
        """The same deal from the other side's point of view.

        >>> s = settle(mode="friend", front="As 2d", back="9s 9h 5d 4c 2c",
        ...            other_front="Kh Qc", other_back="8s 8h 5c 4d 2h")
        >>> m = s.mirror()
        >>> m.result, m.front, m.back, m.score, m.mirror() == s
        ('loss', 'loss', 'loss', 0.0, True)
        """
        result = mirror_result(self.result)
        return Settlement(
            result=result,
            front=mirror_part(self.front),
            back=mirror_part(self.back),
            foul=self.other_foul,
            other_foul=self.foul,
            score=SCORES[result],
        )


def check_mode(mode: str) -> Mode:
    """Validate a table mode.

    >>> check_mode("solo")
    'solo'
    """
    if mode == "solo":
        return "solo"
    if mode == "friend":
        return "friend"
    raise ValueError(f"“{mode}” is not a table mode: use solo or friend.")


def outcome(solo: bool, front: int, back: int, other_front: int, other_back: int) -> int:
    """Result on values as 2 (win), 1 (push) or 0 (loss) for the first side.

    In solo the first side is the player, so copies go to the other side.
    """
    foul = is_foul_values(front, back)
    other_foul = is_foul_values(other_front, other_back)
    if foul or other_foul:
        # Both fouling is a push; otherwise the side that fouled loses.
        return 1 if foul and other_foul else (0 if foul else 2)
    # +1 per part won, -1 per part lost; a copy is lost in solo, a tie with a friend.
    net = 0
    for mine, theirs in ((front, other_front), (back, other_back)):
        if mine > theirs:
            net += 1
        elif mine < theirs or solo:
            net -= 1
    return 2 if net == 2 else (0 if net == -2 else 1)


_RESULTS: tuple[Result, Result, Result] = ("loss", "push", "win")


def _part(mine: int, theirs: int) -> Part:
    return "win" if mine > theirs else ("loss" if mine < theirs else "copy")


def settle(
    *,
    mode: str,
    front: str | Iterable[str],
    back: str | Iterable[str],
    other_front: str | Iterable[str],
    other_back: str | Iterable[str],
) -> Settlement:
    """Settle a deal for the first side (in solo: the player against the dealer).

    >>> s = settle(mode="solo", front="Ks Qd", back="9s 9h 5d 4c 2c",
    ...            other_front="Kh Qc", other_back="8s 8h 5c 4d 2d")
    >>> s.result, s.front, s.back, s.score
    ('push', 'copy', 'win', 0.5)
    >>> settle(mode="friend", front="As 2d", back="9s 9h 5d 4c 2c",
    ...        other_front="Kh Qc", other_back="8s 8h 5c 4d 2h").result
    'win'
    """
    solo = check_mode(mode) == "solo"
    f = front_value_of(parse_indices(front, count=2))
    b = back_value_of(parse_indices(back, count=5))
    of = front_value_of(parse_indices(other_front, count=2))
    ob = back_value_of(parse_indices(other_back, count=5))
    result = _RESULTS[outcome(solo, f, b, of, ob)]
    return Settlement(
        result=result,
        front=_part(f, of),
        back=_part(b, ob),
        foul=is_foul_values(f, b),
        other_foul=is_foul_values(of, ob),
        score=SCORES[result],
    )


def mirror_result(result: str) -> Result:
    """The other side's result.

    >>> mirror_result("win"), mirror_result("push"), mirror_result("loss")
    ('loss', 'push', 'win')
    """
    if result == "win":
        return "loss"
    if result == "loss":
        return "win"
    if result == "push":
        return "push"
    raise ValueError(f"“{result}” is not a result: use win, push or loss.")


def mirror_part(part: str) -> Part:
    """The other side's comparison of one part (a copy is a copy for both).

    >>> mirror_part("win"), mirror_part("loss"), mirror_part("copy")
    ('loss', 'win', 'copy')
    """
    if part == "win":
        return "loss"
    if part == "loss":
        return "win"
    if part == "copy":
        return "copy"
    raise ValueError(f"“{part}” is not a part's result: use win, loss or copy.")


@dataclass(frozen=True)
class LedgerDelta:
    """Chips a result moves: the actual ledger and the "with 5%" what-if."""

    actual: int
    with_commission: Decimal


def ledger_delta(result: str, stake: int) -> LedgerDelta:
    """How a result at a stake moves both ledgers (rules §5).

    >>> ledger_delta("win", 20)
    LedgerDelta(actual=20, with_commission=Decimal('19.00'))
    >>> ledger_delta("loss", 20), ledger_delta("push", 20).with_commission
    (LedgerDelta(actual=-20, with_commission=Decimal('-20.00')), Decimal('0.00'))
    >>> ledger_delta("win", 7).with_commission
    Decimal('6.65')
    """
    if isinstance(stake, bool) or not isinstance(stake, int) or stake < 1:
        raise ValueError("A stake is a whole number of chips, at least 1.")
    if result == "win":
        net = (Decimal(stake) * Decimal("0.95")).quantize(_HUNDREDTHS, rounding=ROUND_HALF_UP)
        return LedgerDelta(stake, net)
    if result == "loss":
        return LedgerDelta(-stake, Decimal(-stake).quantize(_HUNDREDTHS))
    mirror_result(result)  # rejects anything that is not a result
    return LedgerDelta(0, Decimal("0.00"))
