"""Browser client timings (a script, not a test).

Starts a live daphne on a fresh embedded site, drives /usr/bin/chromium with
Playwright, and reports:

- engine worker ready after the table page loads, cold (empty cache) and cached
  (the same browser context loading the page again: Pyodide and the engine zip
  come from the HTTP cache);
- luck after the reveal, once the engine is warm (the worker's luck_detail);
- the setting explorer's first table (21 settings × 120 opponents; the whole
  refinement is measured by benchmarks/explorer.py).

    .venv/bin/python benchmarks/client.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.browser.conftest import sign_up
from tests.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.live_site import embedded_env, live_site, migrate


def open_solo_table(page, base: str) -> str:
    sign_up(page, base)
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/tables/\d+/"))
    return page.url


def engine_ready_ms(page) -> float:
    page.wait_for_function(
        "() => window.paigowTimings && window.paigowTimings.engineReady !== null", timeout=120_000
    )
    # From navigation start, so it includes the page's own load.
    return page.evaluate(
        "() => performance.getEntriesByName('paigow-engine-ready')[0].startTime"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as var_dir:
        env = embedded_env(Path(var_dir))
        migrate(env)
        with live_site(env) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            cold, cached, lucks, explores = [], [], [], []
            for _ in range(options.rounds):
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                page = context.new_page()
                url = open_solo_table(page, base)
                cold.append(engine_ready_ms(page))
                page.goto(url)
                cached.append(engine_ready_ms(page))
                # A deal, the house way, the lock: luck follows the reveal.
                page.get_by_label("Stake").fill("10")
                page.get_by_role("button", name="Deal").click()
                page.get_by_role("button", name="House way").click()
                page.wait_for_function(
                    "() => document.querySelectorAll('#cards [aria-pressed=true]').length === 2"
                )
                page.get_by_role("button", name="Lock", exact=True).click()
                page.wait_for_function("() => window.paigowTimings.luck !== null", timeout=60_000)
                lucks.append(page.evaluate("() => window.paigowTimings.luck"))
                page.get_by_role("button", name="Explore the 21 settings").click()
                page.wait_for_function(
                    "() => window.paigowTimings.explore !== null", timeout=120_000
                )
                explores.append(page.evaluate("() => window.paigowTimings.explore"))
                context.close()
            browser.close()

    def line(label: str, values: list[float]) -> str:
        return (f"{label:<38} median {statistics.median(values):8.0f} ms   "
                f"min {min(values):8.0f}   max {max(values):8.0f}   (n={len(values)})")

    print(f"Browser client, {options.rounds} round(s), Chromium {CHROMIUM}")
    print(line("engine ready after page load, cold", cold))
    print(line("engine ready after page load, cached", cached))
    print(line("luck after the reveal (warm engine)", lucks))
    print(line("setting explorer, first table (21 × 120)", explores))


if __name__ == "__main__":
    main()
