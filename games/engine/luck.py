"""Luck (rules §6): SplitMix64, the opponent draw, the estimate and its interval.

Everything is exact where the rules ask for exactness: the luck is a
Fraction, the interval is computed with exact square roots when they are
rational and 60-digit decimals otherwise, and shown values are rounded half
up from those numbers, never from binary floats.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from math import isqrt

from .cards import parse_indices, text
from .hands import back_value_of, front_value_of
from .house_way import house_way_setting_of, house_way_values
from .settle import check_mode, outcome

MASK64 = (1 << 64) - 1
_TENTH = Decimal("0.1")
# How many opponents a luck estimate draws in play (rules §6): the default of
# every luck function here, and what a stored estimate must count.
LUCK_SAMPLES = 120


class SplitMix64:
    """The SplitMix64 generator of rules §6.

    >>> g = SplitMix64(0)
    >>> hex(g.next())
    '0xe220a8397b1dcdaf'
    """

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        """The next 64-bit output."""
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, m: int) -> int:
        """A uniform integer in [0, m) by rejection, as the rules specify.

        >>> SplitMix64(1).below(46) in range(46)
        True
        """
        limit = (1 << 64) - (1 << 64) % m
        while True:
            x = self.next()
            if x < limit:
                return x % m


def luck_key(cards: tuple[int, ...], mode: str, side: str, samples: int) -> str:
    """The text whose hash seeds the draw.

    >>> luck_key(parse_indices("As Ks Qs Js Ts 9s 8s"), "solo", "player", 120)
    'paigow-luck-v1|solo|player|120|As Ks Qs Js Ts 9s 8s'
    """
    return f"paigow-luck-v1|{mode}|{side}|{samples}|{text(cards)}"


def luck_seed(key: str) -> int:
    """First 8 bytes, big-endian, of SHA-256 of the key.

    >>> luck_seed("paigow-luck-v1|solo|player|120|As Ks Qs Js Ts 9s 8s") < 2 ** 64
    True
    """
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


def draw_opponents(
    cards: tuple[int, ...], samples: int, rng: SplitMix64
) -> Iterator[tuple[int, ...]]:
    """Opponent hands (sorted indices), each a fresh partial shuffle of the rest.

    This is the hot loop of luck, so SplitMix64.below is inlined here; the
    doctest checks it against the class.

    >>> hand = parse_indices("As Ks Qs Js Ts 9s 8s")
    >>> a = list(draw_opponents(hand, 3, SplitMix64(7)))
    >>> g, rest = SplitMix64(7), [c for c in range(53) if c not in hand]
    >>> for _ in range(3):
    ...     deck = rest[:]
    ...     for j in range(7):
    ...         k = j + g.below(46 - j)
    ...         deck[j], deck[k] = deck[k], deck[j]
    ...     assert tuple(sorted(deck[:7])) == a.pop(0)
    """
    held = set(cards)
    remaining = [c for c in range(53) if c not in held]
    size = len(remaining)
    limits = [(size - j, (1 << 64) - (1 << 64) % (size - j)) for j in range(7)]
    state = rng.state
    for _ in range(samples):
        deck = remaining[:]
        for j in range(7):
            m, limit = limits[j]
            while True:
                state = z = (state + 0x9E3779B97F4A7C15) & MASK64
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
                z ^= z >> 31
                if z < limit:
                    break
            k = j + z % m
            deck[j], deck[k] = deck[k], deck[j]
        rng.state = state
        top = deck[:7]
        top.sort()
        yield tuple(top)


def _half_up(value: Fraction | Decimal) -> str:
    if isinstance(value, Fraction):
        tenths = (value * 10 + Fraction(1, 2)).__floor__()
        return f"{tenths // 10}.{tenths % 10}"
    return str(value.quantize(_TENTH, rounding=ROUND_HALF_UP))


def _scale(e: Fraction | Decimal) -> Fraction | Decimal:
    return 1 + 9 * e


def half_up(value: Fraction, places: int = 1) -> Decimal:
    """An exact value rounded half up to ``places`` decimals, as the rules show
    numbers (never through a binary float).

    >>> half_up(Fraction(101, 20)), half_up(Fraction(107, 20)), half_up(Fraction(1, 8), 2)
    (Decimal('5.1'), Decimal('5.4'), Decimal('0.13'))
    """
    units = (value * 10**places + Fraction(1, 2)).__floor__()
    return Decimal(units).scaleb(-places)


def luck_average(*, points: int, estimates: int, samples: int = LUCK_SAMPLES) -> Fraction | None:
    """The exact mean luck of ``estimates`` luck estimates of ``samples`` each,
    whose 2 × wins + pushes add up to ``points``: 1 + 9 × mean E, with
    E = (2w + p) / (2 × samples) for each (rules §6 and §8). None when there
    is no estimate to average.

    >>> average = luck_average(points=140 + 94, estimates=2)
    >>> average, half_up(average), half_up(average, 3)
    (Fraction(431, 80), Decimal('5.4'), Decimal('5.388'))
    >>> luck_average(points=0, estimates=0) is None
    True
    """
    if not estimates:
        return None
    return 1 + Fraction(9 * points, 2 * samples * estimates)


@dataclass(frozen=True)
class LuckEstimate:
    """A luck estimate: counts, luck, its 95% interval and their shown forms."""

    samples: int
    wins: int
    pushes: int
    losses: int
    luck: float
    low: float
    high: float
    shown: str
    shown_low: str
    shown_high: str

    def label(self) -> str:
        """The line a player sees.

        >>> luck_from_counts(wins=20, pushes=69, losses=31).label()
        'Luck 5.1 (4.6–5.6)'
        """
        return f"Luck {self.shown} ({self.shown_low}–{self.shown_high})"


def luck_from_counts(*, wins: int, pushes: int, losses: int) -> LuckEstimate:
    """The estimate implied by counts of wins, pushes and losses (n >= 2).

    >>> e = luck_from_counts(wins=58, pushes=49, losses=13)
    >>> e.luck, e.shown, e.shown_low, e.shown_high
    (7.1875, '7.2', '6.6', '7.7')
    """
    for count in (wins, pushes, losses):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError("Counts of wins, pushes and losses are whole numbers, at least 0.")
    n = wins + pushes + losses
    if n < 2:
        raise ValueError("A luck estimate needs at least two samples.")
    e = Fraction(2 * wins + pushes, 2 * n)
    sum_sq = wins + Fraction(pushes, 4)
    variance_of_mean = (sum_sq - n * e * e) / (n - 1) / n
    num, den = variance_of_mean.numerator, variance_of_mean.denominator
    low: Fraction | Decimal
    high: Fraction | Decimal
    if isqrt(num) ** 2 == num and isqrt(den) ** 2 == den:
        # A rational root: stay exact so a tie rounds the way the rules say.
        h = Fraction(196, 100) * Fraction(isqrt(num), isqrt(den))
        low, high = _scale(max(Fraction(0), e - h)), _scale(min(Fraction(1), e + h))
    else:
        with localcontext() as ctx:
            ctx.prec = 60
            root = (Decimal(num) / Decimal(den)).sqrt()
            hd = Decimal("1.96") * root
            ed = Decimal(e.numerator) / Decimal(e.denominator)
            low = _scale(max(Decimal(0), ed - hd))
            high = _scale(min(Decimal(1), ed + hd))
    luck = _scale(e)
    return LuckEstimate(
        samples=n, wins=wins, pushes=pushes, losses=losses,
        luck=float(luck), low=float(low), high=float(high),
        shown=_half_up(luck), shown_low=_half_up(low), shown_high=_half_up(high),
    )


def check_side(mode: str, side: str) -> str:
    """Validate the side for a mode: player or dealer in solo, player with a friend."""
    allowed = ("player", "dealer") if mode == "solo" else ("player",)
    if side not in allowed:
        raise ValueError(f"“{side}” is not a side at a {mode} table: use {' or '.join(allowed)}.")
    return side


def opponent_values(
    cards: tuple[int, ...], mode: str, side: str, samples: int
) -> list[tuple[int, int]]:
    """The drawn opponents of rules §6, each as its house way's front and back values.

    The key, the seed and the draw are exactly luck's, so luck and the setting
    explorer face the same opponents.

    >>> hand = parse_indices("9s 2s Th 5h 2h Kd Kc")
    >>> len(opponent_values(hand, "solo", "player", 120))
    120
    """
    check_mode(mode)
    check_side(mode, side)
    rng = SplitMix64(luck_seed(luck_key(cards, mode, side, samples)))
    return [house_way_values(opponent) for opponent in draw_opponents(cards, samples, rng)]


def tally(front: int, back: int, opponents: Iterable[tuple[int, int]], *, solo: bool,
          dealer: bool) -> tuple[int, int, int]:
    """Wins, pushes and losses of one setting (as values) against opponents' values.

    ``dealer`` (solo only) means the setting is the dealer's and each opponent
    is the player, so copies win; otherwise the setting is the player's (or a
    friend's). Fouls lose per rules §4.
    """
    counts = [0, 0, 0]  # indexed by the side's own result: loss, push, win
    if dealer:
        # The drawn hand is the player; the dealer's result is its mirror.
        for their_f, their_b in opponents:
            counts[2 - outcome(True, their_f, their_b, front, back)] += 1
    else:
        for their_f, their_b in opponents:
            counts[outcome(solo, front, back, their_f, their_b)] += 1
    return counts[2], counts[1], counts[0]


def luck_counts(cards: tuple[int, ...], mode: str, side: str, samples: int) -> tuple[int, int, int]:
    """Wins, pushes and losses of the house way against drawn opponents."""
    opponents = opponent_values(cards, mode, side, samples)
    front, back = house_way_setting_of(cards)
    return tally(front_value_of(front), back_value_of(back), opponents,
                 solo=mode == "solo", dealer=mode == "solo" and side == "dealer")


def luck(
    seven: str | Iterable[str], *, mode: str, side: str, samples: int = LUCK_SAMPLES
) -> LuckEstimate:
    """Luck of a deal for one side, exactly as rules §6 (deterministic).

    >>> luck("9s 2s Th 5h 2h Kd Kc", mode="solo", side="player").label()
    'Luck 7.2 (6.6–7.7)'
    """
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 2:
        raise ValueError("Luck needs a whole number of samples, at least 2.")
    cards = parse_indices(seven, count=7)
    wins, pushes, losses = luck_counts(cards, mode, side, samples)
    return luck_from_counts(wins=wins, pushes=pushes, losses=losses)
