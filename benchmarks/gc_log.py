"""Run a Python program with its garbage collections logged (``load.py --gc-log``).

    python benchmarks/gc_log.py LOG_DIR -m paigow_site.server -b 127.0.0.1 -p 8000 app

Every collection of the cyclic collector holds the GIL from start to end;
in a web process every socket waits for it. This wrapper records each one
(``gc.callbacks``: the wall-clock time it ended, its generation, its length
in ms) and writes them once a second to ``LOG_DIR/gc-<pid>.log``, one line
each, then runs the module as ``python -m`` would. ``record`` does the same
inside a process that is already running (the load generator's own).
"""

from __future__ import annotations

import gc
import os
import runpy
import sys
import threading
import time
from pathlib import Path
from typing import Any


def record(log_dir: Path) -> None:
    """Log this process's collections to ``log_dir/gc-<pid>.log``."""
    started: list[float] = [0.0]
    pending: list[str] = []

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            ms = (time.perf_counter() - started[0]) * 1000
            pending.append(f"{time.time():.3f} {info['generation']} {ms:.2f}\n")

    def write() -> None:
        path = log_dir / f"gc-{os.getpid()}.log"
        while True:
            time.sleep(1)
            lines, pending[:] = pending[:], []
            with path.open("a") as out:
                out.writelines(lines)

    log_dir.mkdir(parents=True, exist_ok=True)
    gc.callbacks.append(callback)
    threading.Thread(target=write, daemon=True, name="gc-log").start()


def pauses(log_dir: Path, pid: int, window: tuple[float, float]) -> list[tuple[int, float]]:
    """The (generation, ms) of ``pid``'s collections that ended in ``window`` (epoch s)."""
    path = log_dir / f"gc-{pid}.log"
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        at, generation, ms = line.split()
        if window[0] <= float(at) <= window[1]:
            out.append((int(generation), float(ms)))
    return out


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[2] != "-m":
        raise SystemExit(__doc__.splitlines()[2].strip())
    log_dir, module = Path(sys.argv[1]), sys.argv[3]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as -m from the repo
    record(log_dir)
    sys.argv = [module, *sys.argv[4:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
