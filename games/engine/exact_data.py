"""The exact analysis's pattern tables, worked out once and shipped with the
engine (``exact_tables.bin`` beside this module).

The exact analysis (:mod:`.exact`) counts every opponent through suit-free
*patterns* whose house way never depends on suits:

* the **rank multisets** of seven cards (the joker one of them, or not), for
  opponents that cannot make a flush: 49,205 without the joker, 18,395 with;
* the **flush patterns** (the ranks in the one flush suit, the other at most
  two cards' ranks, the joker or not), 224,653 of them. Each is counted at its
  own house way and taken away again from its rank multiset's, which counted
  it as if it could not make a flush.

So there are 67,600 + 2 × 224,653 = 516,906 *elements*, each adding a
hand-dependent weight (how many opponents the cards left make of it) at one
(front value, back value). Working out the values is the engine's own house
way on one representative hand per pattern, 292,253 of them: about five
seconds of CPU. They are worked out once and stored (:func:`main`: after a
change to the house way, run ``python -c "from games.engine import
exact_data; exact_data.main()"``); a process reads the file the first time
it needs it (:func:`tables`, a few hundredths of a second).

The file holds what the counting needs, in the order it needs it:

* the elements sorted by (front value, back value), as the list of their
  indices (stored as differences: small within a value, so they compress);
* the distinct values in that order, grouped by front value: each group's
  back values and how many elements each has;
* the rank multisets' counts of each rank, as three codes (ranks 0-3, 4-7,
  8-12, five counts each: one look-up per code gives a product of binomials).

The flush patterns' ranks are not stored: :func:`flush_shapes` lists them in
the same order every time. The file is zlib-compressed little-endian arrays;
tests/engine/test_exact_data.py rebuilds it from the house way and compares.
"""

from __future__ import annotations

import itertools
import sys
import zlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from operator import itemgetter
from pathlib import Path
from struct import Struct

from .cards import JOKER
from .hands import is_foul_values
from .house_way import house_way_values

FILE = "exact_tables.bin"
MAGIC = b"paigow-exact-tables-v1\n"
_COUNTS = Struct("<6I")
# (suited naturals, joker) of the flush patterns: seven cards hold at most one
# suit of five naturals, or of four with the joker.
FLUSH_SHAPES = ((5, False), (6, False), (7, False), (4, True), (5, True), (6, True))
# Rank slots whose counts (0-4) make one code: 5 ** 5 = 3,125 codes at most.
RANK_GROUPS = ((0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11, 12))


def rank_multisets(joker: bool) -> list[tuple[int, ...]]:
    """The rank slots (sorted) of the 7 naturals, or 6 and the joker, that
    seven cards can hold (no rank five times), in the tables' order.

    >>> len(rank_multisets(False)), len(rank_multisets(True))
    (49205, 18395)
    """
    return [combo for combo in itertools.combinations_with_replacement(range(13), 7 - joker)
            if all(combo[i] != combo[i + 4] for i in range(len(combo) - 4))]


@dataclass(frozen=True)
class FlushShape:
    """The flush patterns with ``suited`` naturals in the flush suit, the
    ``joker`` or not, and the ``others`` (0 to 2 cards' rank slots) off it:
    pattern (s, m) is element ``s * len(others) + m`` of the shape."""

    suited: int
    joker: bool
    suited_slots: tuple[tuple[int, ...], ...]
    suited_masks: tuple[int, ...]  # bit r: rank slot r
    others: tuple[tuple[int, ...], ...]


@cache
def flush_shapes() -> tuple[FlushShape, ...]:
    """Every flush pattern, shape by shape, in the tables' order.

    >>> sum(len(f.suited_masks) * len(f.others) for f in flush_shapes())
    224653
    """
    out = []
    for suited, joker in FLUSH_SHAPES:
        slots = tuple(itertools.combinations(range(13), suited))
        out.append(FlushShape(
            suited=suited, joker=joker, suited_slots=slots,
            suited_masks=tuple(sum(1 << slot for slot in s) for s in slots),
            others=tuple(itertools.combinations_with_replacement(range(13), 7 - suited - joker)),
        ))
    return tuple(out)


# ----------------------------------------------------------------- building (slow, once)


def _rank_hand(slots: tuple[int, ...], joker: bool) -> tuple[int, ...]:
    # Suits dealt round: no suit gets three cards, so no flush is possible.
    return (*sorted(13 * (k % 4) + slot for k, slot in enumerate(slots)), *[JOKER] * joker)


def _flush_hand(suited: tuple[int, ...], other: tuple[int, ...], joker: bool) -> tuple[int, ...]:
    # Flush suit spades; the others hearts then diamonds (a pair of them gets
    # two suits), the joker last.
    hand = sorted([*suited, *(13 * (k + 1) + slot for k, slot in enumerate(other))])
    return (*hand, *[JOKER] * joker)


def element_values() -> list[tuple[int, int]]:
    """The house way's (front value, back value) of every element in order:
    rank multisets without then with the joker, flush patterns, then each
    flush pattern's rank multiset (the value it is taken away from). Several
    seconds: the engine's house way on 292,253 hands."""
    values: list[tuple[int, int]] = []
    by_ranks: dict[tuple[bool, tuple[int, ...]], tuple[int, int]] = {}
    for joker in (False, True):
        for slots in rank_multisets(joker):
            by_ranks[joker, slots] = house_way_values(_rank_hand(slots, joker))
            values.append(by_ranks[joker, slots])
    taken: list[tuple[int, int]] = []
    for shape in flush_shapes():
        for suited in shape.suited_slots:
            for other in shape.others:
                values.append(house_way_values(_flush_hand(suited, other, shape.joker)))
                taken.append(by_ranks[shape.joker, tuple(sorted(suited + other))])
    if any(is_foul_values(*v) for v in values):
        raise AssertionError("A house way fouled: the counting assumes no opponent does.")
    return values + taken


def _rank_codes() -> list[array[int]]:
    codes: list[array[int]] = [array("H") for _ in RANK_GROUPS]
    for joker in (False, True):
        for slots in rank_multisets(joker):
            for group, out in zip(RANK_GROUPS, codes, strict=True):
                out.append(sum(slots.count(slot) * 5 ** k for k, slot in enumerate(group)))
    return codes


def _le(a: array[int]) -> bytes:
    if sys.byteorder == "big":  # pragma: no cover - the engine's hosts are little-endian
        a = array(a.typecode, a)
        a.byteswap()
    return a.tobytes()


def tables_build() -> bytes:
    """The file's bytes, worked out from the engine's house way (slow)."""
    values = element_values()
    n_ranks = len(rank_multisets(False)) + len(rank_multisets(True))
    n_flush = (len(values) - n_ranks) // 2
    # A flush pattern the house way sets as its ranks alone would is added
    # and taken away at one value: neither is listed.
    kept = [i for i in range(len(values))
            if i < n_ranks or values[i] != values[i + (n_flush if i < n_ranks + n_flush
                                                       else -n_flush)]]
    order = sorted(kept, key=values.__getitem__)
    fronts, group_runs, backs, lengths = array("I"), array("I"), array("I"), array("I")
    previous: tuple[int, int] | None = None
    for i in order:
        value = values[i]
        if value != previous:
            if previous is None or value[0] != previous[0]:
                fronts.append(value[0])
                group_runs.append(0)
            group_runs[-1] += 1
            backs.append(value[1])
            lengths.append(0)
            previous = value
        lengths[-1] += 1
    deltas = array("i", [order[0], *(b - a for a, b in itertools.pairwise(order))])
    codes = _rank_codes()
    head = _COUNTS.pack(len(rank_multisets(False)), len(rank_multisets(True)), n_flush,
                        len(fronts), len(backs), len(order))
    body = b"".join(_le(a) for a in (fronts, group_runs, backs, lengths, deltas, *codes))
    return MAGIC + zlib.compress(head + body, 9)


# ----------------------------------------------------------------- reading (each process)


@dataclass(frozen=True)
class Tables:
    """The stored tables, ready to count with.

    ``in_order(weights)`` lists the weights of the elements (indexed rank
    multisets, flush patterns, flush patterns taken away) by value, ``size``
    of them; ``groups`` has one entry per opponent front value: (front value,
    its back values ascending, the positions in that list where each back
    value's elements start, then where the last ends). ``codes`` are the rank
    multisets' three rank-group codes.
    """

    rank_counts: tuple[int, int]
    flush_count: int
    size: int
    in_order: Callable[[list[int]], tuple[int, ...]]
    groups: tuple[tuple[int, array[int], array[int]], ...]
    codes: tuple[array[int], array[int], array[int]]


def tables_parse(data: bytes) -> Tables:
    """The tables from the file's bytes."""
    if not data.startswith(MAGIC):
        raise ValueError(f"{FILE} is not this engine's exact tables.")
    raw = zlib.decompress(data[len(MAGIC):])
    n_plain, n_joker, n_flush, n_groups, n_runs, n_elements = _COUNTS.unpack_from(raw)
    n_ranks = n_plain + n_joker
    offset = _COUNTS.size
    arrays = []
    for code, n in (("I", n_groups), ("I", n_groups), ("I", n_runs), ("I", n_runs),
                    ("i", n_elements), ("H", n_ranks), ("H", n_ranks), ("H", n_ranks)):
        a = array(code)
        a.frombytes(raw[offset:offset + n * a.itemsize])
        if sys.byteorder == "big":  # pragma: no cover
            a.byteswap()
        offset += n * a.itemsize
        arrays.append(a)
    fronts, group_runs, backs, lengths, deltas, *codes = arrays
    if offset != len(raw) or n_elements > n_ranks + 2 * n_flush:
        raise ValueError(f"{FILE} is damaged.")
    # One C-level gather a hand (operator.itemgetter of every index at once).
    in_order = itemgetter(*itertools.accumulate(deltas))
    # Arrays, not lists: a third of the memory the tables keep.
    starts = array("I", itertools.accumulate(lengths, initial=0))
    groups = []
    run = 0
    for front, runs in zip(fronts, group_runs, strict=True):
        groups.append((front, backs[run:run + runs], starts[run:run + runs + 1]))
        run += runs
    return Tables(rank_counts=(n_plain, n_joker), flush_count=n_flush, size=n_elements,
                  in_order=in_order,
                  groups=tuple(groups), codes=(codes[0], codes[1], codes[2]))


@cache
def tables() -> Tables:
    """The shipped tables, read once a process (the engine's own file, found
    beside this module whether the engine is a folder or unpacked in Pyodide).

    >>> t = tables()
    >>> t.size, sum(len(backs) for _, backs, _ in t.groups)
    (458504, 158582)
    """
    return tables_parse(resources.files(__package__ or "games.engine").joinpath(FILE).read_bytes())


def main() -> None:
    """Rebuild the file from the house way (after a change to it)."""
    path = Path(__file__).with_name(FILE)
    path.write_bytes(tables_build())
    sys.stdout.write(f"wrote {path} ({path.stat().st_size:,} bytes)\n")

