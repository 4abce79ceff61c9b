"""Browser client timings (a script, not a test).

Starts a live daphne on a fresh embedded site, drives /usr/bin/chromium with
Playwright, and reports:

- engine worker ready after the table page loads, cold (empty cache) and cached
  (the same browser context loading the page again: Pyodide and the engine zip
  come from the HTTP cache);
- luck after the reveal, once the engine is warm (the worker's luck_detail);
- the setting explorer (21 settings × 120 opponents).

    .venv/bin/python benchmarks/client.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_site(var_dir: str) -> tuple[subprocess.Popen[bytes], str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG", "SECRET_KEY"}}
    env["PAIGOW_VAR_DIR"] = var_dir
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO, env=env, check=True)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "paigow_site.asgi:application"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                if response.status == 200:
                    return process, base
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the site did not start")


def sign_up_and_open_table(page, base: str, name: str) -> str:
    page.goto(f"{base}/")
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password", exact=True).fill("a-long-Passphrase-42")
    page.get_by_label("Password confirmation").fill("a-long-Passphrase-42")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/lobby/"))
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/tables/\d+/"))
    return page.url


def engine_ready_ms(page) -> float:
    page.wait_for_function("() => window.paigowTimings && window.paigowTimings.engineReady !== null", timeout=120_000)
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
        process, base = start_site(var_dir)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                cold, cached, lucks, explores = [], [], [], []
                for round_ in range(options.rounds):
                    context = browser.new_context(viewport={"width": 1280, "height": 800})
                    page = context.new_page()
                    url = sign_up_and_open_table(page, base, f"bench{os.getpid()}x{round_}")
                    cold.append(engine_ready_ms(page))
                    page.goto(url)
                    cached.append(engine_ready_ms(page))
                    # A deal, the house way, the lock: luck follows the reveal.
                    page.get_by_label("Stake").fill("10")
                    page.get_by_role("button", name="Deal").click()
                    page.get_by_role("button", name="House way").click()
                    page.wait_for_function("() => document.querySelectorAll('#cards [aria-pressed=true]').length === 2")
                    page.get_by_role("button", name="Lock", exact=True).click()
                    page.wait_for_function("() => window.paigowTimings.luck !== null", timeout=60_000)
                    lucks.append(page.evaluate("() => window.paigowTimings.luck"))
                    page.get_by_role("button", name="Explore the 21 settings").click()
                    page.wait_for_function("() => window.paigowTimings.explore !== null", timeout=120_000)
                    explores.append(page.evaluate("() => window.paigowTimings.explore"))
                    context.close()
                browser.close()
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)

    def line(label: str, values: list[float]) -> str:
        return (f"{label:<38} median {statistics.median(values):8.0f} ms   "
                f"min {min(values):8.0f}   max {max(values):8.0f}   (n={len(values)})")

    print(f"Browser client, {options.rounds} round(s), Chromium {CHROMIUM}")
    print(line("engine ready after page load, cold", cold))
    print(line("engine ready after page load, cached", cached))
    print(line("luck after the reveal (warm engine)", lucks))
    print(line("setting explorer (21 × 120)", explores))


if __name__ == "__main__":
    main()
