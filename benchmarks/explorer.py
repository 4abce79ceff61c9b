"""The progressive setting explorer: opponents reached after opening it (a script, not a test).

Three runtimes, the same chunks the page asks for (frontend/src/js/explorer.mjs
STEPS: 120, 1,000, 3,000, ... 50,000 opponents, each an `explore_range`):

- CPython: `explore_sums` chunk after chunk for seeded hands, "cold" (the
  house way's pattern cache emptied first, as in a fresh worker) and "warm"
  (the same hand again); beside it, in the same run, the one-shot
  `explore(samples=10_000)` (the older explorer's loop) for the same hands;
- Pyodide in Node (benchmarks/explorer_node.mjs, the served engine archive);
- headless Chromium on a live site: sign up, a solo deal, the house way, the
  lock, then "Explore the 21 settings"; the page's own timings
  (`window.paigowTimings.explorer`: opponents and ms from the click after
  each chunk) give the opponents reached 2 s after the click. Each round is a
  fresh browser context, so a fresh worker (its cache holds only the deal's
  luck opponents).

    .venv/bin/python benchmarks/explorer.py [--hands 20] [--rounds 5] [--no-browser]

Medians (and min–max) over hands or rounds; the machine's load average is
printed before and after, since other work on the cores moves these numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from games.engine import DECK, LUCK_SAMPLES, explore, explore_sums

# The modules themselves (the package's names are their functions), for their caches.
HOUSE_WAY = sys.modules["games.engine.house_way"]
EXPLORE = sys.modules["games.engine.explore"]
BUDGET_MS = 2000


def steps() -> list[int]:
    """The page's STEPS, read from explorer.mjs so the two never drift."""
    source = (REPO / "frontend/src/js/explorer.mjs").read_text(encoding="utf-8")
    found = re.search(r"export const STEPS = \[(LUCK_SAMPLES|\d+)((?:, \d+)+)\];", source)
    assert found, "explorer.mjs no longer defines STEPS"
    first = LUCK_SAMPLES if found.group(1) == "LUCK_SAMPLES" else int(found.group(1))
    return [first, *(int(n) for n in found.group(2).split(",")[1:])]


def hands(count: int) -> list[str]:
    rng = random.Random(20261201)
    return [" ".join(rng.sample(DECK, 7)) for _ in range(count)]


def refine_cpython(cards: str, stops: list[int]) -> list[tuple[int, float]]:
    out, start, began = [], 0, time.perf_counter()
    for stop in stops:
        explore_sums(cards, mode="solo", start=start, stop=stop)
        out.append((stop, (time.perf_counter() - began) * 1000))
        start = stop
    return out


def reached(timeline: list[tuple[int, float]], budget: float = BUDGET_MS) -> int:
    """Opponents shown by ``budget`` ms (0 if not even the first chunk)."""
    return max((n for n, ms in timeline if ms <= budget), default=0)


def at(timeline: list[tuple[int, float]], opponents: int) -> float:
    return next(ms for n, ms in timeline if n >= opponents)


def summary(label: str, values: list[float], unit: str = "ms") -> str:
    return (f"  {label:<44} median {statistics.median(values):9,.0f} {unit:<9} "
            f"min {min(values):9,.0f}   max {max(values):9,.0f}   (n={len(values)})")


def report(name: str, timelines: list[list[tuple[int, float]]]) -> None:
    print(name)
    print(summary("opponents reached 2 s after opening", [reached(t) for t in timelines],
                  "opponents"))
    print(summary("ms to 10,000 opponents", [at(t, 10_000) for t in timelines]))
    print(summary(f"ms to {timelines[0][-1][0]:,} opponents (done)", [t[-1][1] for t in timelines]))
    print(summary("ms to the first table (120)", [t[0][1] for t in timelines]))


def cpython(cards_list: list[str], stops: list[int]) -> None:
    cold, warm, old = [], [], []
    for cards in cards_list:
        HOUSE_WAY.PATTERN_CACHE.clear()
        EXPLORE._STREAMS.clear()
        cold.append(refine_cpython(cards, stops))
        EXPLORE._STREAMS.clear()
        warm.append(refine_cpython(cards, stops))
        began = time.perf_counter()
        explore(cards, mode="solo", samples=10_000)  # the older one-shot loop, warm cache
        old.append((time.perf_counter() - began) * 1000)
    report(f"CPython {sys.version.split()[0]}, cold pattern cache", cold)
    report(f"CPython {sys.version.split()[0]}, warm", warm)
    new_warm = [at(t, 10_000) for t in warm]
    print(summary("older explore(samples=10,000), warm", old))
    ratio = statistics.median(o / n for o, n in zip(old, new_warm, strict=True))
    print(f"  the chunked explorer to 10,000 is {ratio:.1f}x faster than the older loop (median)")


def pyodide(cards_list: list[str]) -> None:
    run = subprocess.run(
        ["node", str(REPO / "benchmarks/explorer_node.mjs")], cwd=REPO, check=True,
        input=json.dumps({"hands": cards_list, "mode": "solo"}), capture_output=True, text=True,
    )
    data = json.loads(run.stdout)
    print(f"(Pyodide loaded in {data['loadMs']:,.0f} ms)")
    report("Pyodide in Node, cold pattern cache", [[tuple(s) for s in r["cold"]]
                                                   for r in data["runs"]])
    report("Pyodide in Node, warm", [[tuple(s) for s in r["warm"]] for r in data["runs"]])


def browser(rounds: int) -> None:
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import sign_up
    from tests.conftest import CHROMIUM, CHROMIUM_ARGS
    from tests.live_site import embedded_env, live_site, migrate

    timelines = []
    with tempfile.TemporaryDirectory() as var_dir:
        env = embedded_env(Path(var_dir))
        migrate(env)
        with live_site(env) as base, sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for _ in range(rounds):
                context = chromium.new_context(viewport={"width": 1280, "height": 800})
                page = context.new_page()
                sign_up(page, base)
                page.get_by_role("button", name="Play solo").click()
                page.wait_for_url(re.compile(r"/tables/\d+/"))
                page.wait_for_function("() => window.paigowTimings.engineReady !== null",
                                       timeout=120_000)
                page.get_by_label("Stake").fill("10")
                page.get_by_role("button", name="Deal").click()
                page.get_by_role("button", name="House way").click()
                page.wait_for_function(
                    "() => document.querySelectorAll('#cards [aria-pressed=true]').length === 2")
                page.get_by_role("button", name="Lock", exact=True).click()
                page.wait_for_function("() => window.paigowTimings.luck !== null", timeout=60_000)
                page.get_by_role("button", name="Explore the 21 settings").click()
                page.wait_for_function(
                    "() => window.paigowTimings.explorer.at(-1)?.opponents === 50000",
                    timeout=120_000)
                timelines.append([(s["opponents"], s["ms"]) for s in page.evaluate(
                    "() => window.paigowTimings.explorer")])
                context.close()
            chromium.close()
    report(f"Headless Chromium ({CHROMIUM}), {rounds} rounds, from the click", timelines)
    for t in timelines:
        print("   ", ", ".join(f"{n:,} @ {ms:,.0f} ms" for n, ms in t))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20, help="hands for CPython and Pyodide")
    parser.add_argument("--rounds", type=int, default=5, help="browser rounds")
    parser.add_argument("--no-browser", action="store_true")
    options = parser.parse_args()
    stops = steps()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}, steps {stops}")
    cards_list = hands(options.hands)
    cpython(cards_list, stops)
    pyodide(cards_list)
    if not options.no_browser:
        browser(options.rounds)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
