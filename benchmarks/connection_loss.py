"""How soon the table page says its connection is gone, and back (a script, not a test).

Starts a live daphne on a fresh embedded site, drives /usr/bin/chromium with
Playwright on a solo table, and times, round after round, from the cut to
the page's connection line changing (polled every animation frame):

- **offline**: the browser goes offline (Playwright's `set_offline`, which
  fires the `offline` event) until the line says "You are offline"; then
  back online until it says "Connected again.";
- **silent server**: the socket stays open but no frame passes either way
  (routed through Playwright) and new sockets cannot reach the server, on a
  live network, until the line says "Connection lost" (the page's heartbeat:
  frontend/src/js/table-transport.mjs, HEARTBEAT); then the server can be
  reached again, until "Connected again." (the page's next try: its delay
  grows 0.5 s a failed try, up to 2.5 s).

    .venv/bin/python benchmarks/connection_loss.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.client import open_solo_table
from tests.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.live_site import embedded_env, live_site, migrate


def seconds_until(page: Any, text: str, started: float) -> float:
    page.wait_for_function(
        "(text) => document.getElementById('connection').textContent.startsWith(text)",
        arg=text, polling="raf", timeout=60_000,
    )
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {k: [] for k in ("offline", "online", "silent", "answering")}
    with tempfile.TemporaryDirectory() as var_dir:
        env = embedded_env(Path(var_dir))
        migrate(env)
        with live_site(env) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            # Silence: the open socket passes nothing either way (as a dead
            # connection would) and new sockets cannot reach the server.
            silent = {"on": False}
            muted: list[Any] = []
            current: dict[str, Any] = {}

            def route(ws: Any) -> None:
                if silent["on"]:
                    ws.close()
                    return
                server = ws.connect_to_server()
                ws.on_message(lambda m: None if ws in muted else server.send(m))
                server.on_message(lambda m: None if ws in muted else ws.send(m))
                current["ws"] = ws

            page.route_web_socket(re.compile(r"/ws/tables/"), route)
            open_solo_table(page, base)
            seconds_until(page, "Connected", time.monotonic())
            for _ in range(options.rounds):
                started = time.monotonic()
                context.set_offline(True)
                times["offline"].append(seconds_until(page, "You are offline", started))
                page.wait_for_timeout(1_000)
                started = time.monotonic()
                context.set_offline(False)
                times["online"].append(seconds_until(page, "Connected again", started))
                page.wait_for_timeout(5_000)  # "Connected" again, and a quiet spell of any length

                started = time.monotonic()
                silent["on"] = True
                muted.append(current["ws"])
                times["silent"].append(seconds_until(page, "Connection lost", started))
                started = time.monotonic()
                silent["on"] = False
                times["answering"].append(seconds_until(page, "Connected again", started))
                page.wait_for_timeout(5_000)
            browser.close()

    labels = {
        "offline": "offline -> 'You are offline'",
        "online": "online again -> 'Connected again.'",
        "silent": "server silent -> 'Connection lost'",
        "answering": "answering again -> 'Connected again.'",
    }
    print(f"Connection loss, {options.rounds} round(s), Chromium {CHROMIUM}")
    for key, values in times.items():
        print(f"{labels[key]:<40} median {statistics.median(values):6.2f} s   "
              f"min {min(values):6.2f}   max {max(values):6.2f}   (n={len(values)})")


if __name__ == "__main__":
    main()
