"""Engine speed: house-way settings per second and the latency of one luck estimate.

Run: python3 benchmarks/engine.py [--hands N] [--lucks N]

House way is timed on fixed seeded random deals (single core), first with an
empty pattern cache ("cold") and then again ("warm"); luck is the median
wall time of one 120-sample estimate over distinct seeded hands.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine.house_way import PATTERN_CACHE, house_way_indices
from games.engine.luck import luck_counts


def deals(count: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(sorted(rng.sample(range(53), 7))) for _ in range(count)]


def time_house_way(hands: list[tuple[int, ...]]) -> float:
    start = time.perf_counter()
    for hand in hands:
        house_way_indices(hand)
    return len(hands) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--lucks", type=int, default=200)
    args = parser.parse_args()
    print(f"$ python{sys.version_info.major}.{sys.version_info.minor} benchmarks/engine.py "
          f"--hands {args.hands} --lucks {args.lucks}")
    hands = deals(args.hands, seed=20240601)
    PATTERN_CACHE.clear()
    cold = time_house_way(hands)
    warm = time_house_way(hands)
    print(f"house way, cold cache: {cold:,.0f} settings/s")
    print(f"house way, warm cache: {warm:,.0f} settings/s "
          f"({len(PATTERN_CACHE):,} rank patterns cached)")
    for label, clear in (("warm pattern cache", False), ("empty pattern cache", True)):
        times = []
        for hand in deals(args.lucks, seed=7):
            if clear:
                PATTERN_CACHE.clear()  # as in a fresh browser worker
            start = time.perf_counter()
            luck_counts(hand, "solo", "player", 120)
            times.append(time.perf_counter() - start)
        print(f"luck (120 samples, {label}), median of {args.lucks}: "
              f"{statistics.median(times) * 1000:.2f} ms "
              f"(p90 {sorted(times)[int(0.9 * len(times))] * 1000:.2f} ms)")


if __name__ == "__main__":
    main()
