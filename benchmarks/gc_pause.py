"""A web process's full garbage collection: how long it stops every socket.

    .venv/bin/python benchmarks/gc_pause.py [--hands 2048 --rounds 7]

CPython's cyclic collector visits every object it tracks; a full (oldest
generation) collection holds the GIL throughout, so every socket of the
process waits for it. Under load (``load.py``, 300 tables) the daphnes made
one every 15 s or so, of 100-300 ms, and they were most of p99
(docs/benchmarks.md, "Sixteenth round").

This script builds a web process's long-lived heap in one process: the site
imported as the server imports it (``paigow_site.asgi``), the engine's tables
warmed, and the views of ``--hands`` random dealt hands built (each hand's
guide memoised, as a server holds its tables' hands; 2,048 is the frames'
memo). It then times full collections (``gc.collect()``; medians and the
spread of ``--rounds``), with the objects the collector tracks counted, in
two states: as the heap stands, and after ``gc.freeze()`` moved what existed
before the first socket into the permanent generation (what
``paigow_site.server`` does as it starts). Run it in two checkouts to compare.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _full_collections(rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        gc.collect()
        times.append((time.perf_counter() - started) * 1000)
    return times


def _line(label: str, times: list[float]) -> str:
    return (f"{label:<44} {len(gc.get_objects()):>8,} tracked  "
            f"full collection median {statistics.median(times):6.1f} ms "
            f"({min(times):.1f}-{max(times):.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")
    importlib.import_module("paigow_site.asgi")
    from games.engine import deal_hands, shuffle_deck
    from games.engine.guide import guide_view
    from games.engine.hands import warm_tables

    warm_tables()
    print(_line("the site imported, tables warmed", _full_collections(args.rounds)))
    rng = random.Random(args.seed)
    for _ in range(args.hands // 2):
        for hand in deal_hands(shuffle_deck(rng)):
            guide_view(hand)
    print(_line(f"and {args.hands:,} hands' views built", _full_collections(args.rounds)))

    # The server freezes before its first socket; the hands come after it.
    gc.unfreeze()
    from games.engine.guide import _view_rows, guide_of_indices

    _view_rows.cache_clear()
    guide_of_indices.cache_clear()
    gc.collect()
    gc.freeze()
    rng = random.Random(args.seed)
    for _ in range(args.hands // 2):
        for hand in deal_hands(shuffle_deck(rng)):
            guide_view(hand)
    print(_line(f"frozen at start, then {args.hands:,} hands", _full_collections(args.rounds)))
    print(f"frozen: {gc.get_freeze_count():,} objects; CPython {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
