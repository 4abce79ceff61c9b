"""Where a deal's server time goes: each step of a friend deal, timed, with its queries.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paigow_bench \
        .venv/bin/python benchmarks/profile_deal.py [--deals 50] [--cprofile STEP] \
        [--queries STEP] [--check-apart]

Runs ``--deals`` whole friend deals through the same calls the table socket
makes (each message through ``games.realtime.apply.message_apply`` with an
id, as the page sends them, which reads both seats' views in its transaction,
as the acting socket does before it answers and pushes the other seat's
view), with the socket's check that its session still signs its user in
(``signed_in``: read in the table lock's statement), on the database in the environment (the
embedded SQLite when none), and prints the median time and the query count of
every step, the views included. ``--cprofile STEP`` prints the top of a
cProfile of that step (e.g. ``lock2``); ``--queries STEP`` the SQL of its
last call.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--cprofile", default=None)
    parser.add_argument("--sort", default="cumulative", help="the cProfile's order (tottime…)")
    parser.add_argument("--queries", default=None, help="print the SQL of this step's last call")
    parser.add_argument(
        "--check-apart", action="store_true",
        help="check the session in a statement of its own before each message, as the"
        " socket did before it was read in the table lock's statement",
    )
    args = parser.parse_args()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games import selectors, services, tasks
    from games.engine import house_way
    from games.models import Invite
    from games.realtime import session
    from games.realtime.apply import message_apply
    from games.realtime.messages import Message

    # The worker's report refresh is not the socket's time (it runs eagerly
    # without REDIS_URL): queue nothing.
    tasks.report_refresh.delay = tasks.report_refresh.apply_async = lambda *a, **k: None
    User = get_user_model()
    stamp = f"{time.time_ns()}"
    host = User.objects.create(username=f"prof-{stamp}-a")
    friend = User.objects.create(username=f"prof-{stamp}-b")
    table = services.table_start(user=host, mode="friend")
    services.invite_accept(user=friend, token=Invite.objects.get(table=table).token)
    tid = table.pk
    times: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    queries: dict[str, list[int]] = {}
    statements: list[str] = []
    profiler = cProfile.Profile() if args.cprofile else None

    def step(name: str, call):
        # The query log keeps 9,000 entries: once full, a capture would count none.
        connection.queries_log.clear()
        with CaptureQueriesContext(connection) as captured:
            if profiler and name == args.cprofile:
                profiler.enable()
            start, cpu = time.perf_counter(), time.thread_time()
            result = call()
            elapsed = time.perf_counter() - start
            spent = time.thread_time() - cpu
            if profiler and name == args.cprofile:
                profiler.disable()
        times.setdefault(name, []).append(elapsed)
        cpus.setdefault(name, []).append(spent)
        queries.setdefault(name, []).append(len(captured))
        if name == args.queries:
            statements[:] = [q["sql"] for q in captured.captured_queries]
        return result

    ids = iter(range(1, 10**9))
    sessions, seat_ids = {}, {}
    for user in (host, friend):
        browser = Client()
        browser.force_login(user)
        sessions[user.pk] = browser.session.session_key
        seat_ids[user.pk] = selectors.seat_for(user=user, table_id=tid).pk

    def socket(user, kind: str, **fields):
        """What the table socket runs for a message with an ``id``."""

        def run():
            signed_in = session.SignedIn(sessions[user.pk], user.pk)
            if args.check_apart:
                assert session.session_holds(**signed_in._asdict())
                signed_in = None
            return message_apply(
                user=user, table_id=tid, message=Message(kind, fields, next(ids)),
                signed_in=signed_in, seat_id=seat_ids[user.pk],
            )

        return run

    process_cpu = time.process_time()
    for _ in range(args.deals):
        step("stake", socket(host, "stake", amount=1))
        shown = selectors.table_state(table_id=tid, seat_number=1)["table"]["proposal"]
        step("accept", socket(friend, "accept_stake", amount=shown["amount"], proposal=shown["id"]))
        step("deal", socket(host, "deal"))
        number = selectors.table_state(table_id=tid, seat_number=0)["deal"]["number"]
        for name, user, seat in (("lock1", host, 0), ("lock2", friend, 1)):
            cards = selectors.table_state(table_id=tid, seat_number=seat)["deal"]["you"]["cards"]
            front = list(house_way(cards).setting.front)
            step(name, socket(user, "lock", front=front, deal=number))
        for user in (host, friend):
            step("luck", socket(user, "luck", deal=number, wins=60, pushes=0, losses=60))
    process_cpu = time.process_time() - process_cpu
    print(
        f"{args.deals} friend deals on {connection.vendor}; median ms, CPU ms of the"
        " calling thread and queries per call:"
    )
    total = total_cpu = 0.0
    for name, values in times.items():
        per_deal = sum(values) / args.deals
        total += per_deal
        total_cpu += sum(cpus[name]) / args.deals
        print(
            f"  {name:7s} {statistics.median(values) * 1000:7.2f} ms"
            f" {statistics.median(cpus[name]) * 1000:6.2f} CPU"
            f"  {statistics.median(queries[name]):4.0f} queries"
            f"  ({len(values) // args.deals}× a deal: {per_deal * 1000:6.2f} ms a deal)"
        )
    print(f"  total   {total * 1000:7.2f} ms a deal, {total_cpu * 1000:.2f} ms of its thread's CPU")
    print(
        f"  the process's CPU (every thread, the reads between the steps too):"
        f" {process_cpu / args.deals * 1000:.2f} ms a deal"
    )
    check = []
    for _ in range(200):
        start = time.perf_counter()
        session.session_holds(session_key=sessions[host.pk], user_id=host.pk)
        check.append(time.perf_counter() - start)
    print(
        f"  the session check on its own (a state message's, a heartbeat's):"
        f" {statistics.median(check) * 1000:.2f} ms"
    )
    for sql in statements:
        print(f"    {sql[:160]}")
    if profiler:
        stats = pstats.Stats(profiler).sort_stats(args.sort)
        stats.print_stats(25)


if __name__ == "__main__":
    main()
