"""What the guide (engine.guide) adds to a seat's view: µs per build, and per frame sent.

    .venv/bin/python benchmarks/guide_cost.py [--deals 300 --rounds 7]

For ``--deals`` random deals, builds both seats' views while they choose
(``engine.seat_view``: the guide's 21 settings) without the guide, with it on
a cold memo (the deal's first frame) and with it warm (every later frame of
the deal), and the same views serialized as the socket does
(``json.dumps(..., separators=(",", ":"))``). The rounds are interleaved;
the medians (and the best round: the machine is shared) per view are printed,
with the frame's size.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import DealSnapshot, SeatState, deal_hands, seat_view, shuffle_deck
from games.engine import view as view_module
from games.engine.guide import guide_of_indices, guide_view


def _snapshots(count: int, seed: int) -> list[DealSnapshot]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = shuffle_deck(rng)
        a, b = deal_hands(deck)
        out.append(DealSnapshot((SeatState(a), SeatState(b)), False, "c0ffee", deck, "s"))
    return out


def _time(snaps: list[DealSnapshot], build: Callable[[DealSnapshot, int], object]) -> float:
    started = time.perf_counter()
    for snap in snaps:
        build(snap, 0)
        build(snap, 1)
    return (time.perf_counter() - started) / (2 * len(snaps)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    def sent(snap: DealSnapshot, seat: int) -> str:
        return json.dumps(seat_view(snap, seat), separators=(",", ":"))

    def without_guide(build: Callable[[DealSnapshot, int], object]) -> Callable[..., object]:
        def run(snap: DealSnapshot, seat: int) -> object:
            view_module.guide_view = lambda *a, **k: None  # type: ignore[assignment]
            try:
                return build(snap, seat)
            finally:
                view_module.guide_view = guide_view
        return run

    times: dict[str, list[float]] = {}
    for round_ in range(args.rounds):
        snaps = _snapshots(args.deals, seed=round_)
        guide_of_indices.cache_clear()
        for name, build in (
            ("view, no guide", without_guide(seat_view)),
            ("view, guide cold", seat_view),
            ("view, guide warm", seat_view),
            ("frame, no guide", without_guide(sent)),
            ("frame, guide warm", sent),
        ):
            times.setdefault(name, []).append(_time(snaps, build))
    size = len(sent(_snapshots(1, 0)[0], 0))
    for name, values in times.items():
        print(f"{name:18s} median {statistics.median(values):7.1f} µs, best "
              f"{min(values):7.1f} µs a seat view")
    base = statistics.median(times["frame, no guide"])
    warm = statistics.median(times["frame, guide warm"])
    print(f"a frame with the guide: {size} bytes; warm frame costs {warm - base:.1f} µs more "
          f"({warm / base:.1f}× the view without it)")


if __name__ == "__main__":
    main()
