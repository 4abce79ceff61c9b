"""A heartbeat's database work and Django's health check: CPU per call (a script, not a test).

Every open table socket beats every ``PRESENCE_HEARTBEAT_SECONDS`` (at 500
friend tables, 50 beats a second), and each message and beat used to begin
with Django's health check (``CONN_HEALTH_CHECKS``: a ``SELECT 1``). This
prints the CPU time of the calling thread (``time.thread_time``) per call,
median of 7 × 1,000 calls, on the database in the environment:

- the beat as two statements (``presence_heartbeat`` then
  ``selectors.other_connected``: what SQLite still runs);
- ``presence_beat`` (on PostgreSQL one statement);
- ``connection.is_usable()``, the health check's ``SELECT 1``.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paigow_bench \\
        .venv/bin/python benchmarks/heartbeat.py

It makes two players, a friend table and two presence rows in that database.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")


def cpu_per_call(func: Callable[[], object], calls: int = 1000, runs: int = 7) -> float:
    """Median CPU µs of one call, over ``runs`` runs of ``calls`` calls."""
    timings = []
    for _ in range(runs):
        start = time.thread_time()
        for _ in range(calls):
            func()
        timings.append((time.thread_time() - start) * 1e6 / calls)
    return statistics.median(timings)


def main() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    from games import selectors, services
    from games.models import Invite, Presence, Seat
    from games.realtime import presence

    stamp = f"{time.time_ns()}"
    user = get_user_model()
    ada = user.objects.create_user(username=f"beat-a-{stamp}", password="x")
    grace = user.objects.create_user(username=f"beat-g-{stamp}", password="x")
    table = services.table_start(user=ada, mode="friend")
    invite = Invite.objects.filter(table=table).first()
    assert invite is not None
    services.invite_accept(user=grace, token=invite.token)
    first, second = Seat.objects.filter(table=table).order_by("number")
    for seat in (first, second):
        Presence.objects.create(
            seat=seat, channel_name=f"beat.{seat.number}.{stamp}", last_seen=timezone.now()
        )
    channel = f"beat.0.{stamp}"

    def two_statements() -> bool:
        presence.presence_heartbeat(seat_id=first.pk, channel_name=channel)
        return selectors.other_connected(table_id=table.pk, seat_number=0)

    def beat() -> bool:
        return presence.presence_beat(
            seat_id=first.pk, channel_name=channel, table_id=table.pk, seat_number=0
        )

    print(f"on {connection.vendor}; CPU of the calling thread a call, median of 7 × 1,000:")
    for name, func in (
        ("the beat as two statements", two_statements),
        ("presence_beat", beat),
        ("the health check (is_usable)", connection.is_usable),
    ):
        print(f"  {name:32s} {cpu_per_call(func):7.1f} µs")


if __name__ == "__main__":
    main()
