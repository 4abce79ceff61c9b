"""The engine against its best open peer, in CPython and under Pyodide, on the same deals.

    python3 benchmarks/peers.py [--deals 100000] [--lucks 200] [--legal 1000000]

One command, one run:

1. ``benchmarks/deals.py`` writes ``--deals`` seeded deals (seed 20240601) as
   card codes to ``var/bench/``.
2. CPython: our house way on those deals through the public API (codes in,
   a ``HouseWay`` out) and through the internal index API with an empty
   pattern cache; the luck latency (120 samples) over the first ``--lucks``.
3. ``node benchmarks/peers.mjs`` on the same file: pokersolver's
   ``PaiGowPokerHelper.solve`` (joker written ``Or``) and, in the same Node
   process, our engine under Pyodide (rates and luck, as above).
4. Every pokersolver setting is checked with our engine: two cards in front,
   five in back, together the seven dealt cards, and not a foul
   (``games.engine.is_foul``).
5. Ours: every house way of ``--legal`` seeded deals (seed 1) is checked the
   same way, through the internal index API (the public API on the first
   ``--deals``).

Needs Node 20 and ``npm ci --prefix benchmarks/node`` (pokersolver, pinned),
and the built engine archive (``python frontend/build.py``) for Pyodide.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from deals import deal_indices, write

from games.engine import house_way, is_foul
from games.engine.hands import back_value_of, front_value_of, is_foul_values
from games.engine.house_way import PATTERN_CACHE, house_way_indices
from games.engine.luck import luck_counts


def illegal_reason(seven: list[str], front: list[str] | None, back: list[str] | None) -> str | None:
    if front is None or back is None:
        return "no setting"
    if len(front) != 2 or len(back) != 5:
        return f"{len(front)}+{len(back)} cards"
    if sorted(front + back) != sorted(seven):
        return "not the seven cards"
    if is_foul(front, back):
        return "foul"
    return None


def machine() -> str:
    cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    model = next((x.split(":", 1)[1].strip() for x in cpuinfo if x.startswith("model name")), "?")
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    mem = next((int(x.split()[1]) for x in meminfo if x.startswith("MemTotal")), 0)
    return f"{os.cpu_count()} × {model}, {mem / 1024 / 1024:.1f} GiB, load {os.getloadavg()[0]:.2f}"


def ours_cpython(deals: list[list[str]], lucks: int) -> dict[str, float]:
    start = time.perf_counter()
    for deal in deals:
        house_way(deal)
    public = len(deals) / (time.perf_counter() - start)
    hands = deal_indices(len(deals))
    PATTERN_CACHE.clear()
    start = time.perf_counter()
    for hand in hands:
        house_way_indices(hand)
    internal = len(hands) / (time.perf_counter() - start)
    times = []
    for hand in hands[:lucks]:
        t = time.perf_counter()
        luck_counts(hand, "solo", "player", 120)
        times.append(time.perf_counter() - t)
    times.sort()
    return {
        "public": public,
        "internal": internal,
        "luck_median_ms": statistics.median(times) * 1000,
        "luck_p90_ms": times[int(0.9 * len(times))] * 1000,
    }


def ours_legal(count: int) -> tuple[int, float]:
    """Illegal house-way settings over ``count`` seeded deals (seed 1), and seconds."""
    illegal = 0
    start = time.perf_counter()
    for hand in deal_indices(count, seed=1):
        front, _ = house_way_indices(hand)
        a, b = front
        back = tuple(c for c in hand if c != a and c != b)
        if (
            len(back) != 5
            or a == b
            or a not in hand
            or b not in hand
            or is_foul_values(front_value_of(front), back_value_of(back))
        ):
            illegal += 1
    return illegal, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--lucks", type=int, default=200)
    parser.add_argument("--legal", type=int, default=1_000_000)
    parser.add_argument("--no-pyodide", action="store_true")
    args = parser.parse_args()
    print(
        f"$ python{sys.version_info.major}.{sys.version_info.minor} benchmarks/peers.py "
        f"--deals {args.deals} --lucks {args.lucks} --legal {args.legal}"
    )
    print(f"{time.strftime('%Y-%m-%d %H:%M %Z')}; {machine()}")
    bench = REPO / "var" / "bench"
    deals_path = write(bench / f"deals-{args.deals}.json", args.deals)
    deals = json.loads(deals_path.read_text())["deals"]

    ours = ours_cpython(deals, args.lucks)
    py = platform.python_version()
    print(
        f"CPython {py}, ours: house way {ours['public']:,.0f} settings/s (public API, codes), "
        f"{ours['internal']:,.0f}/s (index API, empty pattern cache); "
        f"luck median {ours['luck_median_ms']:.2f} ms "
        f"(p90 {ours['luck_p90_ms']:.2f} ms, {args.lucks} hands)"
    )

    out_path = bench / f"peers-{args.deals}.json"
    command = [
        "node",
        str(REPO / "benchmarks" / "peers.mjs"),
        str(deals_path),
        str(out_path),
        "--lucks",
        str(args.lucks),
    ]
    if not args.no_pyodide:
        command.append("--pyodide")
    subprocess.run(command, check=True)
    peers = json.loads(out_path.read_text())
    solver = peers["pokersolver"]
    reasons: dict[str, int] = {}
    same = 0
    for deal, setting in zip(deals, peers["settings"], strict=True):
        reason = illegal_reason(deal, setting["front"], setting["back"])
        if reason:
            reasons[reason] = reasons.get(reason, 0) + 1
        elif sorted(setting["front"]) == sorted(house_way(deal).setting.front):
            same += 1
    bad = sum(reasons.values())
    print(
        f"Node {peers['node']}, pokersolver {solver['version']}: {solver['rate']:,.0f} settings/s; "
        f"illegal {bad:,} of {len(deals):,} ({100 * bad / len(deals):.2f}%: "
        + (", ".join(f"{k} {v:,}" for k, v in sorted(reasons.items())) or "none")
        + f"); legal and the same front as ours: {same:,}"
    )
    print(
        f"ratio, CPython ours / pokersolver: {ours['public'] / solver['rate']:.1f}× (public API), "
        f"{ours['internal'] / solver['rate']:.1f}× (index API)"
    )
    if "pyodide" in peers:
        p = peers["pyodide"]
        print(
            f"Pyodide {p['pyodide']} (Python {p['python']}) in Node, "
            f"ours: cold load {p['loadMs']:,.0f} ms; "
            f"house way {p['publicRate']:,.0f} settings/s (public API), "
            f"{p['internalRate']:,.0f}/s (index API, empty pattern cache); "
            f"luck median {p['luckMedianMs']:.2f} ms (p90 {p['luckP90Ms']:.2f} ms)"
        )
        print(
            "ratio, Pyodide ours / pokersolver: "
            f"{p['publicRate'] / solver['rate']:.1f}× (public API), "
            f"{p['internalRate'] / solver['rate']:.1f}× (index API)"
        )

    ours_bad = sum(
        illegal_reason(d, list(h.setting.front), list(h.setting.back)) is not None
        for d, h in ((d, house_way(d)) for d in deals)
    )
    print(f"ours, public API on the same {len(deals):,} deals: {ours_bad} illegal")
    if args.legal:
        illegal, seconds = ours_legal(args.legal)
        print(
            f"ours, index API on {args.legal:,} seeded deals (seed 1): "
            f"{illegal} illegal ({seconds:.1f} s)"
        )


if __name__ == "__main__":
    main()
