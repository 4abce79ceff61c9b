"""Fixed, seeded random deals shared by every engine benchmark.

    python3 benchmarks/deals.py --count 100000 --seed 20240601 --out var/bench/deals.json

A deal is seven distinct cards drawn by ``random.Random(seed).sample`` from
the 53-card deck (the same draw as ``benchmarks/engine.py``'s ``deals()``),
in deck order. The JSON file holds ``{"seed", "count", "deals": [["As", ...],
...]}`` with our card codes, so CPython, Pyodide and the peers (through
``benchmarks/peers.mjs``) all see identical deals.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from games.engine.cards import DECK

SEED = 20240601


def deal_indices(count: int, seed: int = SEED) -> list[tuple[int, ...]]:
    """``count`` seven-card deals as sorted deck indices."""
    rng = random.Random(seed)
    return [tuple(sorted(rng.sample(range(53), 7))) for _ in range(count)]


def deal_codes(count: int, seed: int = SEED) -> list[list[str]]:
    return [[DECK[c] for c in hand] for hand in deal_indices(count, seed)]


def write(path: Path, count: int, seed: int = SEED) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"seed": seed, "count": count, "deals": deal_codes(count, seed)}))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, default=REPO / "var" / "bench" / "deals.json")
    args = parser.parse_args()
    print(write(args.out, args.count, args.seed))


if __name__ == "__main__":
    main()
