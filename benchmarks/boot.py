"""How fast the table's engine boots in Chromium (a script, not a test).

Starts a live daphne on a fresh embedded site (DEBUG, whitenoise serving the
client build as `make run` does) and drives headless /usr/bin/chromium. Every
round uses a fresh browser profile (its own disk cache) and measures, in the
same run:

- **bare loadPyodide**: a blank page of the same origin imports Pyodide from
  /static/pyodide/ and awaits `loadPyodide()` alone (no engine), once with an
  empty cache and once with Pyodide in the HTTP cache;
- **first visit**: a new player's first table page, from navigation start to
  the engine worker's ready (`paigow-engine-ready`), and the bytes it took
  (the page and its worker: Playwright's request sizes, compressed as sent);
- **return visit**: the same table page again in the same profile;
- **reveal to luck**: deals played to the reveal on the warm page, from the
  reveal frame's arrival (`paigow-reveal`) to the luck figure in the page
  (`paigow-luck-shown`).

Levers are switched off per variant in the same run, without a rebuild: each
variant has its own daphne with `benchmarks.boot_site`'s settings, where
`no-snapshot` serves the build manifest without its "snapshot" (the worker
boots Python and imports the engine, as before) and `no-compression` makes
whitenoise ignore the .br/.gz copies (the module docstring of
`benchmarks/boot_site.py` lists every lever). Rounds interleave the variants.

    .venv/bin/python benchmarks/boot.py [--rounds 5] [--deals 3] [--variants all,no-snapshot]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.browser.conftest import sign_up
from tests.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.live_site import embedded_env, live_site, migrate

VARIANTS = ("all", "no-snapshot", "no-compression", "no-early-start", "no-page-urls",
            "no-cache-storage")
MANIFEST = json.loads((REPO / "frontend" / "build" / "manifest.json").read_text())

BARE = """async ([indexURL, archiveURL, coreURL]) => {
    const started = performance.now();
    const { loadPyodide } = await import(indexURL + "pyodide.mjs");
    const pyodide = await loadPyodide({ indexURL });
    const loaded = performance.now();
    const { installEngine } = await import(coreURL);
    const archive = await (await fetch(archiveURL)).arrayBuffer();
    installEngine(pyodide, archive);
    return { ms: loaded - started, importMs: performance.now() - loaded };
}"""


# The snapshot the worker keeps after its ready, read back whole from the page
# (an entry can be listed before its body is written).
KEPT = """async (size) => {
    const store = await caches.open("paigow-engine-snapshot");
    const [request] = await store.keys();
    if (!request) return false;
    const kept = await store.match(request);
    if (!kept) return false;
    const { denseSnapshot } = await import("/static/js/engine-core.mjs");
    try {
        return denseSnapshot(await kept.arrayBuffer()).length === size;
    } catch {
        return false;
    }
}"""
SNAPSHOT_SIZE = (REPO / "frontend" / "build" / MANIFEST["snapshot"]).stat().st_size


def wait_kept(page: Any, seconds: float = 60) -> float:
    """Wait until the worker has kept its snapshot in Cache Storage; returns the wait."""
    started = time.monotonic()
    while not page.evaluate(KEPT, SNAPSHOT_SIZE):
        if time.monotonic() - started > seconds:
            raise TimeoutError("the worker did not keep its snapshot in Cache Storage")
        time.sleep(0.2)
    return time.monotonic() - started


class Traffic:
    """Bytes of every response a page and its workers received (as sent: compressed)."""

    def __init__(self) -> None:
        self.bytes = 0
        self.by_path: dict[str, tuple[int, str]] = {}

    def record(self, response: Any) -> None:
        try:
            sizes = response.request.sizes()
        except Exception:  # noqa: BLE001 - a response that went away (redirect, abort)
            return
        size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        self.bytes += size
        encoding = response.headers.get("content-encoding", "")
        self.by_path[re.sub(r"^https?://[^/]+", "", response.url)] = (size, encoding)


def engine_ready(page: Any) -> dict[str, Any]:
    page.wait_for_function(
        "() => window.paigowTimings && window.paigowTimings.engineReady !== null", timeout=180_000
    )
    return page.evaluate("""() => ({
        ready: performance.getEntriesByName('paigow-engine-ready')[0].startTime,
        start: performance.getEntriesByName('paigow-engine-start')[0].startTime,
        worker: window.paigowTimings.workerMs,
        phases: window.paigowTimings.workerPhases,
        from: window.paigowTimings.snapshotFrom,
        boot: window.paigowTimings.engineBoot,
    })""")


def reveal_to_luck(page: Any, deals: int) -> list[float]:
    out = []
    for deal in range(deals):
        if deal == 0:
            page.get_by_label("Stake").fill("10")
            page.get_by_role("button", name="Deal").click()
        else:
            page.get_by_role("button", name="Rebet").click()
        page.get_by_role("button", name="House way").click()
        page.wait_for_function(
            "() => document.querySelectorAll('#cards [aria-pressed=true]').length === 2"
        )
        page.evaluate("() => performance.clearMarks()")
        page.get_by_role("button", name="Lock", exact=True).click()
        page.wait_for_function(
            "() => performance.getEntriesByName('paigow-luck-shown').length === 1",
            timeout=60_000,
        )
        out.append(page.evaluate("""() => performance.getEntriesByName('paigow-luck-shown')[0]
            .startTime - performance.getEntriesByName('paigow-reveal')[0].startTime"""))
        page.wait_for_function("() => !document.getElementById('rebet').hidden")
    return out


def one_round(playwright: Any, base: str, variant: str, deals: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
            viewport={"width": 1280, "height": 800},
        )
        try:
            row: dict[str, Any] = {"variant": variant}
            # Bare loadPyodide on a blank page of the same origin, cold then cached.
            # A profile of its own: the table visits below start with an empty cache.
            page = context.new_page()
            sign_up(page, base)
            traffic = Traffic()
            page.on("response", traffic.record)
            page.get_by_role("button", name="Play solo").click()
            page.wait_for_url(re.compile(r"/tables/\d+/"))
            first = engine_ready(page)
            row["first"] = first["ready"]
            row["first_bytes"] = traffic.bytes
            row["first_files"] = dict(traffic.by_path)
            row["boot"] = first["boot"]
            row["first_start"] = first["start"]
            url = page.url
            row["first_from"] = first["from"]
            if first["boot"] == "snapshot":
                # The worker keeps the snapshot after its ready (a player stays longer).
                wait_kept(page)
            if variant == "no-cache-storage":
                page.evaluate("() => caches.delete('paigow-engine-snapshot')")
            returning = Traffic()
            page.on("response", returning.record)
            page.remove_listener("response", traffic.record)
            page.goto(url)
            again = engine_ready(page)
            row["return"] = again["ready"]
            row["return_start"] = again["start"]
            row["return_worker"] = again["worker"]
            row["return_phases"] = again["phases"]
            row["return_from"] = again["from"]
            row["first_phases"] = first["phases"]
            row["return_bytes"] = returning.bytes
            row["luck"] = reveal_to_luck(page, deals)
            page.close()
        finally:
            context.close()
    with tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
        )
        try:
            page = context.new_page()
            page.goto(f"{base}/static/css/site.css")
            urls = [f"{base}/static/{MANIFEST['pyodide']}", f"{base}/static/{MANIFEST['engine']}",
                    f"{base}/static/js/engine-core.mjs"]
            cold = page.evaluate(BARE, urls)
            row["bare_cold"], row["import"] = cold["ms"], cold["importMs"]
            page.goto(f"{base}/static/css/site.css")
            row["bare"] = page.evaluate(BARE, urls)["ms"]
        finally:
            context.close()
    return row


def median(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(row[key] for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--deals", type=int, default=3, help="reveals timed per round")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--json", type=Path, help="write every round's figures here")
    options = parser.parse_args()
    variants = [v for v in options.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as var_dir:
        env = embedded_env(Path(var_dir))
        migrate(env)
        with ExitStack() as stack:
            bases = {}
            for variant in variants:
                levers = "" if variant == "all" else variant
                site_env = {**env, "DJANGO_SETTINGS_MODULE": "benchmarks.boot_site",
                            "PAIGOW_BOOT_LEVERS": levers}
                bases[variant] = stack.enter_context(live_site(site_env))
            playwright = stack.enter_context(sync_playwright())
            # Interleaved, so the machine's changing load falls on every variant alike.
            for number in range(options.rounds):
                for variant in variants:
                    row = one_round(playwright, bases[variant], variant, options.deals)
                    rows.append(row)
                    print(f"round {number + 1} {variant:<15} boot {row['boot']:<9} "
                          f"first {row['first']:6.0f} ms ({row['first_bytes'] / 1e6:5.2f} MB)  "
                          f"return {row['return']:6.0f} ms ({row['return_bytes'] / 1e6:5.2f} MB)  "
                          f"bare {row['bare']:6.0f} / cold {row['bare_cold']:6.0f} ms  "
                          f"luck {', '.join(f'{v:.0f}' for v in row['luck'])} ms", flush=True)
                    print(f"        snapshot from {row['first_from']} / {row['return_from']}; "
                          f"engine start {row['first_start']:.0f} / {row['return_start']:.0f}"
                          f" ms; worker steps, first {row['first_phases']}, "
                          f"return {row['return_phases']}", flush=True)
    load_after = os.getloadavg()

    print(f"\n{started}, {options.rounds} round(s), Chromium {CHROMIUM}, load average "
          f"{load_before[0]:.2f} -> {load_after[0]:.2f} (1 min), nproc {os.cpu_count()}")
    header = ("variant", "first visit", "MB", "return visit", "bare (cached)", "bare (cold)",
              "engine import", "return / bare", "first / (bare cold + import)",
              "reveal -> luck p50 / max")
    print(" | ".join(header))
    for variant in variants:
        mine = [r for r in rows if r["variant"] == variant]
        lucks = [v for r in mine for v in r["luck"]]
        bare = median(mine, "bare")
        print(" | ".join([
            variant,
            f"{median(mine, 'first'):.0f} ms",
            f"{median(mine, 'first_bytes') / 1e6:.2f}",
            f"{median(mine, 'return'):.0f} ms",
            f"{bare:.0f} ms",
            f"{median(mine, 'bare_cold'):.0f} ms",
            f"{median(mine, 'import'):.0f} ms",
            f"{statistics.median(r['return'] / r['bare'] for r in mine):.2f}",
            f"{statistics.median(r['first'] / (r['bare_cold'] + r['import']) for r in mine):.2f}",
            f"{statistics.median(lucks):.0f} / {max(lucks):.0f} ms",
        ]))
        boots = sorted({r["boot"] for r in mine})
        print(f"   boots: {', '.join(boots)}; engine start after navigation "
              f"{median(mine, 'first_start'):.0f} ms first, {median(mine, 'return_start'):.0f} ms "
              f"return; worker's own ready {median(mine, 'return_worker'):.0f} ms (return)")
    first_files = rows[0]["first_files"]
    biggest = sorted(first_files.items(), key=lambda item: -item[1][0])[:6]
    print("first visit's biggest responses (" + rows[0]["variant"] + "): " + ", ".join(
        f"{path} {size / 1e6:.2f} MB {encoding or 'identity'}"
        for path, (size, encoding) in biggest))
    if options.json:
        options.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
