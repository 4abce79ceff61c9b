"""The exact analysis of a hand: every setting against every possible opponent.

For seven cards, each of the 21 settings meets every one of the
C(46, 7) = 53,524,680 hands the other side could hold, each set by the house
way (rules §3) and settled with the table's mode (rules §4: solo copies go to
the dealer, fouls lose, two fouls push). Expected score = (wins + pushes / 2)
/ 53,524,680, exactly as the sampling explorer (:mod:`.explore`) estimates it.

How 53 million opponents are counted in well under a second, every one exactly once:

* An opponent that **cannot make a flush** (no suit holding five naturals, or
  four and the joker) is valued by its ranks alone, straights included, so its
  house way's front and back values depend only on its rank multiset. The
  hands of one rank multiset are counted, not listed: the product over ranks
  of C(available cards of that rank, how many the multiset has), less those
  of them that can make a flush (counted next).
* An opponent that **can make a flush** has exactly one flush suit (seven
  cards hold at most one suit of five naturals, or of four with the joker).
  Its house way depends only on the ranks in that suit, the ranks of its
  other (at most two) cards and the joker: their suits cannot complete a
  flush. So it is counted by that pattern, for each suit where the pattern's
  suited ranks are all available, times the ways to pick its other cards from
  the other three suits.
* Both kinds of pattern have the same house way whatever the suits (they are
  suit-free), so their values are worked out once per process with the
  engine's own house way (:func:`~.house_way.house_way_values` on one
  representative hand each: about 68,000 rank multisets and 225,000 flush
  patterns, several seconds the first time) and kept; each analysis then only
  multiplies binomials and adds.

:func:`opponent_counts` is that counting core, for any set of available cards
(the tests compare it with plain enumeration on small sets). Hands that differ
only by a permutation of the four suits have the same analysis, relabelled:
:func:`exact_key` names the class, :func:`canonical` gives its representative
and the suit map, and :meth:`ExactAnalysis.relabel` / :func:`exact_for` turn
the representative's analysis into any member's.
"""

from __future__ import annotations

import itertools
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from math import comb
from typing import Any

from .cards import DECK, INDEX, JOKER, SUITS, codes, parse_cards, parse_indices
from .explore import ExploredSetting
from .hands import (
    FRONT_POSITIONS,
    RANK_KEY,
    back_value_of,
    front_value_of,
    is_foul_values,
    name_of_back_value,
    name_of_front_value,
)
from .house_way import house_way_indices, house_way_values
from .luck import check_side
from .settle import check_mode

# Every opponent of a hand: seven of the 46 cards it leaves.
OPPONENTS = comb(46, 7)

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


def build_tables() -> None:
    """Work out every pattern's house way now (several seconds, once a process),
    e.g. when a worker starts, so its first analysis takes as long as the rest.

    >>> build_tables()
    >>> sum(len(t.values) for t in _FLUSH_TABLES.values()), len(_RANK_TABLES[False].values)
    (224653, 49205)
    """
    for joker in (False, True):
        _rank_table(joker)
    for suited, joker in _FLUSH_SHAPES:
        _flush_table(suited, joker)


# ----------------------------------------------------------------- the counting core


def opponent_counts(available: Iterable[int]) -> dict[tuple[int, int], int]:
    """How many seven-card hands from ``available`` (deck indices) the house way
    sets at each (front value, back value): every hand counted exactly once.

    The analysis uses the 46 cards a hand leaves; any other set works the same
    way, which is how the tests check this against plain enumeration.

    >>> from math import comb
    >>> counts = opponent_counts(range(13))  # the spades: every hand a flush
    >>> sum(counts.values()) == comb(13, 7)
    True
    >>> counts[front_value_of((5, 6)), back_value_of((0, 1, 2, 3, 4))]  # 9-8 | royal flush
    1
    """
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


def setting_counts(
    settings: list[tuple[int, int]], counts: Mapping[tuple[int, int], int], *, solo: bool,
    dealer: bool,
) -> list[tuple[int, int, int]]:
    """Wins, pushes and losses of each setting (front and back values) against
    opponents counted by their (front value, back value), as
    :func:`~games.engine.luck.tally` would count them one by one (rules §4:
    ``solo`` copies go to the dealer, ``dealer`` means the setting is the
    dealer's; fouls lose, two fouls push).

    >>> from .cards import parse_indices as cards
    >>> kk = (front_value_of(cards("Ks Kh")), back_value_of(cards("As Ah 9s 9h 2c")))
    >>> k9 = (front_value_of(cards("9d 8d")), back_value_of(cards("Kd Ks 7c 6c 4h")))
    >>> mine = [(front_value_of(cards("Ac Kh")), back_value_of(cards("Qc Jc Tc 9d 9s"))),
    ...         (front_value_of(cards("Qd Qs")), back_value_of(cards("Kc 8d 7d 6s 3s")))]
    >>> setting_counts(mine, {kk: 3, k9: 2}, solo=True, dealer=False)  # the second fouls
    [(0, 2, 3), (0, 0, 5)]
    """
    fouled = 0
    by_front: dict[int, list[tuple[int, int]]] = {}
    for (tf, tb), w in counts.items():
        if is_foul_values(tf, tb):
            fouled += w
        else:
            by_front.setdefault(tf, []).append((tb, w))
    total = fouled + sum(w for group in by_front.values() for _, w in group)
    groups = []
    for tf, group in by_front.items():
        group.sort()
        cumulative = [0]
        for _, w in group:
            cumulative.append(cumulative[-1] + w)
        groups.append((tf, [b for b, _ in group], cumulative))
    copy = (1 if dealer else -1) if solo else 0
    out = []
    for fv, bv in settings:
        if is_foul_values(fv, bv):
            # A foul loses, except to a foul (rules §4).
            out.append((0, fouled, total - fouled))
            continue
        counted = [0, 0, fouled]  # loss, push, win
        for tf, backs, cumulative in groups:
            front = 1 if fv > tf else (copy if fv == tf else -1)
            lo, hi = bisect_left(backs, bv), bisect_right(backs, bv)
            for back, w in ((1, cumulative[lo]), (copy, cumulative[hi] - cumulative[lo]),
                            (-1, cumulative[-1] - cumulative[hi])):
                net = front + back
                counted[2 if net == 2 else (0 if net == -2 else 1)] += w
        out.append((counted[2], counted[1], counted[0]))
    return out


# ----------------------------------------------------------------- the analysis


# One setting and its exact record against every opponent: the explorer's row
# (``expected`` = (2 × wins + pushes) / (2 × opponents)), the same fields.
ExactSetting = ExploredSetting


def _order(rows: Iterable[ExactSetting]) -> tuple[ExactSetting, ...]:
    # Best first; equal scores: the house way, then the front's deck indices.
    return tuple(sorted(rows, key=lambda r: (-(2 * r.wins + r.pushes), not r.house_way,
                                             tuple(INDEX[c] for c in r.front))))


_ROW_FIELDS = ("front", "back", "front_name", "back_name", "foul", "wins", "pushes", "losses",
               "expected", "house_way")


@dataclass(frozen=True)
class ExactAnalysis:
    """The 21 settings of a hand with their exact records, best first.

    Equal scores keep the house way first, then the front's deck indices in
    order (as :class:`~games.engine.explore.Exploration`).
    """

    opponents: int
    settings: tuple[ExactSetting, ...]

    @property
    def best(self) -> ExactSetting:
        """The setting with the highest expected score."""
        return self.settings[0]

    @property
    def house_way(self) -> ExactSetting:
        """The row of the house-way setting."""
        return next(s for s in self.settings if s.house_way)

    def to_json(self) -> dict[str, Any]:
        """The batch op's answer: codes joined by spaces, as the explorer's rows."""
        return {"opponents": self.opponents, "settings": [
            {"front": " ".join(s.front), "back": " ".join(s.back), "front_name": s.front_name,
             "back_name": s.back_name, "foul": s.foul, "wins": s.wins, "pushes": s.pushes,
             "losses": s.losses, "expected": s.expected, "house_way": s.house_way}
            for s in self.settings]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExactAnalysis:
        """The analysis :meth:`to_json` wrote (for a cache).

        >>> a = ExactAnalysis(1, (ExactSetting(("As", "Ks"), ("Qs", "Js", "Ts", "9s", "8s"),
        ...     "Ace-king", "Straight flush, queen high", False, 1, 0, 0, 1.0, True),))
        >>> ExactAnalysis.from_json(a.to_json()) == a
        True
        """
        rows = []
        for row in data["settings"]:
            fields = {name: row[name] for name in _ROW_FIELDS}
            fields["front"] = tuple(str(row["front"]).split())
            fields["back"] = tuple(str(row["back"]).split())
            rows.append(ExactSetting(**fields))
        return cls(opponents=int(data["opponents"]), settings=tuple(rows))

    def relabel(self, suit_map: Mapping[str, str]) -> ExactAnalysis:
        """The same analysis for the hand whose cards are these with each suit
        ``x`` written ``suit_map[x]`` (a permutation of ``s h d c``).

        Counts carry over (the opponents' house ways ignore suit names); the
        cards are written in deck order again, the house-way row is the new
        hand's own (the §3 tiebreak on deck indices may pick another of equal
        values), and equal scores are ordered again by the new deck indices.

        >>> a = exact("As Ah Ad Ac JK Ks Kh", mode="solo")
        >>> b = a.relabel({"s": "c", "h": "d", "d": "h", "c": "s"})
        >>> b.house_way.front, b.house_way.back
        (('Kd', 'Kc'), ('As', 'Ah', 'Ad', 'Ac', 'JK'))
        >>> (b.house_way.wins, b.house_way.losses) == (a.house_way.wins, a.house_way.losses)
        True
        """
        if sorted(suit_map) != sorted(SUITS) or sorted(suit_map.values()) != sorted(SUITS):
            raise ValueError("A suit map sends each of s, h, d and c to a different suit.")

        def moved(cards: tuple[str, ...]) -> tuple[str, ...]:
            out = [c if c == "JK" else c[0] + suit_map[c[1]] for c in cards]
            return tuple(sorted(out, key=INDEX.__getitem__))

        rows = [replace(s, front=moved(s.front), back=moved(s.back)) for s in self.settings]
        hand = parse_indices(rows[0].front + rows[0].back, count=7)
        hw_front = codes(house_way_indices(hand)[0])
        return replace(self, settings=_order(replace(r, house_way=r.front == hw_front)
                                             for r in rows))


def exact(seven: str | Iterable[str], *, mode: str, side: str = "player") -> ExactAnalysis:
    """Every setting of seven cards against every opponent the other 46 cards
    allow, each set by the house way (``mode`` solo or friend; ``side`` player
    or, in solo, dealer: who gets the copies).

    The first call in a process builds the pattern tables (several seconds);
    later calls take a fraction of a second (build_tables() builds them ahead).

    >>> a = exact("As Ah Ad Ac JK 3s 2h", mode="friend")
    >>> a.opponents, len(a.settings), sum(s.house_way for s in a.settings)
    (53524680, 21, 1)
    >>> all(s.wins + s.pushes + s.losses == a.opponents for s in a.settings)
    True
    >>> low = next(s for s in a.settings if s.front == ("3s", "2h"))  # five aces, 3-2 in front
    >>> low.back_name, (low.wins, low.pushes, low.losses), low.expected
    ('Five aces', (0, 53524680, 0), 0.5)
    """
    hand = parse_indices(seven, count=7)
    check_mode(mode)
    check_side(mode, side)
    held = set(hand)
    counts = opponent_counts(c for c in range(53) if c not in held)
    opponents = sum(counts.values())
    fronts = [(hand[i], hand[j]) for i, j in FRONT_POSITIONS]
    backs = [tuple(c for k, c in enumerate(hand) if k != i and k != j) for i, j in FRONT_POSITIONS]
    values = [(front_value_of(f), back_value_of(b)) for f, b in zip(fronts, backs, strict=True)]
    records = setting_counts(values, counts, solo=mode == "solo",
                             dealer=mode == "solo" and side == "dealer")
    hw_front, _ = house_way_indices(hand)
    rows = []
    for front, back, (fv, bv), (wins, pushes, losses) in zip(fronts, backs, values, records,
                                                             strict=True):
        rows.append(ExactSetting(
            front=codes(front), back=codes(back), front_name=name_of_front_value(fv),
            back_name=name_of_back_value(bv), foul=is_foul_values(fv, bv), wins=wins,
            pushes=pushes, losses=losses, expected=(2 * wins + pushes) / (2 * opponents),
            house_way=front == hw_front,
        ))
    return ExactAnalysis(opponents=opponents, settings=_order(rows))


# ----------------------------------------------------------------- suit classes

_SUIT_ORDERS = tuple(itertools.permutations(SUITS))


def canonical(seven: str | Iterable[str]) -> tuple[str, dict[str, str]]:
    """The representative of the hand's suit class and the suit map back.

    The representative is the relabelling of the four suits whose cards, as
    deck indices in order, come first; the map sends each of its suits to the
    hand's, so ``exact(rep, ...).relabel(suit_map)`` is the hand's analysis.

    >>> canonical("Kd Qd 7c 7h 2d 3c JK")
    ('Ks Qs 2s 7h 3h 7d JK', {'s': 'd', 'h': 'c', 'd': 'h', 'c': 's'})
    >>> canonical("Ks Qs 2s 7h 3h 7d JK")[0]
    'Ks Qs 2s 7h 3h 7d JK'
    """
    hand = parse_indices(seven, count=7)
    best: tuple[int, ...] | None = None
    best_map: dict[str, str] = {}
    for order in _SUIT_ORDERS:
        # order[k] is the hand's suit that becomes the k-th suit.
        to_rep = {hand_suit: SUITS[k] for k, hand_suit in enumerate(order)}
        mapped = tuple(sorted(
            JOKER if c == JOKER else INDEX[DECK[c][0] + to_rep[DECK[c][1]]] for c in hand))
        if best is None or mapped < best:
            best, best_map = mapped, {rep: hand_suit for hand_suit, rep in to_rep.items()}
    assert best is not None
    return " ".join(codes(best)), dict(sorted(best_map.items(), key=lambda kv: SUITS.index(kv[0])))


def exact_key(seven: str | Iterable[str], *, mode: str, side: str = "player") -> str:
    """The name of the hand's suit class for a mode and side (a cache key): the
    same for every hand that differs from it only by a permutation of suits.

    >>> exact_key("Kd Qd 7c 7h 2d 3c JK", mode="solo", side="dealer")
    'paigow-exact-v1|solo|dealer|Ks Qs 2s 7h 3h 7d JK'
    >>> exact_key("Ks Qs 2s 7h 3h 7d JK", mode="solo", side="dealer")
    'paigow-exact-v1|solo|dealer|Ks Qs 2s 7h 3h 7d JK'
    """
    check_mode(mode)
    check_side(mode, side)
    return f"paigow-exact-v1|{mode}|{side}|{canonical(seven)[0]}"


def exact_for(seven: str | Iterable[str], class_analysis: ExactAnalysis) -> ExactAnalysis:
    """The hand's own analysis from the analysis of its class's representative
    (``exact(canonical(seven)[0], ...)``, same mode and side).

    >>> rep = exact(canonical("Kh Kd Ac Ah Ad As JK")[0], mode="friend")
    >>> mine = exact_for("Kh Kd Ac Ah Ad As JK", rep)
    >>> mine.house_way.front
    ('Kh', 'Kd')
    """
    _, suit_map = canonical(seven)
    analysis = class_analysis.relabel(suit_map)
    rows = analysis.settings
    if set(rows[0].front + rows[0].back) != set(parse_cards(seven, count=7)):
        raise ValueError("That analysis is not of this hand's suit class.")
    return analysis

