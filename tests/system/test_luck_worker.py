"""The luck check on the real stack: a daphne process, a Celery worker on a
queue of its own, PostgreSQL and Redis (no beat, so only the task queued when
the estimate committed can check it).

Two friends reveal a deal and send their estimates over live sockets: Grace's
honest one is checked by the worker and reaches Ada's socket as a pushed
frame (she asks for nothing); Ada's forged one is flagged in the database and
Grace's socket never carries its numbers.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from games import engine
from tests.live_site import background_process, live_site, migrate
from tests.system import test_two_servers as system

pytestmark = [pytest.mark.services, pytest.mark.slow]

system_database = system.system_database

SETUP = """
import json
from accounts.models import User
from games import services
from games.models import Hand
from tests.support import friends_mid_deal, house_front
ada = User.objects.create_user(username="ada", password=PASSWORD)
grace = User.objects.create_user(username="grace", password=PASSWORD)
table = friends_mid_deal(ada, grace, stake=5)
hands = {h.seat_number: h.cards for h in Hand.objects.filter(deal__table=table)}
services.setting_lock(user=ada, table_id=table.pk, front=house_front(hands[0]))
services.setting_lock(user=grace, table_id=table.pk, front=house_front(hands[1]))
print(json.dumps({"table": table.pk, "hands": hands}))
""".replace("PASSWORD", repr(system.PASSWORD))


def estimate(cards: str) -> engine.LuckEstimate:
    return engine.luck(cards.split(), mode="friend", side="player", samples=120)


def forged(truth: engine.LuckEstimate) -> tuple[int, int, int]:
    """Counts a client could send that the draw does not give."""
    return (0, 0, 120) if truth.wins == 120 else (120, 0, 0)


def shows(text: str, label: str) -> bool:
    return label in text or json.dumps(label)[1:-1] in text


async def play(base: str, cookies: tuple[str, str], table_id: int,
               hands: dict[str, str], database_url: str) -> None:
    path = f"/ws/tables/{table_id}/"
    ada = await system.Socket.open("ada", base, path, cookies[0])
    grace = await system.Socket.open("grace", base, path, cookies[1])
    try:
        for seat in (ada, grace):
            await seat.until(lambda f: f.get("type") == "state")
        honest = estimate(hands["1"])
        sent = await grace.request(
            {"type": "luck", "deal": 1, "wins": honest.wins, "pushes": honest.pushes,
             "losses": honest.losses}
        )
        label = sent["deal"]["results"]["you"]["luck"]
        assert label == honest.label()
        # Ada asks for nothing: the worker's check reaches her socket.
        told = await ada.until(
            lambda f: "id" not in f
            and ((f.get("deal") or {}).get("results") or {}).get("other", {}).get("luck_check")
            == "passed",
            timeout=30,
        )
        assert told["deal"]["results"]["other"]["luck"] == label

        start = len(grace.frames)
        wins, pushes, losses = forged(estimate(hands["0"]))
        bad = engine.luck_from_counts(wins=wins, pushes=pushes, losses=losses).label()
        await ada.request({"type": "luck", "deal": 1, "wins": wins, "pushes": pushes,
                           "losses": losses})
        system.poll("the worker's flag", lambda: system.query(
            database_url,
            "select a.ok from games_luckaudit a join games_hand h on h.id = a.hand_id"
            " where h.seat_number = 0",
        ) == [(False,)])
        now = await grace.request({"type": "state"})
        other = now["deal"]["results"]["other"]
        assert (other["luck"], other["luck_check"]) == (None, None)
        assert not shows(json.dumps(grace.frames[start:]), bad)
    finally:
        await ada.close()
        await grace.close()


def thread_policies(pid: int) -> dict[int, int]:
    """Each thread of process ``pid``: its scheduling policy (``/proc``)."""
    policies = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        policies[int(task.name)] = int(fields[38])  # field 41 of stat(5): policy
    return policies


def worker(name: str, *queues: str) -> list[str]:
    """A solo Celery worker's command: on ``queues`` (``-Q``), or on every
    queue of the settings when none is given (what a plain ``celery worker``
    takes)."""
    return [sys.executable, "-m", "celery", "-A", "paigow_site", "worker", "--pool=solo",
            "--loglevel=INFO", "--without-gossip", "--without-mingle", "-n", f"{name}@%h",
            *(["-Q", ",".join(queues)] if queues else [])]


def costed(database_url: str) -> int:
    rows = system.query(
        database_url, "select count(*) from games_hand where cost_method = 'exact'"
    )
    return int(rows[0][0])


def reveal_and_send_estimates(env: dict[str, str], base: str, database_url: str) -> None:
    """Set up the revealed deal, then ``play`` it over two live sockets."""
    ids = system.manage_shell(env, SETUP)
    cookies = (system.sign_in(base, "ada"), system.sign_in(base, "grace"))
    # Its own thread: the session's Playwright driver may own this one's loop.
    with ThreadPoolExecutor(1) as runner:
        runner.submit(
            asyncio.run, play(base, cookies, ids["table"], ids["hands"], database_url)
        ).result(timeout=120)


def test_a_worker_checks_estimates_sent_over_live_sockets(
    system_database: str, tmp_path: Path
) -> None:
    run = uuid.uuid4().hex[:10]
    env = system.stack_env(system_database, tmp_path / "var", f"luck-{run}")
    migrate(env)
    with (
        background_process(
            worker(f"luck-{run}"), env, log_path=tmp_path / "worker.log"
        ) as process,
        live_site(env, log_path=tmp_path / "web.log") as base,
    ):
        reveal_and_send_estimates(env, base, system_database)
        assert process.poll() is None, "the worker died"
        # Both players' decision costs, computed by the worker's own thread
        # (no idle-class thread: the costs' worker has CPUs of its own).
        system.poll("both decision costs", lambda: costed(system_database) == 2, seconds=60)
        assert set(thread_policies(process.pid).values()) == {os.SCHED_OTHER}
        checks = system.query(
            system_database, "select h.seat_number, a.ok from games_luckaudit a"
            " join games_hand h on h.id = a.hand_id order by h.seat_number",
        )
        assert checks == [(0, False), (1, True)]
    assert process.returncode == 0
    system._forget_redis_keys(f"*luck-{run}*")


def test_a_luck_check_never_waits_behind_the_decision_costs(
    system_database: str, tmp_path: Path
) -> None:
    """The decision costs have a queue of their own: a worker on the default
    queue alone checks both estimates and pushes Grace's to Ada while the two
    costs wait in Redis, and a worker on the costs' queue records them."""
    import redis

    run = uuid.uuid4().hex[:10]
    queue = f"luck-{run}"
    env = system.stack_env(system_database, tmp_path / "var", queue)
    migrate(env)
    broker = redis.Redis.from_url(env["REDIS_URL"])
    with (
        background_process(
            worker(f"checks-{run}", queue), env, log_path=tmp_path / "checks.log"
        ) as checks,
        live_site(env, log_path=tmp_path / "web.log") as base,
    ):
        reveal_and_send_estimates(env, base, system_database)
        assert costed(system_database) == 0
        assert broker.llen(f"{queue}-costs") >= 1, "the decision costs were not queued"
        with background_process(
            worker(f"costs-{run}", f"{queue}-costs"), env, log_path=tmp_path / "costs.log"
        ) as costs:
            system.poll("both decision costs", lambda: costed(system_database) == 2, seconds=60)
            assert costs.poll() is None, "the costs' worker died"
        assert checks.poll() is None, "the checks' worker died"
    system._forget_redis_keys(f"*luck-{run}*")
