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
  suit-free), so their values were worked out once with the engine's own
  house way (:func:`~.house_way.house_way_values` on one representative hand
  each: 67,600 rank multisets and 224,653 flush patterns, about five seconds)
  and ship with the engine, sorted by value (:mod:`.exact_data`; a process
  reads them in a few hundredths of a second, the first time it needs them).

What a hand costs is then bounded by a few passes of C-level builtins over
those tables, never a Python loop over them: the weights of the 67,600 rank
multisets (three look-ups and two products each), of the flush patterns (a
row of at most 91 per suited-rank set, chained), one gather of the 458,504
weights into value order (``operator.itemgetter``) and their sums between
the values the hand's 21 settings cut: about 0.05 s of CPU a hand.

:func:`opponent_counts` is that counting core, for any set of available cards
(the tests compare it with plain enumeration on small sets). Hands that differ
only by a permutation of the four suits have the same analysis, relabelled:
:func:`exact_key` names the class, :func:`canonical` gives its representative
and the suit map, and :meth:`ExactAnalysis.relabel` / :func:`exact_for` turn
the representative's analysis into any member's.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from itertools import chain, repeat
from math import comb
from operator import add, mul, neg
from typing import Any

from . import exact_data
from .cards import DECK, INDEX, JOKER, SUITS, codes, parse_cards, parse_indices
from .exact_data import RANK_GROUPS, FlushShape, Tables
from .explore import ExploredSetting
from .hands import (
    FRONT_POSITIONS,
    back_value_of,
    front_value_of,
    is_foul_values,
    name_of_back_value,
    name_of_front_value,
)
from .house_way import house_way_indices
from .luck import check_side
from .settle import check_mode

# Every opponent of a hand: seven of the 46 cards it leaves.
OPPONENTS = comb(46, 7)

# ----------------------------------------------------------------- the counting core


def _binomials(have: list[int]) -> list[list[int]]:
    """For each rank group's code (exact_data.RANK_GROUPS): the ways to pick
    that many cards of each of its ranks from the ``have`` left of each."""
    out = []
    for group in RANK_GROUPS:
        table = [1]
        for slot in group:  # each rank's count is the next base-5 digit
            table = [comb(have[slot], n) * w for n in range(5) for w in table]
        out.append(table)
    return out


def _flush_weights(shape: FlushShape, have: list[int], masks: list[int]) -> Iterator[int]:
    """How many hands of the available cards make each flush pattern of the
    shape, in the tables' order: for each suit whose cards hold the pattern's
    suited ranks, the ways to pick its other cards off that suit."""
    ways = []
    for f in range(4):
        off = [have[slot] - (masks[f] >> slot & 1) for slot in range(13)]
        row = []
        for other in shape.others:
            w = 1
            for slot in set(other):
                w *= comb(off[slot], other.count(slot))
            row.append(w)
        ways.append(row)
    # by_suits[sub][m]: summed over the suits in the bit set ``sub``.
    by_suits = [[0] * len(shape.others)]
    for sub in range(1, 16):
        low = sub & -sub
        by_suits.append(list(map(add, by_suits[sub ^ low], ways[low.bit_length() - 1])))
    m0, m1, m2, m3 = masks
    subs = [(mask & m0 == mask) | (mask & m1 == mask) << 1 | (mask & m2 == mask) << 2
            | (mask & m3 == mask) << 3 for mask in shape.suited_masks]
    return chain.from_iterable(map(by_suits.__getitem__, subs))


def _in_order(available: Iterable[int]) -> tuple[tuple[int, ...], Tables]:
    """How many hands of the available cards make each of the tables'
    elements, listed by the elements' values: the opponents at a value of
    ``groups`` are the sum of its positions.

    Every step but a few hundred small ones is a pass of a C-level builtin
    (``map``, ``operator.itemgetter``, ``sum``) over the elements, about
    460,000 of them: those passes bound the time a hand takes."""
    cards = set(available)
    if not cards <= set(range(53)):
        raise ValueError("Available cards are deck indices, 0 to 52.")
    tables = exact_data.tables()
    joker = JOKER in cards
    have = [sum(13 * suit + slot in cards for suit in range(4)) for slot in range(13)]
    masks = [sum(1 << slot for slot in range(13) if 13 * suit + slot in cards)
             for suit in range(4)]
    (a, b, c), (ca, cb, cc) = _binomials(have), tables.codes
    # A rank multiset's hands: the product of binomials of its ranks' counts.
    weights = list(map(mul, map(mul, map(a.__getitem__, ca), map(b.__getitem__, cb)),
                       map(c.__getitem__, cc)))
    plain, with_joker = tables.rank_counts
    if not joker:
        weights[plain:] = repeat(0, with_joker)
    flush: list[int] = []
    for shape in exact_data.flush_shapes():
        if shape.joker and not joker:
            flush.extend(repeat(0, len(shape.suited_masks) * len(shape.others)))
        else:
            flush.extend(_flush_weights(shape, have, masks))
    # Each flush pattern at its own value, and taken away at its rank multiset's.
    weights += flush
    weights += map(neg, flush)
    return tables.in_order(weights), tables


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
    weights, tables = _in_order(available)
    out = {}
    for front, backs, starts in tables.groups:
        for back, lo, hi in zip(backs, starts[:-1], starts[1:], strict=True):
            w = sum(weights[lo:hi])
            if w:
                out[front, back] = w
    return out


def _tally(
    settings: list[tuple[int, int]], weights: tuple[int, ...], tables: Tables, *, solo: bool,
    dealer: bool,
) -> list[tuple[int, int, int]]:
    """:func:`setting_counts` from the weights in value order: per opponent
    front value, the settings' distinct backs cut its backs (two bisections
    each) into stretches summed once. No opponent fouls (a house way never
    does; exact_data checks its tables)."""
    copy = (1 if dealer else -1) if solo else 0
    cuts = sorted({bv for fv, bv in settings if not is_foul_values(fv, bv)})
    # below[tf][k], equal[tf][k]: the opponents of front value tf whose back
    # is below, or equal to, cuts[k]; then all of them.
    below: list[list[int]] = []
    equal: list[list[int]] = []
    every: list[int] = []
    for _, backs, starts in tables.groups:
        n, low, same, at, run = len(backs), [], [], starts[0], 0
        for bv in cuts:
            lo = bisect_left(backs, bv)
            hi = lo + 1 if lo < n and backs[lo] == bv else lo
            run += sum(weights[at:starts[lo]])
            low.append(run)
            w = sum(weights[starts[lo]:starts[hi]])
            same.append(w)
            run += w
            at = starts[hi]
        below.append(low)
        equal.append(same)
        every.append(run + sum(weights[at:starts[-1]]))
    total = sum(every)
    out = []
    for fv, bv in settings:
        if is_foul_values(fv, bv):
            out.append((0, 0, total))  # a foul loses (rules §4)
            continue
        k = cuts.index(bv)
        counted = [0, 0, 0]  # loss, push, win
        for (tf, _, _), low, same, all_ in zip(tables.groups, below, equal, every, strict=True):
            front = 1 if fv > tf else (copy if fv == tf else -1)
            for back, w in ((1, low[k]), (copy, same[k]), (-1, all_ - low[k] - same[k])):
                net = front + back
                counted[2 if net == 2 else (0 if net == -2 else 1)] += w
        out.append((counted[2], counted[1], counted[0]))
    return out


def build_tables() -> None:
    """Read the shipped pattern tables now (a few hundredths of a second, once
    a process), e.g. when a worker starts.

    >>> build_tables()
    >>> exact_data.tables().size
    458504
    """
    exact_data.tables()


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

    The first call in a process reads the pattern tables (a few hundredths
    of a second; build_tables() reads them ahead); each takes about 0.05 s.

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
    weights, tables = _in_order(c for c in range(53) if c not in held)
    fronts = [(hand[i], hand[j]) for i, j in FRONT_POSITIONS]
    backs = [tuple(c for k, c in enumerate(hand) if k != i and k != j) for i, j in FRONT_POSITIONS]
    values = [(front_value_of(f), back_value_of(b)) for f, b in zip(fronts, backs, strict=True)]
    records = _tally(values, weights, tables, solo=mode == "solo",
                     dealer=mode == "solo" and side == "dealer")
    opponents = sum(records[0])
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

