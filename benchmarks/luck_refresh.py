"""What a socket spends answering a luck check's refresh: its view read again.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paigow_bench \
        .venv/bin/python benchmarks/luck_refresh.py [--rounds 300]

A luck check (``upkeep``) tells the other seat's sockets to refresh. Each
reads its own view (``TableSocket.read_state_reconnecting``:
``selectors.table_state``, built by ``engine.seat_view``) and writes its
frame's text, as ``TableSocket.send_state`` does. Before, a socket whose
last view was of the check's version patched that view's JSON in place
instead (``luck_checked_frame``, removed: a second author of views); it is
kept here, as it was, to compare. One friend table on the database in the
environment (the embedded SQLite when none), at the moment a check lands:
both hands revealed and their luck estimates sent. Prints the median wall
time and thread CPU of each, and the read's query count.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")


def patched(sent: str, told: dict[str, Any]) -> str:
    """The removed in-place patch of the last frame (its path that sends)."""
    frame = orjson.loads(sent)
    other = frame["deal"]["results"]["other"]
    other.update({"luck": told["luck"], "luck_check": told["luck_check"]})
    frame.pop("id", None)
    frame.pop("replayed", None)
    return orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS).decode()


def timed(call: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Median wall and thread-CPU milliseconds of ``call``."""
    walls, cpus = [], []
    for _ in range(rounds):
        start, cpu = time.perf_counter(), time.thread_time()
        call()
        walls.append(time.perf_counter() - start)
        cpus.append(time.thread_time() - cpu)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games import enqueue, selectors, services, tasks
    from games.engine import house_way
    from games.models import Invite
    from games.realtime import session
    from games.realtime.apply import message_apply
    from games.realtime.messages import Message
    from games.realtime.table_socket import MessageBucket, TableSocket, frame_text

    # Checks and report refreshes are a worker's, not the socket's: queue none.
    tasks.report_refresh.delay = tasks.report_refresh.apply_async = lambda *a, **k: None
    enqueue.luck_verify_later = lambda *a, **k: None  # type: ignore[assignment]
    User = get_user_model()
    stamp = f"{time.time_ns()}"
    host = User.objects.create(username=f"luckref-{stamp}-a")
    friend = User.objects.create(username=f"luckref-{stamp}-b")
    table = services.table_start(user=host, mode="friend")
    services.invite_accept(user=friend, token=Invite.objects.get(table=table).token)
    tid = table.pk
    ids = iter(range(1, 10**9))
    signed: dict[int, tuple[session.SignedIn, int]] = {}
    for user in (host, friend):
        browser = Client()
        browser.force_login(user)
        key = browser.session.session_key
        seat_id = selectors.seat_for(user=user, table_id=tid).pk
        signed[user.pk] = (session.SignedIn(key, user.pk), seat_id)

    def send(user: Any, kind: str, **fields: Any) -> None:
        signed_in, seat_id = signed[user.pk]
        message_apply(user=user, table_id=tid, message=Message(kind, fields, next(ids)),
                      signed_in=signed_in, seat_id=seat_id)

    send(host, "stake", amount=1)
    shown = selectors.table_state(table_id=tid, seat_number=1)["table"]["proposal"]
    send(friend, "accept_stake", amount=shown["amount"], proposal=shown["id"])
    send(host, "deal")
    number = selectors.table_state(table_id=tid, seat_number=0)["deal"]["number"]
    for user, seat in ((host, 0), (friend, 1)):
        cards = selectors.table_state(table_id=tid, seat_number=seat)["deal"]["you"]["cards"]
        send(user, "lock", front=list(house_way(cards).setting.front), deal=number)
    for user in (host, friend):
        send(user, "luck", deal=number, wins=60, pushes=0, losses=60)

    async def nowhere(*_: Any) -> None:
        return None

    socket = TableSocket(
        user=host, table_id=tid, seat_number=0, seat_id=signed[host.pk][1],
        session_key=signed[host.pk][0].session_key, group=table.group_name, origin="bench",
        base_url="http://localhost", bucket=MessageBucket(rate=1, burst=1, now=0.0),
        send=nowhere, close=nowhere, group_send=nowhere,
    )
    view = socket.read_state()
    sent = frame_text({"type": "state", **view, "id": "l4"})
    told = {"deal": number, "version": view["table"]["version"], "luck": "Luck +1.2",
            "luck_check": "passed"}
    assert view["deal"]["results"]["other"] is not None

    def read() -> None:
        frame_text({"type": "state", **socket.read_state_reconnecting()})

    read()  # a warm connection, as a socket's database thread has
    with CaptureQueriesContext(connection) as captured:
        read()
    wall_read, cpu_read = timed(read, args.rounds)
    wall_patch, cpu_patch = timed(lambda: patched(sent, told), args.rounds)
    print(f"one socket's answer to a luck check's refresh, {connection.vendor}, "
          f"{args.rounds} rounds, frame {len(sent)} bytes:")
    print(f"  read its view again:   {wall_read:6.3f} ms wall, {cpu_read:6.3f} ms CPU, "
          f"{len(captured)} queries")
    print(f"  patch the last frame:  {wall_patch:6.3f} ms wall, {cpu_patch:6.3f} ms CPU "
          f"(removed)")


if __name__ == "__main__":
    main()
