"""A socket message's CPU and round trips with this round's cuts on and off, in one process.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paigow_bench \
        .venv/bin/python benchmarks/message_modes.py [--deals 320]

Plays ``--deals`` friend deals through ``message_apply`` as the table socket
calls it (session check and seat id, as ``profile_deal.py``), switching
between three modes deal by deal, so that each mode sees the same drift of
a machine whose speed moves by a quarter from one minute to the next:

- ``before``: psycopg sends each transaction's BEGIN on its own and Django's
  COMMIT goes after the writes; rows are made through ``Model.from_db``;
- ``folded``: BEGIN goes with the table's open (``sql.first_of_transaction``)
  and the COMMIT with the writes (``sql.saves_then_commit``);
- ``folded, no init``: and rows are made without ``Model.__init__``
  (``sql.init_hooks``).

Prints each message's median CPU time on its thread and its round trips
(the statements Django sent and the commands psycopg sent of its own). The
background work a reveal and a luck estimate queue is not run (it is a
worker's). PostgreSQL only: elsewhere nothing is folded.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")

MODES = ("before", "folded", "folded, no init")
STEPS = ("stake", "accept", "deal", "lock", "reveal", "luck")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=320)
    args = parser.parse_args()
    import django

    django.setup()
    import psycopg
    from django.db import connection

    from games import sql, tasks

    if connection.vendor != "postgresql":
        raise SystemExit("PostgreSQL only (DATABASE_URL): elsewhere nothing is folded.")
    for name in ("report_refresh_later", "decision_cost_later", "luck_verify_later"):
        setattr(tasks, name, lambda **kwargs: None)  # a worker's work, not the socket's
    first, commits, hooks = sql.first_of_transaction, sql._commits_here, sql.init_hooks

    def switch(mode: str) -> None:
        folded = mode != "before"
        sql.first_of_transaction = first if folded else (lambda: None)  # type: ignore[assignment]
        sql._commits_here = commits if folded else (lambda: False)  # type: ignore[assignment]
        sql.init_hooks = hooks if mode == "folded, no init" else (lambda model: ["off"])  # type: ignore[assignment]
        sql._mapping.cache_clear()

    trips = [0]
    own = psycopg.Connection._exec_command

    def exec_command(self: Any, command: Any, *rest: Any, **kwargs: Any) -> Any:
        trips[0] += 1
        return own(self, command, *rest, **kwargs)

    def counted(run: Callable[..., Any], sql_: str, *rest: Any) -> Any:
        trips[0] += 1
        return run(sql_, *rest)

    psycopg.Connection._exec_command = exec_command  # type: ignore[method-assign]
    cpu: dict[tuple[str, str], list[float]] = {}
    round_trips: dict[tuple[str, str], int] = {}
    play = _player()
    with connection.execute_wrapper(counted):
        for i in range(args.deals):
            mode = MODES[i % len(MODES)]
            switch(mode)
            for step, make in play():
                call = make()
                trips[0] = 0
                start = time.thread_time()
                call()
                cpu.setdefault((mode, step), []).append(time.thread_time() - start)
                round_trips[(mode, step)] = trips[0]
    switch("folded, no init")
    print(
        f"{args.deals} friend deals on PostgreSQL, the modes taking turns deal by deal;"
        " median CPU ms of the message's thread (round trips):"
    )
    print(f"{'':16}" + "".join(f"{s:>13}" for s in STEPS) + f"{'a deal':>10}")
    first_total = None
    for mode in MODES:
        medians = {s: statistics.median(cpu[(mode, s)]) * 1000 for s in STEPS}
        total = sum(medians.values()) + medians["luck"]  # two luck estimates a deal
        first_total = first_total or total
        cells = "".join(f"{medians[s]:7.2f} ({round_trips[(mode, s)]})" for s in STEPS)
        print(f"{mode:16}{cells}{total:8.2f} ({total / first_total:.2f})")


def _player() -> Callable[[], list[tuple[str, Callable[[], Callable[[], Any]]]]]:
    """A friend table and its two signed-in seats; each call gives the next
    deal's steps: a name, and what reads what the page would show (not
    timed) and gives the call the socket makes (timed)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from games import selectors, services
    from games.engine import house_way
    from games.models import Invite
    from games.realtime import session
    from games.realtime.apply import message_apply
    from games.realtime.messages import Message

    stamp = time.time_ns()
    user_model = get_user_model()
    host = user_model.objects.create(username=f"modes-{stamp}-a")
    friend = user_model.objects.create(username=f"modes-{stamp}-b")
    table = services.table_start(user=host, mode="friend")
    services.invite_accept(user=friend, token=Invite.objects.get(table=table).token)
    signed, seats = {}, {}
    for user in (host, friend):
        browser = Client()
        browser.force_login(user)
        signed[user.pk] = session.SignedIn(browser.session.session_key, user.pk)
        seats[user.pk] = selectors.seat_for(user=user, table_id=table.pk).pk
    ids = iter(range(1, 10**9))

    def send(user: Any, kind: str, **fields: Any) -> Callable[[], Any]:
        return lambda: message_apply(
            user=user, table_id=table.pk, message=Message(kind, fields, next(ids)),
            signed_in=signed[user.pk], seat_id=seats[user.pk],
        )

    def shown(seat: int) -> dict[str, Any]:
        return selectors.table_state(table_id=table.pk, seat_number=seat)

    def accept() -> Callable[[], Any]:
        proposal = shown(1)["table"]["proposal"]
        return send(friend, "accept_stake", amount=proposal["amount"], proposal=proposal["id"])

    def lock(user: Any, seat: int) -> Callable[[], Callable[[], Any]]:
        def make() -> Callable[[], Any]:
            deal = shown(seat)["deal"]
            front = list(house_way(deal["you"]["cards"]).setting.front)
            return send(user, "lock", front=front, deal=deal["number"])

        return make

    def luck(user: Any) -> Callable[[], Callable[[], Any]]:
        def make() -> Callable[[], Any]:
            number = shown(0)["deal"]["number"]
            return send(user, "luck", deal=number, wins=60, pushes=0, losses=60)

        return make

    def deal() -> list[tuple[str, Callable[[], Callable[[], Any]]]]:
        return [
            ("stake", lambda: send(host, "stake", amount=1)),
            ("accept", accept),
            ("deal", lambda: send(host, "deal")),
            ("lock", lock(host, 0)),
            ("reveal", lock(friend, 1)),
            ("luck", luck(host)),
            ("luck", luck(friend)),
        ]

    return deal


if __name__ == "__main__":
    main()
