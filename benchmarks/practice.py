"""What a practice hand costs the server: dealing a drill, and the sampled
analysis of its 21 settings (engine.practice.sampled_analysis, the same
opponents for all 21) at a few opponent counts.

    .venv/bin/python benchmarks/practice.py [--hands 20 --opponents 5000,20000,50000]

For ``--hands`` hands of each drill (seeded, so every run deals the same
hands), times the deal (``engine.deal_drill``) and each analysis on a fresh
stream (the explorer's stream memo is cleared: a new hand never continues one).
Prints the median and the worst per drill and overall, in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import DRILLS, deal_drill, sampled_analysis
from games.engine.explore import _STREAMS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--opponents", default="5000,20000,50000")
    args = parser.parse_args()
    counts = [int(n) for n in args.opponents.split(",")]
    rng = random.Random(2024)
    deal_ms: list[float] = []
    analysis_ms: dict[int, list[float]] = {n: [] for n in counts}
    print(f"{'drill':<22}" + "".join(f"{n:>16,}" for n in counts) + "   (median / worst ms)")
    for drill in DRILLS:
        mine: dict[int, list[float]] = {n: [] for n in counts}
        for _ in range(args.hands):
            started = time.perf_counter()
            hand = deal_drill(drill, rng)
            deal_ms.append((time.perf_counter() - started) * 1000)
            for n in counts:
                _STREAMS.clear()
                started = time.perf_counter()
                sampled_analysis(hand, opponents=n)
                mine[n].append((time.perf_counter() - started) * 1000)
        for n in counts:
            analysis_ms[n] += mine[n]
        print(f"{drill:<22}" + "".join(
            f"{statistics.median(mine[n]):>9.0f} / {max(mine[n]):>4.0f}" for n in counts))
    print(f"{'all drills':<22}" + "".join(
        f"{statistics.median(analysis_ms[n]):>9.0f} / {max(analysis_ms[n]):>4.0f}"
        for n in counts))
    print(f"deal_drill: median {statistics.median(deal_ms):.3f} ms, worst {max(deal_ms):.3f} ms")


if __name__ == "__main__":
    main()
