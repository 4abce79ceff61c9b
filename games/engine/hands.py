"""Back and front values, names, comparisons and the foul rule (rules §2).

A back's value is one int, so backs compare with ``<``:
``category << 20`` plus five 4-bit rank slots, most significant first.
Straights put their order key in the first slot (A-K-Q-J-T 15, A-2-3-4-5 14,
K-high 13 … 6-high 6), because this table ranks the wheel second.
A front's value is ``0x100 | r << 4 | r`` for a pair of rank ``r`` and
``high << 4 | low`` otherwise, so every pair beats every high card.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from .cards import JOKER, RANK_PLURALS, RANK_WORDS, codes, parse_indices

FIVE_ACES, ROYAL_FLUSH, STRAIGHT_FLUSH, FOUR_OF_A_KIND, FULL_HOUSE = 10, 9, 8, 7, 6
FLUSH, STRAIGHT, THREE_OF_A_KIND, TWO_PAIR, PAIR, HIGH_CARD = 5, 4, 3, 2, 1, 0

CATEGORY_NAMES = {
    10: "five aces", 9: "royal flush", 8: "straight flush", 7: "four of a kind",
    6: "full house", 5: "flush", 4: "straight", 3: "three of a kind",
    2: "two pair", 1: "pair", 0: "high card",
}

# Every straight as (order key, its five rank values), strongest first.
_STRAIGHTS: tuple[tuple[int, frozenset[int]], ...] = (
    (15, frozenset({14, 13, 12, 11, 10})),
    (14, frozenset({14, 5, 4, 3, 2})),
) + tuple((top, frozenset(range(top - 4, top + 1))) for top in range(13, 5, -1))

Ranks = tuple[int, ...]


def _pack(category: int, ranks: Sequence[int]) -> int:
    value = category
    for i in range(5):
        value = value << 4 | (ranks[i] if i < len(ranks) else 0)
    return value


def _best_straight(values: frozenset[int]) -> int:
    """Order key of the best straight containing all ``values`` (0 if none).

    With five distinct values this tests for a straight; with four it finds
    the best rank the joker can complete.
    """
    for key, straight in _STRAIGHTS:
        if values <= straight:
            return key
    return 0


def _rank_reading(values: Ranks, joker: bool) -> int:
    """Value of five cards ignoring suits; ``values`` are the natural ranks."""
    # The joker is an ace for repeated ranks and high cards (rules §2.1 (1)).
    all_values = sorted(values + ((14,) if joker else ()), reverse=True)
    counts: dict[int, int] = {}
    for v in all_values:
        counts[v] = counts.get(v, 0) + 1
    # Groups ordered by size then rank: the order in which ranks matter.
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [n for _, n in groups]
    order = [v for v, _ in groups]
    if shape[0] == 5:
        value = _pack(FIVE_ACES, [14])
    elif shape[0] == 4:
        value = _pack(FOUR_OF_A_KIND, order)
    elif shape == [3, 2]:
        value = _pack(FULL_HOUSE, order)
    elif shape[0] == 3:
        value = _pack(THREE_OF_A_KIND, order)
    elif shape[:2] == [2, 2]:
        value = _pack(TWO_PAIR, order)
    elif shape[0] == 2:
        value = _pack(PAIR, order)
    else:
        value = _pack(HIGH_CARD, order)
    distinct = frozenset(values)
    if len(distinct) == len(values) and len(distinct) >= 4:
        key = _best_straight(distinct)
        if key:
            value = max(value, _pack(STRAIGHT, [key]))
    return value


def _flush_reading(values: Ranks, joker: bool) -> int:
    """Value of five suited cards (the naturals share a suit)."""
    key = _best_straight(frozenset(values))
    if key == 15:
        return _pack(ROYAL_FLUSH, [])
    if key:
        return _pack(STRAIGHT_FLUSH, [key])
    ranks = list(values)
    if joker:
        # The joker is the highest rank of the suit not already held (§2.1 (3)).
        ranks.append(next(v for v in range(14, 1, -1) if v not in values))
    return _pack(FLUSH, sorted(ranks, reverse=True))


# Rank key: one 3-bit count per rank slot (slot = 14 - value) plus the joker
# in bits 39-41.  Summing per-card keys is order-free, so no sort is needed.
RANK_KEY: tuple[int, ...] = tuple(1 << (3 * (c % 13)) for c in range(52)) + (1 << 39,)
# Suit bit per card, 0 for the joker: five cards are suited when the OR of
# their bits has at most one bit set.
SUIT_BIT: tuple[int, ...] = tuple(1 << (c // 13) for c in range(52)) + (0,)


def decode_rank_key(key: int) -> tuple[Ranks, bool]:
    """Natural rank values (high first) and the joker flag of a rank key.

    >>> decode_rank_key(RANK_KEY[0] + RANK_KEY[13] + RANK_KEY[52])
    ((14, 14), True)
    """
    values: list[int] = []
    for slot in range(13):
        values += [14 - slot] * (key >> (3 * slot) & 7)
    return tuple(values), bool(key >> 39)


class _Table(dict[int, int]):
    """Values by rank key, filled on first use (the tables stay small)."""

    def __init__(self, reading: Callable[[Ranks, bool], int]) -> None:
        super().__init__()
        self.reading = reading

    def __missing__(self, key: int) -> int:
        value = self[key] = self.reading(*decode_rank_key(key))
        return value

    def fill(self, keys: Iterable[int]) -> int:
        """Read every key not yet in the table; how many were added."""
        before = len(self)
        for key in keys:
            if key not in self:
                self.__missing__(key)
        return len(self) - before


_RANK_TABLE = _Table(_rank_reading)
_FLUSH_TABLE = _Table(
    lambda values, joker: max(_rank_reading(values, joker), _flush_reading(values, joker))
)


# Suit counts in 4-bit fields (the joker in bits 16-19); summing is order-free.
SUIT_KEY: tuple[int, ...] = tuple(1 << (4 * (c // 13)) for c in range(52)) + (1 << 16,)
# Suit keys of five cards whose naturals share one suit.
SUITED_FIVE = frozenset(
    [5 << (4 * s) for s in range(4)] + [(4 << (4 * s)) + (1 << 16) for s in range(4)]
)


def _five_card_rank_keys(*, suited: bool) -> Iterator[int]:
    """Every rank key five cards can have: four naturals or five, any joker
    with four (no rank more than four times; all different when ``suited``)."""
    for naturals in (5, 4):
        joker = RANK_KEY[JOKER] if naturals == 4 else 0
        ranks = (itertools.combinations(range(13), naturals) if suited
                 else itertools.combinations_with_replacement(range(13), naturals))
        for slots in ranks:
            if naturals == 5 and slots[0] == slots[4]:
                continue  # five of one natural rank: the deck has four
            # Cards 0-12 are the spades, ace to deuce: card i has rank slot i.
            yield sum(RANK_KEY[slot] for slot in slots) + joker


def warm_tables() -> int:
    """Fill the back-value tables completely; returns how many values it added.

    A back's value is read from two tables by rank key, each value worked out
    the first time its key is met (a few µs each: a fresh process's first
    guides and house ways cost a millisecond or more). A long-running server
    can pay for all of them once, at start, with this (a fraction of a
    second); it is never run at import, since the engine also starts in the
    browser, where start-up time matters. A second call adds nothing.

    >>> added = warm_tables()
    >>> len(_RANK_TABLE), len(_FLUSH_TABLE), warm_tables()
    (7995, 2002, 0)
    """
    return (_RANK_TABLE.fill(_five_card_rank_keys(suited=False))
            + _FLUSH_TABLE.fill(_five_card_rank_keys(suited=True)))


def back_value_from_keys(rank_key: int, suit_key: int) -> int:
    """Value of five cards from their summed RANK_KEY and SUIT_KEY (internal)."""
    if suit_key in SUITED_FIVE:
        return _FLUSH_TABLE[rank_key]
    return _RANK_TABLE[rank_key]


def back_value_of(cards: Sequence[int]) -> int:
    """Value of a five-card back given as deck indices (internal, fast).

    >>> back_value_of([0, 1, 2, 3, 4]) > back_value_of([13, 25, 24, 23, 22])
    True
    """
    a, b, c, d, e = cards
    key = RANK_KEY[a] + RANK_KEY[b] + RANK_KEY[c] + RANK_KEY[d] + RANK_KEY[e]
    suits = SUIT_BIT[a] | SUIT_BIT[b] | SUIT_BIT[c] | SUIT_BIT[d] | SUIT_BIT[e]
    if suits & (suits - 1):
        return _RANK_TABLE[key]
    return _FLUSH_TABLE[key]


def front_value_of(cards: Sequence[int]) -> int:
    """Value of a two-card front given as deck indices (internal, fast).

    >>> hex(front_value_of([52, 0])), hex(front_value_of([52, 1]))
    ('0x1ee', '0xed')
    """
    a, b = cards
    va = 14 if a == JOKER else 14 - a % 13
    vb = 14 if b == JOKER else 14 - b % 13
    if va == vb:
        return 0x100 | va << 4 | va
    return va << 4 | vb if va > vb else vb << 4 | va


# Front values of every ordered pair of cards, so the hot loops index instead of call.
FRONT_VALUES: tuple[tuple[int, ...], ...] = tuple(
    tuple(front_value_of((a, b)) if a != b else 0 for b in range(53)) for a in range(53)
)


def is_foul_values(front: int, back: int) -> bool:
    """The foul rule of §2.3 on values (internal, fast)."""
    category = back >> 20
    if category >= TWO_PAIR:
        return False
    if category == PAIR:
        # Only a higher pair in front fouls; an equal pair is legal.
        return front >= 0x100 and (front >> 4 & 15) > (back >> 16 & 15)
    return front >= 0x100 or (front & 0xFF) > (back >> 12 & 0xFF)


def _five(cards: str | Iterable[str]) -> tuple[int, ...]:
    return parse_indices(cards, count=5)


def _two(cards: str | Iterable[str]) -> tuple[int, ...]:
    return parse_indices(cards, count=2)


def back_category(five: str | Iterable[str]) -> str:
    """Category of a back, as named in rules §2.1 (lower case).

    >>> back_category("JK 6h 5c 4d 3s"), back_category("Kh Qh Jh Th JK")
    ('straight', 'royal flush')
    >>> back_category("Kh Ks JK 7d 2c")
    'pair'
    """
    return CATEGORY_NAMES[back_value_of(_five(five)) >> 20]


def _slots(value: int) -> list[int]:
    return [value >> shift & 15 for shift in (16, 12, 8, 4, 0)]


def _straight_words(key: int) -> str:
    if key == 15:
        return "ace high"
    if key == 14:
        return "ace to five"
    return RANK_WORDS[key] + " high"


def name_of_back_value(value: int) -> str:
    """A person's name for a back value (see :func:`back_name`)."""
    category = value >> 20
    r = _slots(value)
    if category == FIVE_ACES:
        return "Five aces"
    if category == ROYAL_FLUSH:
        return "Royal flush"
    if category == STRAIGHT_FLUSH:
        return "Straight flush, " + _straight_words(r[0])
    if category == FOUR_OF_A_KIND:
        return "Four of a kind, " + RANK_PLURALS[r[0]]
    if category == FULL_HOUSE:
        return f"Full house, {RANK_PLURALS[r[0]]} over {RANK_PLURALS[r[1]]}"
    if category == FLUSH:
        return f"Flush, {RANK_WORDS[r[0]]} high"
    if category == STRAIGHT:
        return "Straight, " + _straight_words(r[0])
    if category == THREE_OF_A_KIND:
        return "Three of a kind, " + RANK_PLURALS[r[0]]
    if category == TWO_PAIR:
        return f"Two pair, {RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[1]]}"
    if category == PAIR:
        return "Pair of " + RANK_PLURALS[r[0]]
    return RANK_WORDS[r[0]].capitalize() + " high"


def name_of_front_value(value: int) -> str:
    """A person's name for a front value (see :func:`front_name`)."""
    high, low = value >> 4 & 15, value & 15
    if value >= 0x100:
        return "Pair of " + RANK_PLURALS[high]
    return f"{RANK_WORDS[high].capitalize()}-{RANK_WORDS[low]}"


def back_name(five: str | Iterable[str]) -> str:
    """A person's name for a five-card back.

    >>> back_name("As Ah 8d 8c 4d"), back_name("Ah Kh 9h 3h JK")
    ('Two pair, aces and eights', 'Flush, ace high')
    >>> back_name("JK 6h 5c 4d 3s"), back_name("As Ah Ad Ac JK")
    ('Straight, seven high', 'Five aces')
    >>> back_name("9s 9h 5d 4c 2c"), back_name("Ks 9h 5d 4c 2c")
    ('Pair of nines', 'King high')
    """
    return name_of_back_value(back_value_of(_five(five)))


def front_name(two: str | Iterable[str]) -> str:
    """A person's name for a two-card front; the joker is an ace.

    >>> front_name("Kd JK"), front_name("9s 9h"), front_name("JK As")
    ('Ace-king', 'Pair of nines', 'Pair of aces')
    """
    return name_of_front_value(front_value_of(_two(two)))


def _cmp(a: int, b: int) -> int:
    return (a > b) - (a < b)


def compare_back(a: str | Iterable[str], b: str | Iterable[str]) -> int:
    """1 if back ``a`` beats back ``b``, -1 if it loses, 0 for a copy.

    >>> compare_back("As 2d 3c 4h 5s", "Ks Qd Jc Th 9s")
    1
    >>> compare_back("Kh Qh Jh Th JK", "As Ks Qs Js Ts")
    0
    """
    return _cmp(back_value_of(_five(a)), back_value_of(_five(b)))


def compare_front(a: str | Iterable[str], b: str | Iterable[str]) -> int:
    """1 if front ``a`` beats front ``b``, -1 if it loses, 0 for a copy.

    >>> compare_front("JK Kd", "Ah Kc"), compare_front("2s 2h", "As Kd")
    (0, 1)
    """
    return _cmp(front_value_of(_two(a)), front_value_of(_two(b)))


def is_foul(front: str | Iterable[str], back: str | Iterable[str]) -> bool:
    """True when the front outranks the back (rules §2.3).

    >>> is_foul("9s 9h", "Ks Qd 7c 4h 2s"), is_foul("9s 9h", "9d 9c Ah 4h 2s")
    (True, False)
    """
    return is_foul_values(front_value_of(_two(front)), back_value_of(_five(back)))


def _with_article(name: str) -> str:
    lowered = name[0].lower() + name[1:]
    return "a " + lowered if lowered.startswith("pair") else lowered


def foul_reason(front: str | Iterable[str], back: str | Iterable[str]) -> str | None:
    """Why a setting is a foul, as a sentence; None when it is legal.

    >>> foul_reason("9s 9h", "Ks Qd 7c 4h 2s")
    'Your front, a pair of nines, beats your back, king high.'
    >>> foul_reason("Ad Kd", "As Qd 7c 4h 2s")
    'Your front, ace-king, beats your back, ace-queen high.'
    >>> foul_reason("Ad Kd", "As Ac 7c 4h 2s") is None
    True
    """
    return foul_reason_of_values(front_value_of(_two(front)), back_value_of(_five(back)))


def foul_reason_of_values(fv: int, bv: int) -> str | None:
    """The sentence of :func:`foul_reason` for a front and back value (internal)."""
    if not is_foul_values(fv, bv):
        return None
    back_words = _with_article(name_of_back_value(bv))
    if bv >> 20 == HIGH_CARD and fv < 0x100:
        # Both are high cards and the tops may match, so name the two that decide.
        hi, lo = _slots(bv)[:2]
        back_words = f"{RANK_WORDS[hi]}-{RANK_WORDS[lo]} high"
    return f"Your front, {_with_article(name_of_front_value(fv))}, beats your back, {back_words}."


@dataclass(frozen=True)
class SettingDescription:
    """A setting as a player reads it: its cards (deck order), their names, and any foul."""

    front: tuple[str, ...]
    back: tuple[str, ...]
    front_name: str
    back_name: str
    foul: bool
    foul_reason: str | None


def describe_setting(front: str | Iterable[str], back: str | Iterable[str]) -> SettingDescription:
    """Names of a front and a back, and whether (and why) the setting fouls.

    The cards are only checked part by part (two, then five distinct codes).

    >>> d = describe_setting("9h 9s", "Ks Qd 7c 4h 2s")
    >>> d.front, d.front_name, d.back_name, d.foul
    (('9s', '9h'), 'Pair of nines', 'King high', True)
    >>> d.foul_reason
    'Your front, a pair of nines, beats your back, king high.'
    >>> d = describe_setting("Kd JK", "As Ac 7c 4h 2s")
    >>> d.front, d.front_name, d.back_name, d.foul, d.foul_reason
    (('Kd', 'JK'), 'Ace-king', 'Pair of aces', False, None)
    """
    f, b = _two(front), _five(back)
    fv, bv = front_value_of(f), back_value_of(b)
    reason = foul_reason_of_values(fv, bv)
    return SettingDescription(
        front=codes(f), back=codes(b),
        front_name=name_of_front_value(fv), back_name=name_of_back_value(bv),
        foul=reason is not None, foul_reason=reason,
    )


def best_five_indices(seven: Sequence[int]) -> tuple[int, ...]:
    """Best back from seven indices; the first in combination order wins ties."""
    best: tuple[int, ...] = ()
    best_value = -1
    for five in itertools.combinations(sorted(seven), 5):
        value = back_value_of(five)
        if value > best_value:
            best, best_value = five, value
    return best


def best_five(seven: str | Iterable[str]) -> tuple[str, ...]:
    """The strongest five-card back that can be made from seven cards.

    >>> best_five("As Ah 8d 8c Ks 7h 4d")
    ('As', 'Ks', 'Ah', '8d', '8c')
    """
    return codes(best_five_indices(parse_indices(seven, count=7)))


@dataclass(frozen=True)
class Setting:
    """A way to set seven cards: two in front, five in back, each in deck order."""

    front: tuple[str, ...]
    back: tuple[str, ...]


# The 21 fronts of a seven-card hand as positions, in lexicographic order.
FRONT_POSITIONS: tuple[tuple[int, int], ...] = tuple(itertools.combinations(range(7), 2))


def all_settings(seven: str | Iterable[str]) -> list[Setting]:
    """The 21 settings of seven cards, fronts in lexicographic deck order.

    >>> s = all_settings("As Ah 8d 8c Ks 7h 4d")
    >>> len(s), s[0]
    (21, Setting(front=('As', 'Ks'), back=('Ah', '7h', '8d', '4d', '8c')))
    """
    hand = parse_indices(seven, count=7)
    out = []
    for i, j in FRONT_POSITIONS:
        back = tuple(c for k, c in enumerate(hand) if k != i and k != j)
        out.append(Setting(codes((hand[i], hand[j])), codes(back)))
    return out
