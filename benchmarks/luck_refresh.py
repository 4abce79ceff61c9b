"""What a luck check's refresh costs the socket that answers it, read again or put in place.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paigow_bench \
        .venv/bin/python benchmarks/luck_refresh.py [--deals 40] [--repeat 50]

Plays ``--deals`` friend deals to the reveal through ``message_apply`` (as
``message_modes.py``), each with the second seat's luck estimate recorded
and its check left undone, and for each times, on one thread, what the
first seat's socket does with the check's refresh:

- ``read again``: what a bare refresh costs it, its view read
  (``TableConsumer.read_state``: ``selectors.table_state``, one round trip)
  and written as its frame's text;
- ``put in place``: ``consumer.luck_checked_frame``, the check put in the
  text of the view the socket last sent.

Both are taken in turn ``--repeat`` times a deal; the median CPU µs of each
is printed, with how many round trips each made. Neither counts what both
share (the refresh's arrival from Redis, the frame's send). The database
hop a read makes (``db_threads``: two thread wake-ups, ``socket_hops.py``)
comes on top of ``read again``.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    import django

    django.setup()
    from django.db import connection

    from games import selectors, tasks
    from games.realtime.consumer import frame_text, luck_checked_frame

    for name in ("report_refresh_later", "decision_cost_later", "luck_verify_later"):
        setattr(tasks, name, lambda **kwargs: None)  # the check is the point: left undone
    import message_modes

    play = message_modes._player()
    table_id = None
    cpu: dict[str, list[float]] = {"read again": [], "put in place": []}
    trips: dict[str, int] = {}
    statements = [0]

    def counted(run: Any, *rest: Any) -> Any:
        statements[0] += 1
        return run(*rest)

    for _ in range(args.deals):
        steps = play()
        for _, make in [*steps[:-2], steps[-1]]:  # to the reveal, the second seat's estimate
            applied = make()()
            table_id = applied.views[0].state["table"]["id"]
        state = selectors.table_state(table_id=table_id, seat_number=0)
        sent = (state["table"]["version"], frame_text({"type": "state", **state, "id": "l"}))
        other = state["deal"]["results"]["other"]
        assert other["luck_check"] == "checking", other
        told = {
            "deal": state["deal"]["number"], "version": state["table"]["version"],
            "luck": "Luck +1.0 (−2.0 to +4.0)", "luck_check": "passed",
        }

        calls = {
            "read again": functools.partial(_read_again, table_id),
            "put in place": functools.partial(luck_checked_frame, sent, sent[0], told),
        }
        for _ in range(args.repeat):
            for name, call in calls.items():
                statements[0] = 0
                with connection.execute_wrapper(counted):
                    start = time.thread_time()
                    call()
                    cpu[name].append(time.thread_time() - start)
                trips[name] = statements[0]
        steps[-2][1]()()  # the first seat's estimate: the deal is done
    print(
        f"{args.deals} revealed friend deals × {args.repeat}, {connection.vendor};"
        " median CPU µs of what the first seat's socket does with the check's refresh:"
    )
    medians = {name: statistics.median(times) * 1e6 for name, times in cpu.items()}
    for name, median in medians.items():
        print(f"  {name:13} {median:8.1f} µs  ({trips[name]} round trips)")
    print(f"  ratio {medians['put in place'] / medians['read again']:.3f}")


def _read_again(table_id: int) -> str:
    """What a bare refresh makes the socket do: its view read, as its frame's text."""
    from games import selectors
    from games.realtime.consumer import frame_text

    return frame_text({"type": "state", **selectors.table_state(table_id=table_id, seat_number=0)})


if __name__ == "__main__":
    main()
