"""The decision cost's background estimate: CPU per hand against opponents (a script, not a test).

``games.decision_cost`` runs ``engine.cost.decision_cost`` for each player's
revealed hand on a worker: the 21 settings over the first N opponents of the
explorer's stream. For seeded random hands this prints, for several N, the
CPU time (``time.process_time``) per hand in a worker that has already
estimated other hands (the house way's pattern cache warm, the hand's stream
not: each hand is new), and with the pattern cache emptied before each hand
(a fresh worker's first hand); and the sharpness of the figure, the median
95% half-width of the paired difference between the best setting and the
runner-up (what decides "tied with the best").

    .venv/bin/python benchmarks/decision_cost.py [--hands 30] [--samples 2000,5000,10000,20000]

Medians (and min–max) over the hands; the load average is printed before and
after, since other work on the cores moves these numbers.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from games.engine.cards import DECK

COST = importlib.import_module("games.engine.cost")
EXPLORE = importlib.import_module("games.engine.explore")
HOUSE_WAY = importlib.import_module("games.engine.house_way")


def hands(count: int) -> list[str]:
    rng = random.Random(20)
    return [" ".join(rng.sample(DECK, 7)) for _ in range(count)]


def estimate(cards: str, samples: int) -> float:
    """CPU ms of one hand's estimate (its stream not remembered)."""
    EXPLORE._STREAMS.clear()
    front = HOUSE_WAY.house_way(cards).setting.front
    began = time.process_time()
    COST.decision_cost(cards, mode="solo", front=front, samples=samples)
    return (time.process_time() - began) * 1000


def runner_up_width(cards: str, samples: int) -> float:
    EXPLORE._STREAMS.clear()
    settings = EXPLORE.explore_settings(cards)
    house = next(k for k, s in enumerate(settings) if s.house_way)
    sums = COST._sums(tuple(cards.split()), "solo", "player", samples)
    rows = EXPLORE.explore_estimates(sums, house)
    return (rows[1].behind_high - rows[1].behind_low) / 2


def summary(values: list[float], unit: str = "ms", places: int = 0) -> str:
    return (f"median {statistics.median(values):.{places}f} {unit} "
            f"({min(values):.{places}f}–{max(values):.{places}f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--samples", default="2000,5000,10000,20000")
    args = parser.parse_args()
    cards_list = hands(args.hands)
    print(f"load average before: {os.getloadavg()}")
    print(f"CPython {sys.version.split()[0]}, {args.hands} hands, solo, set by the house way")
    for cards in cards_list[:5]:  # warm the pattern cache as a busy worker has it
        estimate(cards, 2000)
    for samples in (int(s) for s in args.samples.split(",")):
        warm = [estimate(cards, samples) for cards in cards_list]
        cold = []
        for cards in cards_list:
            HOUSE_WAY.PATTERN_CACHE.clear()
            cold.append(estimate(cards, samples))
        widths = [runner_up_width(cards, samples) for cards in cards_list]
        print(f"N = {samples:>6,}: worker {summary(warm)}; fresh worker {summary(cold)}; "
              f"best vs runner-up ±{statistics.median(widths):.4f} (median 95% half-width)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
