"""Practice drills: the families of hands people set wrong, and dealing them.

A family is a named predicate over seven cards, read from the house way's row
id (rules §3) and, for two families, from the cards themselves:

========================  ==================================================================
``any``                   every hand
``two-pair``              the rows ``two-pair-keep`` and ``two-pair-split``
``joker``                 the joker is among the seven cards
``straights-with-pairs``  a straight or flush row (``royal-flush``, ``straight-flush``,
                          ``straight-or-flush``, or one of their ``-as-pairs-`` ids) with
                          a pair among the cards (the joker counted as an ace)
``four-of-a-kind``        the ``quads-…`` rows
``full-house``            ``two-trips`` and the ``full-house-…`` rows
``three-pair``            ``three-pair`` and the ``…-as-pairs-three-pair`` rows
========================  ==================================================================

:func:`deal_drill` deals a hand of a family: it draws candidates from a
proposal that makes the family likely (a random hand, or the family's core,
such as four of a kind, completed with random cards) and keeps the first one
the predicate accepts, so every dealt hand belongs to its family by the same
test :func:`in_drill` applies. The randomness is the caller's ``rng``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable

from .cards import JOKER, codes, parse_indices
from .house_way import REASONS, VALUE, house_way_indices

DRILLS: dict[str, str] = {
    "any": "Any hand",
    "two-pair": "Two pair",
    "joker": "The joker",
    "straights-with-pairs": "Straights and flushes with pairs",
    "four-of-a-kind": "Four of a kind",
    "full-house": "Full houses",
    "three-pair": "Three pair",
}

# What each drill teaches, in a sentence for the practice page.
DRILL_LESSONS: dict[str, str] = {
    "any": "Hands as they come from a shuffled deck.",
    "two-pair": "Keep both pairs in back, or split them? Small pairs and an ace guard decide.",
    "joker": "In front the joker is only an ace; in back it also completes straights and flushes.",
    "straights-with-pairs": (
        "A straight or a flush in back, or play the pairs instead when they are strong enough?"
    ),
    "four-of-a-kind": "Keep the four together or split them: their rank and the rest decide.",
    "full-house": "Most full houses split: the pair goes in front, the three stay in back.",
    "three-pair": "With three pairs the highest pair goes in front.",
}

STRAIGHT_ROWS = frozenset(
    row for row in REASONS if row.startswith(("royal-flush", "straight-flush", "straight-or-flush"))
)
TWO_PAIR_ROWS = frozenset({"two-pair-keep", "two-pair-split"})
THREE_PAIR_ROWS = frozenset(
    row for row in REASONS if row == "three-pair" or row.endswith("-as-pairs-three-pair")
)
FULL_HOUSE_ROWS = frozenset(row for row in REASONS if row.startswith(("full-house-", "two-trips")))
QUADS_ROWS = frozenset(row for row in REASONS if row.startswith("quads-"))

# The most candidates one deal may draw: the proposals make every family
# likely (the tests measure far fewer), so reaching it means a bug.
MAX_ATTEMPTS = 10_000


def _has_pair(hand: tuple[int, ...]) -> bool:
    return max(Counter(VALUE[c] for c in hand).values()) >= 2


_PREDICATES: dict[str, Callable[[tuple[int, ...], str], bool]] = {
    "any": lambda hand, row: True,
    "two-pair": lambda hand, row: row in TWO_PAIR_ROWS,
    "joker": lambda hand, row: JOKER in hand,
    "straights-with-pairs": lambda hand, row: row in STRAIGHT_ROWS and _has_pair(hand),
    "four-of-a-kind": lambda hand, row: row in QUADS_ROWS,
    "full-house": lambda hand, row: row in FULL_HOUSE_ROWS,
    "three-pair": lambda hand, row: row in THREE_PAIR_ROWS,
}


def check_drill(family: str) -> str:
    """The family's id, or ValueError (a sentence) when there is no such drill.

    >>> check_drill("two-pair")
    'two-pair'
    >>> check_drill("five-aces")
    Traceback (most recent call last):
    ...
    ValueError: There is no drill “five-aces”: choose one of any, two-pair, joker, \
straights-with-pairs, four-of-a-kind, full-house, three-pair.
    """
    if family not in DRILLS:
        raise ValueError(f"There is no drill “{family}”: choose one of {', '.join(DRILLS)}.")
    return family


def in_drill(family: str, seven: str | Iterable[str]) -> bool:
    """Whether seven cards belong to a drill's family (see the module's table).

    >>> in_drill("two-pair", "As Ah 8d 8c Ks 7h 4d")
    True
    >>> in_drill("straights-with-pairs", "JK Ah 9s 9d Kc Qh Jd")
    True
    >>> in_drill("three-pair", "As 3s 2s JK 4s 4d 2c")
    True
    >>> in_drill("full-house", "9s 9h 9d 2c 2s Ah Kd")
    True
    >>> in_drill("four-of-a-kind", "7s 7h 7d 7c Ah Jd 3c")
    True
    >>> in_drill("joker", "As Ah 8d 8c Ks 7h 4d")
    False
    """
    hand = parse_indices(seven, count=7)
    _, row = house_way_indices(hand)
    return _PREDICATES[check_drill(family)](hand, row)


def _suit_cards(rank: int) -> list[int]:
    """The four natural cards of a rank position (0 ace … 12 deuce)."""
    return [suit * 13 + rank for suit in range(4)]


def _fill(rng: random.Random, held: list[int]) -> tuple[int, ...]:
    rest = [c for c in range(53) if c not in held]
    return tuple(sorted(held + rng.sample(rest, 7 - len(held))))


def _pair_card(rng: random.Random, held: list[int]) -> int:
    """Another card of the rank of one of the held cards (a pair)."""
    card = rng.choice(held)
    return rng.choice([c for c in _suit_cards(card % 13) if c not in held])


# Straights by rank positions: A-K-Q-J-T (0-4) … 6-5-4-3-2 (8-12), and the wheel.
_STRAIGHTS = [list(range(top, top + 5)) for top in range(9)] + [[0, 9, 10, 11, 12]]


def _propose(family: str, rng: random.Random) -> tuple[int, ...]:
    if family == "joker":
        return _fill(rng, [JOKER])
    if family == "four-of-a-kind":
        return _fill(rng, _suit_cards(rng.randrange(13)))
    if family == "full-house":
        three, two = rng.sample(range(13), 2)
        return _fill(rng, rng.sample(_suit_cards(three), 3) + rng.sample(_suit_cards(two), 2))
    if family == "three-pair":
        held = [c for rank in rng.sample(range(13), 3) for c in rng.sample(_suit_cards(rank), 2)]
        return _fill(rng, held)
    if family == "straights-with-pairs":
        if rng.random() < 0.5:
            held = [rng.randrange(4) * 13 + rank for rank in rng.choice(_STRAIGHTS)]
        else:
            suit = rng.randrange(4)
            held = [suit * 13 + rank for rank in rng.sample(range(13), 5)]
        return _fill(rng, [*held, _pair_card(rng, held)])
    return _fill(rng, [])  # any, two-pair: a random hand


def deal_drill_attempts(family: str, rng: random.Random) -> tuple[tuple[str, ...], int]:
    """:func:`deal_drill`, and how many candidates it drew (for the tests)."""
    accept = _PREDICATES[check_drill(family)]
    for attempt in range(1, MAX_ATTEMPTS + 1):
        hand = _propose(family, rng)
        if accept(hand, house_way_indices(hand)[1]):
            return codes(hand), attempt
    raise RuntimeError(f"No hand of the drill {family} in {MAX_ATTEMPTS} candidates.")


def deal_drill(family: str, rng: random.Random) -> tuple[str, ...]:
    """Seven cards (codes in deck order) of a drill's family, drawn with ``rng``.

    >>> hand = deal_drill("four-of-a-kind", random.Random(7))
    >>> len(hand), in_drill("four-of-a-kind", hand)
    (7, True)
    >>> deal_drill("two-pair", random.Random(1)) == deal_drill("two-pair", random.Random(1))
    True
    >>> "JK" in deal_drill("joker", random.Random(3))
    True
    """
    return deal_drill_attempts(family, rng)[0]
