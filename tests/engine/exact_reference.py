"""Today's exact counting, kept as the tests' reference for the shipped tables.

The exact analysis before its tables were stored (games/engine/exact.py as of
d7ae7b4): every pattern's house way worked out in the process (several
seconds, once per test session), then one Python pass over the patterns per
hand into a dictionary of (front value, back value) counts. Slow and plain:
tests/engine/test_exact.py checks the fast path against it.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterable
from math import comb

from games.engine.cards import JOKER
from games.engine.hands import RANK_KEY
from games.engine.house_way import house_way_values

# A pattern's house-way values packed in one int: front << 24 | back.
_BACK_BITS = 24
_BACK_MASK = (1 << _BACK_BITS) - 1
# BINOM[n][k] for the few cards of one rank (n <= 4) a pattern can take.
_BINOM = tuple(tuple(comb(n, k) for k in range(8)) for n in range(5))
_JOKER_KEY = RANK_KEY[JOKER]


def _pack(values: tuple[int, int]) -> int:
    return values[0] << _BACK_BITS | values[1]


# ----------------------------------------------------------------- the pattern tables


class _RankTable:
    """The rank multisets of seven cards (the joker one of them, or not).

    ``terms[i]`` is multiset i as bytes, one ``8 * slot + count`` per rank
    slot it holds (compact: 68,000 of them stay in memory), ``keys[i]`` its
    rank key (hands.RANK_KEY summed), ``values[i]`` the packed house way of
    any hand with those ranks that cannot make a flush.
    """

    def __init__(self, joker: bool) -> None:
        self.terms: list[bytes] = []
        self.keys: list[int] = []
        self.values = array("q")
        for combo in itertools.combinations_with_replacement(range(13), 7 - joker):
            counted: dict[int, int] = {}
            for slot in combo:
                counted[slot] = counted.get(slot, 0) + 1
            if max(counted.values()) > 4:
                continue
            # A representative that cannot make a flush: suits dealt round,
            # so no suit gets more than two cards and one rank's are distinct.
            hand = sorted(13 * (k % 4) + slot for k, slot in enumerate(combo))
            hand += [JOKER] * joker
            self.terms.append(bytes(8 * slot + n for slot, n in counted.items()))
            self.keys.append(sum(RANK_KEY[c] for c in hand))
            self.values.append(_pack(house_way_values(tuple(hand))))


class _FlushTable:
    """The flush patterns with ``suited`` naturals in the flush suit, ``joker``
    or not, and the rest (0 to 2 cards) off that suit.

    ``suited_masks[s]`` (bit r: rank slot r) and ``suited_keys[s]`` describe
    the suited ranks, ``others[m]`` the other cards' rank multiset (sorted
    slots) and ``other_keys[m]`` its rank key; ``values[s * len(others) + m]``
    is the packed house way of the pattern (s, m).
    """

    def __init__(self, suited: int, joker: bool) -> None:
        self.joker = joker
        rest = 7 - suited - joker
        self.suited_masks: list[int] = []
        self.suited_keys: list[int] = []
        self.others = list(itertools.combinations_with_replacement(range(13), rest))
        self.other_keys = [sum(RANK_KEY[slot] for slot in m) for m in self.others]
        self.values = array("q")
        for suit_slots in itertools.combinations(range(13), suited):
            self.suited_masks.append(sum(1 << slot for slot in suit_slots))
            self.suited_keys.append(sum(RANK_KEY[slot] for slot in suit_slots))
            for m in self.others:
                # Flush suit spades; the others hearts then diamonds (a pair of
                # them gets two suits), the joker last.
                hand = sorted([*suit_slots, *(13 * (k + 1) + slot for k, slot in enumerate(m))])
                hand += [JOKER] * joker
                self.values.append(_pack(house_way_values(tuple(hand))))


_RANK_TABLES: dict[bool, _RankTable] = {}
_FLUSH_TABLES: dict[tuple[int, bool], _FlushTable] = {}
_FLUSH_SHAPES = ((5, False), (6, False), (7, False), (4, True), (5, True), (6, True))


def _rank_table(joker: bool) -> _RankTable:
    if joker not in _RANK_TABLES:
        _RANK_TABLES[joker] = _RankTable(joker)
    return _RANK_TABLES[joker]


def _flush_table(suited: int, joker: bool) -> _FlushTable:
    if (suited, joker) not in _FLUSH_TABLES:
        _FLUSH_TABLES[suited, joker] = _FlushTable(suited, joker)
    return _FLUSH_TABLES[suited, joker]


def opponent_counts(available: Iterable[int]) -> dict[tuple[int, int], int]:
    """exact.opponent_counts as it was: one pass over the patterns per call."""
    cards = set(available)
    if not cards <= set(range(53)):
        raise ValueError("Available cards are deck indices, 0 to 52.")
    joker = JOKER in cards
    have = [sum(13 * suit + slot in cards for suit in range(4)) for slot in range(13)]
    masks = [sum(1 << slot for slot in range(13) if 13 * suit + slot in cards)
             for suit in range(4)]
    packed: dict[int, int] = {}
    flush_by_key: dict[int, int] = {}

    for suited, with_joker in _FLUSH_SHAPES:
        if with_joker and not joker:
            continue
        table = _flush_table(suited, with_joker)
        jk = _JOKER_KEY if with_joker else 0
        # ways[f][m]: the other cards' ranks m picked off suit f.
        ways = []
        for f in range(4):
            off = [have[slot] - (masks[f] >> slot & 1) for slot in range(13)]
            row = []
            for other in table.others:
                w = 1
                for slot in set(other):
                    w *= _BINOM[off[slot]][other.count(slot)]
                row.append(w)
            ways.append(row)
        # by_suits[sub][m]: summed over the suits in the bit set ``sub``.
        by_suits = [[sum(ways[f][m] for f in range(4) if sub >> f & 1)
                     for m in range(len(table.others))] for sub in range(16)]
        n_others, values, other_keys = len(table.others), table.values, table.other_keys
        for s, (mask, suited_key) in enumerate(
                zip(table.suited_masks, table.suited_keys, strict=True)):
            sub = sum(1 << f for f in range(4) if mask & masks[f] == mask)
            if not sub:
                continue
            weights, base, key = by_suits[sub], s * n_others, suited_key + jk
            for m in range(n_others):
                w = weights[m]
                if w:
                    v = values[base + m]
                    packed[v] = packed.get(v, 0) + w
                    k = key + other_keys[m]
                    flush_by_key[k] = flush_by_key.get(k, 0) + w

    for with_joker in (False, True):
        if with_joker and not joker:
            continue
        ranks = _rank_table(with_joker)
        # picks[8 * slot + count]: the ways to take count cards of that rank.
        picks = [_BINOM[have[code >> 3]][code & 7] if code & 7 < 5 else 0
                 for code in range(8 * 13)]
        for terms, key, v in zip(ranks.terms, ranks.keys, ranks.values, strict=True):
            w = 1
            for code in terms:
                w *= picks[code]
                if not w:
                    break
            else:
                w -= flush_by_key.get(key, 0)
                if w:
                    packed[v] = packed.get(v, 0) + w
    return {(v >> _BACK_BITS, v & _BACK_MASK): w for v, w in packed.items()}


def exact_rows(
    hand: tuple[int, ...], counts: dict[tuple[int, int], int], *, mode: str, side: str
) -> list[tuple[str, int, int, int]]:
    """Each setting's front and (wins, pushes, losses) as the old exact()
    counted them: the opponent ``counts`` of the cards the hand leaves, then
    exact.setting_counts."""
    from games.engine.cards import codes
    from games.engine.exact import setting_counts
    from games.engine.hands import FRONT_POSITIONS, back_value_of, front_value_of

    fronts = [(hand[i], hand[j]) for i, j in FRONT_POSITIONS]
    values = [(front_value_of(f), back_value_of(tuple(c for c in hand if c not in f)))
              for f in fronts]
    records = setting_counts(values, counts, solo=mode == "solo",
                             dealer=mode == "solo" and side == "dealer")
    return sorted((" ".join(codes(f)), *r) for f, r in zip(fronts, records, strict=True))
