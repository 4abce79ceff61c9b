"""The house way of rules §3.

Two implementations that must agree (tests compare them on every rank
pattern family and on random hands):

* :func:`reference_indices` follows the rules literally: each row is a small
  function naming the settings it allows, and the winner among the legal ones
  is the strongest front, then the strongest back, then the smallest front
  indices.  It enumerates all 21 settings.
* :func:`house_way_indices` is the fast path used in play and for luck.  A
  hand that can make no straight and no flush is valued by ranks alone, so
  each row's answer can be read straight off the rank groups (:func:`_direct`)
  and depends only on the rank multiset: it is cached by that pattern as the
  front's two rank values.  The §3 tiebreak then picks, within a rank, the
  lowest deck index (the joker last among aces), so one cached answer serves
  every hand with the same ranks.  Hands that could make a straight or a
  flush, about one in nine, use the reference.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from .cards import JOKER, codes, parse_indices
from .hands import (
    FLUSH,
    FRONT_VALUES,
    RANK_KEY,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUIT_KEY,
    TWO_PAIR,
    Setting,
    back_value_from_keys,
    back_value_of,
    front_value_of,
    is_foul_values,
)

REASONS = {
    "five-aces-kings": "Five aces stay together in back and the pair of kings goes in front.",
    "five-aces-split": "Split the five aces: a pair of aces in front, three aces in back.",
    "royal-flush": "Keep the royal flush in back.",
    "straight-flush": "Keep the straight flush in back.",
    "straight-or-flush": (
        "Play the straight or flush in back and put the best two other cards in front."
    ),
    "quads-low-keep": "Four of a kind from twos to sixes stays together in back.",
    "quads-mid-keep": (
        "Keep the four of a kind in back: "
        "the other cards already make ace-jack or better in front."
    ),
    "quads-mid-split": "Split the four of a kind: a pair in front, a pair in back.",
    "quads-high-keep": (
        "Keep the high four of a kind in back: "
        "the other cards give a pair of tens or better in front."
    ),
    "quads-high-split": "Split the high four of a kind: a pair in front, a pair in back.",
    "quads-aces-keep": (
        "Keep the four aces in back: the other cards give a pair of sevens or better in front."
    ),
    "quads-aces-split": "Split the four aces: a pair of aces in front, a pair of aces in back.",
    "two-trips": "With two three of a kinds, put a pair from the higher one in front.",
    "full-house-two-pair": "Three of a kind with two pairs: the higher pair goes in front.",
    "full-house-deuces-ak": "A full house with twos stays in back when ace-king can go in front.",
    "full-house-split": "Split the full house: the pair in front, the three of a kind in back.",
    "three-pair": "With three pairs, the highest pair goes in front.",
    "trip-aces": "Split three aces: one ace in front, a pair of aces in back.",
    "trips": "Keep the three of a kind in back and the two best other cards in front.",
    "two-pair-keep": "These two pairs are small or guarded by an ace: keep both in back.",
    "two-pair-split": "Split the two pairs: the higher pair in back, the lower pair in front.",
    "one-pair": "Keep the pair in back and the two best other cards in front.",
    "no-pair": "Keep the highest card in back and the next two in front.",
}
for _straight_row in ("royal-flush", "straight-flush", "straight-or-flush"):
    _name = _straight_row.replace("-or-", " or ").replace("-", " ")
    for _tail, _key in (
        ("keep", "two-pair-keep"), ("split", "two-pair-split"), ("three-pair", "three-pair")
    ):
        REASONS[f"{_straight_row}-as-pairs-{_tail}"] = (
            f"Play it as pairs rather than the {_name}: "
            + REASONS[_key][0].lower() + REASONS[_key][1:]
        )


@dataclass(frozen=True)
class HouseWay:
    """The house way's setting, the id of the §3 row that chose it, and why."""

    setting: Setting
    row: str
    reason: str


VALUE: tuple[int, ...] = tuple(14 - c % 13 for c in range(52)) + (14,)


class _Hand:
    """A seven-card hand's rank groups, the joker counted as an ace."""

    def __init__(self, cards: tuple[int, ...]) -> None:
        self.cards = cards
        groups: dict[int, list[int]] = {}
        for c in cards:  # deck order keeps each group in deck-index order
            v = VALUE[c]
            if v in groups:
                groups[v].append(c)
            else:
                groups[v] = [c]
        self.groups = groups
        by_size: dict[int, list[int]] = {1: [], 2: [], 3: [], 4: [], 5: []}
        for value in sorted(groups, reverse=True):
            by_size[len(groups[value])].append(value)
        self.singles, self.pairs, self.trips = by_size[1], by_size[2], by_size[3]
        self.quads, self.fives = by_size[4], by_size[5]
        self.ace_singleton = 14 in self.singles

    def of(self, value: int) -> set[int]:
        return set(self.groups.get(value, ()))


class _Candidate(NamedTuple):
    """One legal setting with its values (a tuple: built 21 times per hand)."""

    front: tuple[int, int]
    front_value: int
    back_value: int


Member = Callable[[_Candidate], bool]
Row = tuple[str, Member]


def _front_is(cards: set[int]) -> Member:
    return lambda c: set(c.front) <= cards


def _in_back(cards: set[int]) -> Member:
    # The back is the other five cards: in back means not in front.
    return lambda c: not cards.intersection(c.front)


def _row_five_aces(h: _Hand) -> Row | None:
    if not h.fives:
        return None
    if 13 in h.pairs:
        return "five-aces-kings", _front_is(h.of(13))
    return "five-aces-split", _front_is(h.of(14))


def _row_quads(h: _Hand) -> Row | None:
    if not h.quads:
        return None
    q = h.quads[0]
    quad = h.of(q)
    others = [v for v in sorted((14 if c == JOKER else 14 - c % 13 for c in h.cards), reverse=True)
              if v != q]
    other_pairs = [v for v in set(others) if others.count(v) >= 2]
    if q <= 6:
        keep, name = True, "quads-low"
    elif q <= 10:
        # Best front from the other three: any pair, or an ace with J, Q or K.
        keep = bool(other_pairs) or (others[0] == 14 and others[1] >= 11)
        name = "quads-mid"
    elif q <= 13:
        keep, name = any(v >= 10 for v in other_pairs), "quads-high"
    else:
        keep, name = any(v >= 7 for v in other_pairs), "quads-aces"
    if keep:
        return name + "-keep", _in_back(quad)
    return name + "-split", _front_is(quad)


def _row_full_houses(h: _Hand) -> Row | None:
    if not h.trips:
        return None
    if len(h.trips) == 2:
        return "two-trips", _front_is(h.of(h.trips[0]))
    if len(h.pairs) == 2:
        return "full-house-two-pair", _front_is(h.of(h.pairs[0]))
    if len(h.pairs) == 1:
        if h.pairs[0] == 2 and sorted(h.singles) == [13, 14]:
            return "full-house-deuces-ak", _in_back(h.of(h.trips[0]) | h.of(2))
        return "full-house-split", _front_is(h.of(h.pairs[0]))
    return None


def _row_three_pair(h: _Hand) -> Row | None:
    if len(h.pairs) == 3:
        return "three-pair", _front_is(h.of(h.pairs[0]))
    return None


def _row_trips(h: _Hand) -> Row | None:
    if not h.trips:
        return None
    trips = h.of(h.trips[0])
    if h.trips[0] == 14:
        return "trip-aces", lambda c: len(trips & set(c.front)) == 1
    return "trips", _in_back(trips)


def _two_pair_keeps(h: _Hand) -> bool:
    high, low = h.pairs
    return (
        high <= 6
        or (high <= 10 and h.ace_singleton)
        or (11 <= high <= 13 and low <= 5 and h.ace_singleton)
    )


def _row_two_pair(h: _Hand) -> Row | None:
    if len(h.pairs) != 2:
        return None
    high, low = h.pairs
    if _two_pair_keeps(h):
        return "two-pair-keep", _in_back(h.of(high) | h.of(low))
    return "two-pair-split", _front_is(h.of(low))


def _row_one_pair(h: _Hand) -> Row | None:
    if len(h.pairs) == 1:
        return "one-pair", _in_back(h.of(h.pairs[0]))
    return None


def _row_no_pair(h: _Hand) -> Row:
    return "no-pair", _in_back(h.of(h.singles[0]))


_STRAIGHT_ROWS = (
    ("royal-flush", frozenset({ROYAL_FLUSH})),
    ("straight-flush", frozenset({STRAIGHT_FLUSH})),
    ("straight-or-flush", frozenset({STRAIGHT, FLUSH})),
)
_LATER_ROWS: tuple[Callable[[_Hand], Row | None], ...] = (
    _row_quads, _row_full_houses, _row_three_pair, _row_trips, _row_two_pair, _row_one_pair,
)


def _plays_as_pairs(h: _Hand, row: str, settings: list[_Candidate]) -> bool:
    """The "play as two pair" exception to the straight and flush rows."""
    if h.trips or h.quads or h.fives or len(h.pairs) not in (2, 3):
        return False
    high = h.pairs[0]
    strong = (
        14 in h.pairs
        or h.pairs[1] >= 10
        or (row != "royal-flush" and high <= 10 and h.ace_singleton)
    )
    return strong and not any(c.front_value >= 0x100 for c in settings)


def _choose(candidates: list[_Candidate]) -> _Candidate:
    # Strongest front, then strongest back, then smallest front indices.
    return min(candidates, key=lambda c: (-c.front_value, -c.back_value, c.front))


_TWO_PAIR_MIN = TWO_PAIR << 20


def reference_indices(hand: tuple[int, ...]) -> tuple[tuple[int, int], str]:
    """House way of seven sorted deck indices by literal enumeration.

    Returns the front's two indices and the row id.

    >>> reference_indices(parse_indices("As Ah 8d 8c Ks 7h 4d"))
    ((32, 45), 'two-pair-split')
    """
    rank_key = suit_key = 0
    for c in hand:
        rank_key += RANK_KEY[c]
        suit_key += SUIT_KEY[c]
    legal = []
    for a, b in itertools.combinations(hand, 2):  # the order of FRONT_POSITIONS
        # The back's keys are the hand's keys less the front's two cards.
        bv = back_value_from_keys(rank_key - RANK_KEY[a] - RANK_KEY[b],
                                  suit_key - SUIT_KEY[a] - SUIT_KEY[b])
        fv = FRONT_VALUES[a][b]
        # Only a back below two pair can be fouled.
        if bv >= _TWO_PAIR_MIN or not is_foul_values(fv, bv):
            legal.append(_Candidate((a, b), fv, bv))
    h = _Hand(hand)

    def decide(row: Row) -> tuple[tuple[int, int], str]:
        name, member = row
        return _choose([c for c in legal if member(c)]).front, name

    found = _row_five_aces(h)
    if found:
        return decide(found)
    for name, categories in _STRAIGHT_ROWS:
        settings = [c for c in legal if c.back_value >> 20 in categories]
        if not settings:
            continue
        if _plays_as_pairs(h, name, settings):
            pairs_row = _row_three_pair(h) or _row_two_pair(h)
            assert pairs_row is not None
            tail = pairs_row[0].removeprefix("two-pair-")
            return decide((f"{name}-as-pairs-{tail}", pairs_row[1]))
        return _choose(settings).front, name
    for row_of in _LATER_ROWS:
        found = row_of(h)
        if found:
            return decide(found)
    return decide(_row_no_pair(h))


def _flushable(key: int) -> bool:
    wild = key >> 16
    return any((key >> (4 * suit) & 15) + wild >= 5 for suit in range(4))


# All suit-count keys of seven cards that can make a flush, computed once.
_FLUSHABLE = frozenset(
    key
    for key in {sum(SUIT_KEY[c] for c in combo) for combo in
                itertools.combinations_with_replacement((0, 13, 26, 39, 52), 7)}
    if key >> 16 <= 1 and _flushable(key)
)

# Each straight as a bit mask over rank slots (slot = 14 - value, ace 0).
_STRAIGHT_MASKS = tuple(
    sum(1 << (14 - v) for v in values)
    for values in [range(10, 15), (14, 2, 3, 4, 5)]
    + [range(t - 4, t + 1) for t in range(13, 5, -1)]
)


def _can_straight(values: tuple[int, ...], joker: bool) -> bool:
    mask = 0
    for v in values:
        mask |= 1 << (14 - v)
    if joker:
        # The wild joker fills any one gap of a straight.
        return any(mask & m == m or (m & ~mask) & ((m & ~mask) - 1) == 0 for m in _STRAIGHT_MASKS)
    return any(mask & m == m for m in _STRAIGHT_MASKS)


def _direct(h: _Hand) -> tuple[str, int, int]:
    """Row and front rank values of a hand that can make no straight or flush.

    Every back is then valued by ranks alone, so each row's best setting can
    be read off the rank groups; tests check this against the reference.
    """
    singles, pairs, trips = h.singles, h.pairs, h.trips
    if h.fives:
        return ("five-aces-kings", 13, 13) if 13 in pairs else ("five-aces-split", 14, 14)
    if h.quads:
        found = _row_quads(h)
        assert found is not None
        row, q = found[0], h.quads[0]
        if row.endswith("-split"):
            return row, q, q
        # Keep: the best front of the other three is their pair, else their top two.
        if pairs or trips:
            p = (pairs or trips)[0]
            return row, p, p
        return row, singles[0], singles[1]
    if len(trips) == 2:
        return "two-trips", trips[0], trips[0]
    if trips and len(pairs) == 2:
        return "full-house-two-pair", pairs[0], pairs[0]
    if trips and pairs:
        if pairs[0] == 2 and singles == [14, 13]:
            return "full-house-deuces-ak", 14, 13
        return "full-house-split", pairs[0], pairs[0]
    if len(pairs) == 3:
        return "three-pair", pairs[0], pairs[0]
    if trips:
        if trips[0] == 14:
            return "trip-aces", 14, singles[0]
        return "trips", singles[0], singles[1]
    if len(pairs) == 2:
        if _two_pair_keeps(h):
            return "two-pair-keep", singles[0], singles[1]
        return "two-pair-split", pairs[1], pairs[1]
    if pairs:
        return "one-pair", singles[0], singles[1]
    return "no-pair", singles[1], singles[2]


# Rank key of seven cards -> (row, front rank values, front value, back value),
# or None when the ranks can make a straight (then the suits matter).
PATTERN_CACHE: dict[int, tuple[str, int, int, int, int] | None] = {}


def _pattern_entry(hand: tuple[int, ...]) -> tuple[str, int, int, int, int] | None:
    h = _Hand(hand)
    naturals = tuple(14 - c % 13 for c in hand if c != JOKER)
    if _can_straight(naturals, JOKER in hand):
        return None
    row, a, b = _direct(h)
    front = _pick(hand, a, b)
    back = tuple(c for c in hand if c != front[0] and c != front[1])
    return row, a, b, front_value_of(front), back_value_of(back)


def _pick(hand: tuple[int, ...], a: int, b: int) -> tuple[int, int]:
    """The lowest-index cards of rank values ``a`` and ``b`` (the §3 tiebreak)."""
    first = second = -1
    for c in hand:  # deck order, so the joker comes after every natural ace
        v = 14 if c == JOKER else 14 - c % 13
        if first < 0 and v == a:
            first = c
        elif second < 0 and v == b:
            second = c
    return (first, second) if first < second else (second, first)


def _entry(hand: tuple[int, ...]) -> tuple[str, int, int, int, int] | None:
    """The cached pattern answer, or None when suits matter (straight or flush)."""
    rank_key = suit_key = 0
    for c in hand:
        rank_key += RANK_KEY[c]
        suit_key += SUIT_KEY[c]
    if suit_key in _FLUSHABLE:
        return None
    if rank_key in PATTERN_CACHE:
        return PATTERN_CACHE[rank_key]
    entry = PATTERN_CACHE[rank_key] = _pattern_entry(hand)
    return entry


def house_way_indices(hand: tuple[int, ...]) -> tuple[tuple[int, int], str]:
    """House way of seven sorted deck indices (fast path, same answers).

    >>> house_way_indices(parse_indices("As Ah 8d 8c Ks 7h 4d"))
    ((32, 45), 'two-pair-split')
    """
    entry = _entry(hand)
    if entry is None:
        return reference_indices(hand)
    return _pick(hand, entry[1], entry[2]), entry[0]


def house_way_values(hand: tuple[int, ...]) -> tuple[int, int]:
    """Front and back values of the house way of sorted indices (for luck)."""
    entry = _entry(hand)
    if entry is None:
        front, _ = reference_indices(hand)
        back = tuple(c for c in hand if c != front[0] and c != front[1])
        return front_value_of(front), back_value_of(back)
    return entry[3], entry[4]


def house_way(seven: str | Iterable[str]) -> HouseWay:
    """The house way for seven cards (rules §3).

    >>> hw = house_way("As Ah 8d 8c Ks 7h 4d")
    >>> hw.setting.front, hw.setting.back, hw.row
    (('8d', '8c'), ('As', 'Ks', 'Ah', '7h', '4d'), 'two-pair-split')
    >>> house_way("7s 7h 7d 7c Ah Jd 3c").row
    'quads-mid-keep'
    """
    hand = parse_indices(seven, count=7)
    front, row = house_way_indices(hand)
    back = tuple(c for c in hand if c not in front)
    return HouseWay(Setting(codes(front), codes(back)), row, REASONS[row])


def house_way_setting_of(hand: tuple[int, ...]) -> tuple[tuple[int, int], tuple[int, ...]]:
    """Front and back indices of the house way for sorted indices (internal)."""
    front, _ = house_way_indices(hand)
    return front, tuple(c for c in hand if c != front[0] and c != front[1])


def _card_set(cards: str | Iterable[str]) -> frozenset[str]:
    return frozenset(cards.split() if isinstance(cards, str) else cards)


def left_house_way(
    front: str | Iterable[str],
    back: str | Iterable[str],
    house_front: str | Iterable[str],
    house_back: str | Iterable[str],
) -> bool:
    """Whether a locked setting departs from the house way's: a front (or a
    back) that is not the house way's cards, in any order. Cards are codes, or
    stored text of codes separated by spaces; the order never matters.

    >>> left_house_way("8c 8d", "As Ah Ks 7h 4d", "8d 8c", "As Ks Ah 7h 4d")
    False
    >>> left_house_way(["As", "Ah"], "8d 8c Ks 7h 4d", "8d 8c", "As Ks Ah 7h 4d")
    True
    """
    return _card_set(front) != _card_set(house_front) or _card_set(back) != _card_set(house_back)
