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

The `production` variant is everything on, served as `make serve` serves it
(DJANGO_DEBUG=0 after collectstatic: content-named static files cached for
good, no DEBUG revalidations), as players get the site; the others run
under DEBUG, as `make run` does.

Profiles (`--profiles`, interleaved like the variants): `persistent` (the
default) is a profile on disk per round, as a player's browser has, with the
HTTP disk cache and V8's code caches; `incognito` an off-the-record context
(caches in memory only). `--visits N` adds later return visits (third,
fourth...) and, for each, a bare loadPyodide that many loads into its own
profile (the same cache state: visits[i] over bare_visits[i]); `--linger S`
stays S seconds on each page first. After every load the script reads
chrome://histograms' V8.WasmCodeCaching (misses and hits of V8's WebAssembly
code cache, the worker's included) and the size of the profile's
"Code Cache/wasm", and times the bare page's instantiateStreaming of
pyodide.asm.wasm.

    .venv/bin/python benchmarks/boot.py [--rounds 5] [--deals 3] [--variants all,no-snapshot]
        [--profiles persistent,incognito] [--visits 4] [--linger 2]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
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

VARIANTS = ("all", "production", "no-snapshot", "no-compression", "no-early-start",
            "no-page-urls", "no-kept-snapshot", "no-kept-wasm")
MANIFEST = json.loads((REPO / "frontend" / "build" / "manifest.json").read_text())

BARE = """async ([indexURL, archiveURL, coreURL]) => {
    // Times Pyodide's WebAssembly.instantiateStreaming of pyodide.asm.wasm
    // (compile + instantiate; short when V8's code cache of the module hits).
    const streaming = WebAssembly.instantiateStreaming;
    let wasmMs = null;
    WebAssembly.instantiateStreaming = async (...args) => {
        const from = performance.now();
        try {
            return await streaming.apply(WebAssembly, args);
        } finally {
            wasmMs = performance.now() - from;
        }
    };
    const started = performance.now();
    const { loadPyodide } = await import(indexURL + "pyodide.mjs");
    const pyodide = await loadPyodide({ indexURL });
    const loaded = performance.now();
    const { installEngine } = await import(coreURL);
    const archive = await (await fetch(archiveURL)).arrayBuffer();
    installEngine(pyodide, archive);
    return { ms: loaded - started, importMs: performance.now() - loaded, wasmMs };
}"""


# What the worker keeps after its ready (engine-worker.mjs, "kept files"),
# read back whole from the page: the payload of the kept file `name`, or null.
KEPT_PAYLOAD = """
    async function keptPayload(name) {
        try {
            const root = await navigator.storage.getDirectory();
            const dir = await root.getDirectoryHandle("paigow-engine");
            const file = await (await dir.getFileHandle(name)).getFile();
            const bytes = new Uint8Array(await file.arrayBuffer());
            const view = new DataView(bytes.buffer);
            const start = 12 + view.getUint32(4, true);
            const payload = bytes.subarray(start);
            return payload.length === view.getUint32(8, true) ? payload : null;
        } catch {
            return null;
        }
    }
"""
# The snapshot, whole.
KEPT = """async (size) => {""" + KEPT_PAYLOAD + """
    const payload = await keptPayload("snapshot");
    if (!payload) return false;
    const { denseSnapshot } = await import("/static/js/engine-core.mjs");
    try {
        return denseSnapshot(payload).length === size;
    } catch {
        return false;
    }
}"""
# As `make serve` runs the site (after collectstatic): hashed, immutable static
# files and no DEBUG; plain HTTP on loopback.
PRODUCTION = {"DJANGO_DEBUG": "0", "SECRET_KEY": "b" * 64, "ALLOWED_HOSTS": "127.0.0.1",
              "SECURE_SSL_REDIRECT": "0"}
SNAPSHOT_SIZE = (REPO / "frontend" / "build" / MANIFEST["snapshot"]).stat().st_size


KEPT_WASM = """async () => {""" + KEPT_PAYLOAD + """
    return (await keptPayload("runtime")) !== null;
}"""
DROP_KEPT = """async (name) => {
    const root = await navigator.storage.getDirectory();
    await (await root.getDirectoryHandle("paigow-engine")).removeEntry(name);
}"""


def wait_kept(page: Any, script: str = KEPT, arg: Any = SNAPSHOT_SIZE,
              what: str = "its snapshot", seconds: float = 60) -> None:
    """Wait until `script` says the worker has kept `what` (by default its
    snapshot, whole)."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(script, arg):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the worker did not keep {what}")
        time.sleep(0.2)


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
    # Waits on the page's own mark, without polling the page (a polled
    # predicate runs on the page's main thread every frame, beside the boot).
    page.evaluate("""() => new Promise((resolve, reject) => {
        const seen = () => performance.getEntriesByName("paigow-engine-ready").length > 0;
        if (seen()) return resolve();
        new PerformanceObserver((list, observer) => {
            if (seen()) { observer.disconnect(); resolve(); }
        }).observe({ type: "mark" });
        setTimeout(() => reject(new Error("no engine ready in 180 s")), 180000);
    })""")
    return page.evaluate("""() => ({
        ready: performance.getEntriesByName('paigow-engine-ready')[0].startTime,
        start: performance.getEntriesByName('paigow-engine-start')[0].startTime,
        worker: window.paigowTimings.workerMs,
        phases: window.paigowTimings.workerPhases,
        from: window.paigowTimings.snapshotFrom,
        boot: window.paigowTimings.engineBoot,
        wasmFrom: window.paigowTimings.wasmFrom,
        workerFirstLine: window.paigowTimings.workerStartedAt,
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


def wasm_cache(profile: str) -> tuple[int, int]:
    """Chromium's WebAssembly code cache in a profile: (entries, bytes) on disk."""
    files = [f for f in (Path(profile) / "Default" / "Code Cache" / "wasm").rglob("*")
             if f.is_file() and not f.name.startswith("index")]
    return len(files), sum(f.stat().st_size for f in files)


CACHING = ("miss", "hit", "invalid", "no handler")  # V8.WasmCodeCaching's buckets


def code_caching(context: Any) -> dict[str, int]:
    """How often V8's WebAssembly code cache missed and hit so far in this browser.

    Read from chrome://histograms (V8.WasmCodeCaching: one sample per streaming
    compile that could use the cache, from every renderer, workers included).
    """
    page = context.new_page()
    try:
        page.goto("chrome://histograms/")
        page.reload()  # the page shows the figures as of the previous load
        text = page.evaluate("() => document.body.innerText")
    finally:
        page.close()
    section = text.partition("Histogram: V8.WasmCodeCaching ")[2].partition("Histogram:")[0]
    counts = dict.fromkeys(CACHING, 0)
    for bucket, count in re.findall(r"^(\d+)\s+-*O\s+\((\d+) = ", section, re.MULTILINE):
        counts[CACHING[int(bucket)] if int(bucket) < len(CACHING) else bucket] = int(count)
    return counts


def open_context(stack: ExitStack, playwright: Any, profile: str, mode: str, **options: Any) -> Any:
    """A browser context: `persistent` (a profile on disk, as a player's) or `incognito`."""
    if mode == "persistent":
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True, **options
        )
    else:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        stack.callback(browser.close)
        context = browser.new_context(**options)
    stack.callback(context.close)
    return context


def one_round(playwright: Any, base: str, variant: str, deals: int, mode: str = "persistent",
              visits: int = 2, linger: float = 0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as profile, ExitStack() as stack:
        context = open_context(stack, playwright, profile, mode,
                               viewport={"width": 1280, "height": 800})
        row: dict[str, Any] = {"variant": variant, "mode": mode}
        # The table's visits; the bare loadPyodide below has a profile of its own,
        # so both start with an empty cache.
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
        wait_kept(page, KEPT_WASM, None, "Pyodide's WebAssembly")
        if variant == "no-kept-snapshot":
            page.evaluate(DROP_KEPT, "snapshot")
        if variant == "no-kept-wasm":
            page.evaluate(DROP_KEPT, "runtime")
        time.sleep(linger)
        row["wasm_cache"] = [wasm_cache(profile)]
        row["caching"] = [code_caching(context)]
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
        row["return_wasm_from"] = again["wasmFrom"]
        row["return_first_line"] = again["workerFirstLine"]
        row["first_phases"] = first["phases"]
        row["return_bytes"] = returning.bytes
        row["luck"] = reveal_to_luck(page, deals)
        # Later visits (third, fourth...): by then V8 may have written its
        # code cache of pyodide.asm.wasm (after tier-up), which the second
        # visit, seconds after the first, may not find yet.
        row["visits"] = [row["return"]]
        row["visit_phases"] = [row["return_phases"]]
        for _ in range(visits - 2):
            time.sleep(linger)
            row["wasm_cache"].append(wasm_cache(profile))
            row["caching"].append(code_caching(context))
            page.goto(url)
            later = engine_ready(page)
            row["visits"].append(later["ready"])
            row["visit_phases"].append(later["phases"])
        time.sleep(linger)
        row["wasm_cache"].append(wasm_cache(profile))
        row["caching"].append(code_caching(context))
        page.close()
    with tempfile.TemporaryDirectory() as profile, ExitStack() as stack:
        context = open_context(stack, playwright, profile, mode)
        page = context.new_page()
        page.goto(f"{base}/static/css/site.css")
        urls = [f"{base}/static/{MANIFEST['pyodide']}", f"{base}/static/{MANIFEST['engine']}",
                f"{base}/static/js/engine-core.mjs"]
        cold = page.evaluate(BARE, urls)
        row["bare_cold"], row["import"] = cold["ms"], cold["importMs"]
        row["bare_cold_wasm"], row["bare_wasm"] = cold["wasmMs"], []
        row["bare_caching"] = []
        # The same number of loads as the table's visits, in the same
        # cache state: bare_visits[i] is the denominator of visits[i].
        row["bare_visits"] = []
        row["bare_cache"] = []
        for _ in range(visits - 1):
            time.sleep(linger)
            row["bare_cache"].append(wasm_cache(profile))
            row["bare_caching"].append(code_caching(context))
            page.goto(f"{base}/static/css/site.css")
            bare = page.evaluate(BARE, urls)
            row["bare_visits"].append(bare["ms"])
            row["bare_wasm"].append(bare["wasmMs"])
        time.sleep(linger)
        row["bare_caching"].append(code_caching(context))
        row["bare"] = row["bare_visits"][0]
    return row


def hits(counts: list[dict[str, int]]) -> str:
    return " ".join(f"{c['miss']}/{c['hit']}" for c in counts)


def median(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(row[key] for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--deals", type=int, default=3, help="reveals timed per round")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--json", type=Path, help="write every round's figures here")
    parser.add_argument("--profiles", default="persistent",
                        help="comma-separated, of persistent (a profile on disk per round, as a "
                        "player's browser: HTTP disk cache and V8's code cache) and incognito "
                        "(an off-the-record context: memory caches only)")
    parser.add_argument("--visits", type=int, default=2,
                        help="table visits per round (2: first and return; more: later returns, "
                        "each against a bare loadPyodide that many loads into its profile)")
    parser.add_argument("--linger", type=float, default=0,
                        help="seconds to stay on each page before the next visit (time for V8 "
                        "to write its WebAssembly code cache)")
    options = parser.parse_args()
    variants = [v for v in options.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    modes = [m for m in options.profiles.split(",") if m]
    if set(modes) - {"persistent", "incognito"} or options.visits < 2:
        parser.error("--profiles: persistent and/or incognito; --visits: 2 or more")
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as var_dir:
        env = embedded_env(Path(var_dir))
        migrate(env)
        if "production" in variants:
            subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                           cwd=REPO, env={**env, **PRODUCTION}, check=True)
        with ExitStack() as stack:
            bases = {}
            for variant in variants:
                levers = "" if variant in ("all", "production", "no-kept-wasm") else variant
                site_env = {**env, "DJANGO_SETTINGS_MODULE": "benchmarks.boot_site",
                            "PAIGOW_BOOT_LEVERS": levers}
                if variant == "production":
                    site_env.update(PRODUCTION)
                bases[variant] = stack.enter_context(live_site(site_env))
            playwright = stack.enter_context(sync_playwright())
            # Interleaved, so the machine's changing load falls on every variant alike.
            for number in range(options.rounds):
                for mode, variant in ((m, v) for m in modes for v in variants):
                    row = one_round(playwright, bases[variant], variant, options.deals, mode,
                                    options.visits, options.linger)
                    rows.append(row)
                    print(f"round {number + 1} {mode:<10} {variant:<15} boot {row['boot']:<9} "
                          f"first {row['first']:6.0f} ms ({row['first_bytes'] / 1e6:5.2f} MB)  "
                          f"return {row['return']:6.0f} ms ({row['return_bytes'] / 1e6:5.2f} MB)  "
                          f"bare {row['bare']:6.0f} / cold {row['bare_cold']:6.0f} ms  "
                          f"luck {', '.join(f'{v:.0f}' for v in row['luck'])} ms", flush=True)
                    print(f"        snapshot from {row['first_from']} / {row['return_from']}, "
                          f"WebAssembly from {row['return_wasm_from']} (return); worker's first "
                          f"line {row['return_first_line']:.0f} ms after navigation (return); "
                          f"engine start {row['first_start']:.0f} / {row['return_start']:.0f}"
                          f" ms; worker steps, first {row['first_phases']}, "
                          f"return {row['return_phases']}", flush=True)
                    print("        visits 2.. " + ", ".join(
                        f"{v:.0f}/{b:.0f}={v / b:.2f}"
                        for v, b in zip(row["visits"], row["bare_visits"], strict=True))
                        + f" ms (return/bare); wasm code cache on disk (entries, bytes) before "
                        f"each return {row['wasm_cache']}, bare {row['bare_cache']}; V8 code "
                        f"cache (miss/hit) after each load, table {hits(row['caching'])}, bare "
                        f"{hits(row['bare_caching'])}; compile+"
                        f"instantiate (bare) cold {row['bare_cold_wasm']:.0f}, by load "
                        f"{[round(v) for v in row['bare_wasm']]} ms; worker's loadPyodide "
                        f"by visit {[p.get('pyodide') for p in row['visit_phases']]} ms",
                        flush=True)
    load_after = os.getloadavg()

    print(f"\n{started}, {options.rounds} round(s), Chromium {CHROMIUM}, load average "
          f"{load_before[0]:.2f} -> {load_after[0]:.2f} (1 min), nproc {os.cpu_count()}")
    header = ("variant", "first visit", "MB", "return visit", "bare (cached)", "bare (cold)",
              "engine import", "return / bare", "first / (bare cold + import)",
              "reveal -> luck p50 / max")
    print(" | ".join(header))
    for mode, variant in ((m, v) for m in modes for v in variants):
        mine = [r for r in rows if r["variant"] == variant and r["mode"] == mode]
        lucks = [v for r in mine for v in r["luck"]]
        bare = median(mine, "bare")
        print(" | ".join([
            f"{mode} {variant}",
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
        for visit in range(options.visits - 1):
            back = [r["visits"][visit] for r in mine]
            blank = [r["bare_visits"][visit] for r in mine]
            ratio = statistics.median(v / b for v, b in zip(back, blank, strict=True))
            print(f"   visit {visit + 2}: return {statistics.median(back):.0f} ms, bare "
                  f"{statistics.median(blank):.0f} ms, return / bare {ratio:.2f}, wasm code "
                  f"cache entries before it {[r['wasm_cache'][visit][0] for r in mine]}")
    first_files = rows[0]["first_files"]
    biggest = sorted(first_files.items(), key=lambda item: -item[1][0])[:6]
    print("first visit's biggest responses (" + rows[0]["variant"] + "): " + ", ".join(
        f"{path} {size / 1e6:.2f} MB {encoding or 'identity'}"
        for path, (size, encoding) in biggest))
    if options.json:
        options.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
