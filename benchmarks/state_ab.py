"""Before/after of ``selectors.table_state``: the same frames, and the time of each.

    git show <commit>:games/selectors.py > /tmp/selectors_before.py
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paigow_bench \
        .venv/bin/python benchmarks/state_ab.py /tmp/selectors_before.py [--tables 40 --rounds 5]

Loads the older ``games/selectors.py`` beside the current one, checks that
both build identical frames for both seats of the latest ``--tables`` tables
that have a revealed deal (run benchmarks/load.py or profile_deal.py first to
have some), then times them interleaved, ``--rounds`` times, and prints the
median time of one ``table_state`` and its query count.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import selectors as after
    from games.models import Hand

    spec = importlib.util.spec_from_file_location("games.selectors_before", args.before)
    assert spec
    assert spec.loader
    before = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(before)
    recent = Hand.objects.filter(deal__status="revealed").order_by("-id")
    tables = list(dict.fromkeys(recent.values_list("deal__table_id", flat=True)[:1000]))
    tables = tables[: args.tables]
    for table_id in tables:
        for seat in (0, 1):
            a = before.table_state(table_id=table_id, seat_number=seat)
            b = after.table_state(table_id=table_id, seat_number=seat)
            assert a == b, f"table {table_id} seat {seat}: the frames differ"
    print(f"identical frames on {len(tables)} tables ({connection.vendor})")
    times: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for name, module in (("before", before), ("after", after)):
            start = time.perf_counter()
            for table_id in tables:
                for seat in (0, 1):
                    module.table_state(table_id=table_id, seat_number=seat)
            times[name].append((time.perf_counter() - start) / (2 * len(tables)) * 1000)
    for name, module in (("before", before), ("after", after)):
        with CaptureQueriesContext(connection) as captured:
            module.table_state(table_id=tables[0], seat_number=0)
        print(
            f"{name:6s} median {statistics.median(times[name]):6.2f} ms a table_state "
            f"({len(captured)} queries; rounds: {', '.join(f'{t:.2f}' for t in times[name])})"
        )
    ratio = statistics.median(times["before"]) / statistics.median(times["after"])
    print(f"speed-up {ratio:.1f}×")


if __name__ == "__main__":
    main()
