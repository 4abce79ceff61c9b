"""The exact analysis of a hand (games.engine.exact): seconds per hand (a script, not a test).

- **cold**: a fresh Python process per hand, timing its first ``exact()``,
  which reads the pattern tables (the house way of every suit-free rank
  multiset and flush pattern, games/engine/exact_tables.bin) and then counts;
  also the process's whole CPU time by then (interpreter, engine import);
- **warm**: in one process whose tables are built, ``exact()`` for every
  hand of the set, ``--rounds`` times (median per hand);
- **Pyodide in Node** (``--node``): the served engine archive through
  frontend/tools/engine-node.mjs, one ``exact`` batch request after another,
  timed from writing the line to reading the answer (the first is cold).

The set: the hands that keep the most flush-capable opponents (seven cards of
one suit, none of them the joker: three full suits left, every flush pattern
counted), other shapes (the joker held, five aces, quads, a spread no-pair)
and ``--hands`` seeded random hands (seed 20261201).

    .venv/bin/python benchmarks/exact.py [--hands 20] [--rounds 3] [--cold 3] [--node]

The machine's load average is printed before and after: other work on the
two cores moves these numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from games.engine import DECK, exact

SHAPES = [
    "2s 3s 4s 5s 6s 7s 8s",  # seven spades, no joker: the most flush patterns left
    "As Ks Qs Js Ts 9s 8s",
    "Ah Kh Qh Jh Th 9h 2h",
    "2s 3s 4s 5s 6s 7s JK",  # the joker held: no opponent has it
    "As Ah Ad Ac JK Ks Kh",  # five aces and kings
    "9s 9h 9d 9c 5s 5h Ad",  # quads and a pair
    "As Kh Qd Jc 9s 8h 7d",  # no pair, every suit
    "2c 3d 4h 7s 8c Td Qh",
]

COLD = """
import sys, time
sys.path.insert(0, {repo!r})
from games.engine import exact
t, c = time.perf_counter(), time.process_time()
exact({hand!r}, mode="solo")
print(time.perf_counter() - t, time.process_time() - c, time.process_time())
"""


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def hands(count: int) -> list[str]:
    rng = random.Random(20261201)
    return SHAPES + [" ".join(rng.sample(DECK, 7)) for _ in range(count)]


def cold(hand: str) -> tuple[float, float, float]:
    """Wall and CPU seconds of a fresh process's first analysis, and the
    process's CPU seconds from its start to the end of that analysis."""
    out = subprocess.run([sys.executable, "-c", COLD.format(repo=str(REPO), hand=hand)],
                         check=True, capture_output=True, text=True).stdout
    wall, cpu, process = out.split()
    return float(wall), float(cpu), float(process)


def warm(hand_set: list[str], rounds: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds per hand once the tables are built."""
    exact(hand_set[0], mode="solo")  # builds the tables
    times: dict[str, list[tuple[float, float]]] = {h: [] for h in hand_set}
    for _ in range(rounds):
        for h in hand_set:
            t, c = time.perf_counter(), time.process_time()
            exact(h, mode="solo")
            times[h].append((time.perf_counter() - t, time.process_time() - c))
    return {h: (statistics.median(w for w, _ in ts), statistics.median(c for _, c in ts))
            for h, ts in times.items()}


def node(hand_set: list[str]) -> list[tuple[str, float]]:
    tool = REPO / "frontend/tools/engine-node.mjs"
    proc = subprocess.Popen(["node", str(tool)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdin is not None
    assert proc.stdout is not None
    # The engine loads before it reads a line; a cheap request waits for that.
    proc.stdin.write(json.dumps({"op": "sort", "cards": "As"}) + "\n")
    proc.stdin.flush()
    proc.stdout.readline()
    out = []
    for h in hand_set:
        t = time.perf_counter()
        proc.stdin.write(json.dumps({"op": "exact", "cards": h, "mode": "solo"}) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        out.append((h, time.perf_counter() - t))
        assert answer.get("opponents") == 53_524_680, answer
    proc.stdin.close()
    proc.wait()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=20,
                        help="seeded random hands besides the shapes")
    parser.add_argument("--rounds", type=int, default=3, help="warm rounds (median per hand)")
    parser.add_argument("--cold", type=int, default=3,
                        help="fresh processes (first hands of the set)")
    parser.add_argument("--node", action="store_true", help="also Pyodide in Node (build first)")
    args = parser.parse_args()
    hand_set = hands(args.hands)
    print(f"load average before: {load()}")

    colds = [(h, *cold(h)) for h in hand_set[:args.cold]]
    for h, wall, cpu, process in colds:
        print(f"cold  {wall:7.2f} s (CPU {cpu:.2f} s, process CPU {process:.2f} s)  {h}")
    warms = warm(hand_set, args.rounds)
    ordered = sorted(warms.items(), key=lambda kv: kv[1], reverse=True)
    for h, (wall, cpu) in ordered[:5]:
        print(f"warm  {wall:7.3f} s (CPU {cpu:.3f} s)  {h}")
    for i, what in ((0, "wall"), (1, "CPU")):
        values = [v[i] for v in warms.values()]
        print(f"warm {what} over {len(values)} hands: median {statistics.median(values):.3f} s, "
              f"max {max(values):.3f} s, min {min(values):.3f} s")
    for i, what in ((1, "wall"), (2, "CPU"), (3, "process CPU (start to answer)")):
        if colds:
            values = [c[i] for c in colds]
            print(f"cold {what} over {len(colds)} processes: median "
                  f"{statistics.median(values):.2f} s, max {max(values):.2f} s")
    if args.node:
        timed = node(hand_set[:3] + hand_set[-3:])
        for h, s in timed:
            print(f"node  {s:7.2f} s  {h}")
        rest = [s for _, s in timed[1:]]
        print(f"Pyodide: first (cold) {timed[0][1]:.2f} s, then median "
              f"{statistics.median(rest):.2f} s, max {max(rest):.2f} s")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
