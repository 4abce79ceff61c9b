"""Exact best-five category counts over all C(53, 7) = 154,143,080 seven-card hands.

Run: python3 scripts/alspach_enumeration.py

Rather than visit every hand, it visits every multiset of natural ranks
(with or without the joker) and counts suit assignments combinatorially:
a rank held c times has C(4, c) suit choices.  Only one suit can reach a
flush in seven cards, so the assignments that make a flush are counted by
choosing that suit (4 ways) and the exact set S of ranks it holds; the other
copies of each rank take suits from the remaining three, C(3, c - [r in S])
ways.  Everything else is valued by ranks alone.  Prints the counts, compares
them with Alspach's published numbers and reports the run time.
"""

from __future__ import annotations

import itertools
import sys
import time
from math import comb, prod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine.hands import CATEGORY_NAMES, _flush_reading, _rank_reading

ALSPACH = {
    "five aces": 1_128, "straight flush": 210_964, "four of a kind": 307_472,
    "full house": 4_188_528, "flush": 6_172_088, "straight": 11_236_028,
    "three of a kind": 7_470_676, "two pair": 35_553_816, "pair": 64_221_960,
    "high card": 24_780_420,
}


def best_rank_category(values: tuple[int, ...], joker: bool) -> int:
    """Best category of any five of these cards, suits ignored."""
    best = 0
    size = 4 if joker else 5
    for five in set(itertools.combinations(values, size)):
        best = max(best, _rank_reading(five, joker) >> 20)
    if joker:  # the joker may also sit out of the five
        for five in set(itertools.combinations(values, 5)):
            best = max(best, _rank_reading(five, False) >> 20)
    return best


def best_flush_category(suited: tuple[int, ...], joker: bool) -> int:
    """Best category of five cards drawn from one suit's ranks (and the joker)."""
    best = 0
    if joker:
        for four in itertools.combinations(suited, 4):
            best = max(best, _flush_reading(four, True) >> 20)
    for five in itertools.combinations(suited, 5):
        best = max(best, _flush_reading(five, False) >> 20)
    return best


def enumerate_counts() -> dict[int, int]:
    counts = dict.fromkeys(range(11), 0)
    for joker in (False, True):
        naturals = 6 if joker else 7
        for multiset in itertools.combinations_with_replacement(range(14, 1, -1), naturals):
            held = {v: multiset.count(v) for v in set(multiset)}
            if max(held.values()) > 4:
                continue
            total = prod(comb(4, c) for c in held.values())
            rank_category = best_rank_category(multiset, joker)
            flush_ways = 0
            distinct = sorted(held, reverse=True)
            for size in range(5 - joker, len(distinct) + 1):
                for suited in itertools.combinations(distinct, size):
                    ways = 4 * prod(comb(3, c - (v in suited)) for v, c in held.items())
                    if ways:
                        category = max(rank_category, best_flush_category(suited, joker))
                        counts[category] += ways
                        flush_ways += ways
            counts[rank_category] += total - flush_ways
    return counts


def main() -> None:
    start = time.perf_counter()
    counts = enumerate_counts()
    elapsed = time.perf_counter() - start
    counts[8] += counts.pop(9)  # Alspach counts royals among straight flushes
    ok = True
    for category in sorted(counts, reverse=True):
        name = CATEGORY_NAMES[category]
        match = counts[category] == ALSPACH[name]
        ok &= match
        verdict = "ok" if match else f"MISMATCH {ALSPACH[name]:,}"
        print(f"{name:>16}: {counts[category]:>12,}  {verdict}")
    total = sum(counts.values())
    print(f"{'total':>16}: {total:>12,}  {'ok' if total == comb(53, 7) else 'MISMATCH'}")
    print(f"enumerated in {elapsed:.1f} s")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
