"""The queues and the broker under a flood and faults, on real processes: a
private redis-server (never the shared one), PostgreSQL, daphne and Celery
workers laid out as docker-compose.yml runs them (one on the default queue,
one on the analysis queue).

- One account floods the practice table with deals (each asks for a 20,000-
  opponent analysis) while another pair's luck check is queued: the check
  is done in normal time, and the flood gets the budget answer (429).
- A worker SIGKILLed in the middle of a luck check: the check is done by a
  new worker within the (here shortened) visibility timeout, once.
- Redis restarted while a worker holds an unacknowledged message (a report
  refresh's countdown): the worker survives and runs a task afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.live_site import background_process, live_site, migrate
from tests.system import test_two_servers as system
from tests.system.test_faults import Redis, private_redis
from tests.system.test_luck_worker import SETUP, estimate, worker
from tests.system.test_redis_restart import private_env

pytestmark = [pytest.mark.services, pytest.mark.slow]

system_database = system.system_database

# The revealed deal of test_luck_worker's SETUP, then Grace's honest estimate
# recorded (its check queued on commit), with the moment it committed.
RECORD = """
import json, time
from accounts.models import User
from games import enqueue, services
from games.models import Hand
hand = Hand.objects.get(deal__table_id=TABLE, seat_number=1)
truth = ESTIMATE
services.luck_record(user=User.objects.get(username="grace"), table_id=TABLE, deal_number=1,
                     wins=truth[0], pushes=truth[1], losses=truth[2])
recorded = time.time()
enqueue.wait()  # the queueing thread has published the check
print(json.dumps({"hand": hand.pk, "recorded": recorded}))
"""


@pytest.fixture
def redis() -> Iterator[Redis]:
    with private_redis() as server:
        yield server


def stack(database: str, redis: Redis, var_dir: Path, **extra: str) -> dict[str, str]:
    """A stack on ``database`` and the private Redis, queues of its own."""
    run = f"faults-{uuid.uuid4().hex[:8]}"
    return system.stack_env(database, var_dir, run, REDIS_URL=f"redis://127.0.0.1:{redis.port}/0",
                            **extra)


def revealed_and_recorded(env: dict[str, str]) -> dict[str, Any]:
    """Ada and Grace's revealed deal, then Grace's estimate recorded: its hand
    id and when it committed."""
    ids = system.manage_shell(env, SETUP)
    truth = estimate(ids["hands"]["1"])
    code = (RECORD.replace("TABLE", str(ids["table"]))
            .replace("ESTIMATE", repr((truth.wins, truth.pushes, truth.losses))))
    return {**ids, **system.manage_shell(env, code)}


def checked_at(database: str, hand_id: int) -> float | None:
    rows = system.query(
        database, "select extract(epoch from checked_at) from games_luckaudit where hand_id = %s",
        hand_id)
    return float(rows[0][0]) if rows else None


def ready(log: Path) -> bool:
    return log.exists() and " ready." in log.read_text()


def deal(base: str, cookie: str) -> tuple[int, dict[str, Any]]:
    """One practice deal by the page's script (JSON): its status and body."""
    csrf = next(p.split("=", 1)[1] for p in cookie.split("; ") if p.startswith("csrftoken="))
    request = urllib.request.Request(
        f"{base}/practice/deal/", data=b"drill=any", method="POST",
        headers={"Cookie": cookie, "X-CSRFToken": csrf, "Accept": "application/json",
                 "Content-Type": "application/x-www-form-urlencoded", "Referer": base + "/"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


FLOOD = 300  # practice deals: about a minute of one worker's CPU when all are analysed


def test_a_flood_of_heavy_work_never_holds_back_another_pairs_luck_check(
    system_database: str, redis: Redis, tmp_path: Path
) -> None:
    env = stack(system_database, redis, tmp_path / "var")
    migrate(env)
    system.manage_shell(env, "from accounts.models import User\nUser.objects.create_user("
                             f"username='mallory', password={system.PASSWORD!r})\nprint(1)")
    queue = env["CELERY_QUEUE"]
    logs = {name: tmp_path / f"{name}.log" for name in ("checks", "analyses")}
    with (
        live_site(env, log_path=tmp_path / "web.log") as base,
        background_process(worker(f"checks-{queue}", queue), env, log_path=logs["checks"]),
        background_process(worker(f"analyses-{queue}", f"{queue}-analysis"), env,
                           log_path=logs["analyses"]),
    ):
        system.poll("both workers' start", lambda: all(ready(log) for log in logs.values()),
                    seconds=90)
        mallory = system.sign_in(base, "mallory")
        with ThreadPoolExecutor(4) as flood:
            answers = list(flood.map(lambda _: deal(base, mallory), range(FLOOD)))
        recorded = revealed_and_recorded(env)
        system.poll("Grace's luck check", lambda: checked_at(
            system_database, recorded["hand"]) is not None, seconds=120)
        latency = checked_at(system_database, recorded["hand"]) - recorded["recorded"]
        print(f"luck check {latency:.2f} s after the estimate, behind a flood of {FLOOD} deals")
    assert latency < 15, latency  # about 0.3 s unloaded; the flood is a minute of work
    statuses = [status for status, _ in answers]
    refused = [body for status, body in answers if status == 429]
    assert refused, f"the flood was never refused: {set(statuses)}"
    assert {body["error"] for body in refused} == {"analysis_budget"}
    assert all("wait" in body["detail"] for body in refused)
    assert set(statuses) == {201, 429}


def test_a_worker_killed_mid_check_leaves_it_to_a_new_worker_within_the_visibility_timeout(
    system_database: str, redis: Redis, tmp_path: Path
) -> None:
    import psycopg

    timeout = 20  # seconds (90 in production); the countdowns shortened to fit (paigow.E002)
    env = stack(system_database, redis, tmp_path / "var", CELERY_VISIBILITY_TIMEOUT=str(timeout),
                REPORT_REFRESH_SECONDS="2", TASK_RETRY_BACKOFF_MAX="2")
    migrate(env)
    recorded = revealed_and_recorded(env)  # its check queued, no worker yet
    queue = env["CELERY_QUEUE"]
    first, second = tmp_path / "first.log", tmp_path / "second.log"
    # The check stops mid-task: its transaction waits for the table's row,
    # which this connection holds.
    with psycopg.connect(system_database) as holder:
        holder.execute("select id from games_table where id = %s for update",
                       (recorded["table"],))
        with background_process(worker(f"first-{queue}", queue), env, log_path=first) as doomed:
            system.poll("the first worker's start", lambda: ready(first), seconds=90)
            system.poll("the check under way", lambda: "luck_verify_hands[" in first.read_text())
            time.sleep(1)  # inside the task now, waiting for the row
            assert checked_at(system_database, recorded["hand"]) is None
            os.killpg(doomed.pid, signal.SIGKILL)
            doomed.wait()
            killed = time.time()
        holder.rollback()
    with background_process(worker(f"second-{queue}", queue), env, log_path=second):
        system.poll("the check by the new worker",
                    lambda: checked_at(system_database, recorded["hand"]) is not None,
                    seconds=timeout + 60)
        done = time.time()
    print(f"the check done {done - killed:.1f} s after the worker was killed "
          f"(visibility timeout {timeout} s)")
    assert done - killed <= timeout + 40  # the timeout, a 10 s sweep, a worker's start
    checks = system.query(system_database, "select count(*) from games_luckaudit")
    assert checks == [(1,)]


RESTARTS = 3


def test_the_worker_survives_redis_restarts_while_it_holds_an_unacknowledged_message(
    redis: Redis, tmp_path: Path
) -> None:
    env = private_env(redis, tmp_path / "var")
    migrate(env)
    ids = system.manage_shell(env, system.SETUP)
    log = tmp_path / "worker.log"
    # As docker-compose.yml runs it (prefork, gossip, mingle), one child.
    command = [sys.executable, "-m", "celery", "-A", "paigow_site", "worker", "--concurrency=1",
               "--loglevel=INFO", "-n", f"{env['CELERY_QUEUE']}@%h"]
    with background_process(command, env, log_path=log) as process:
        system.poll("the worker's start", lambda: ready(log), seconds=90)
        for restart in range(1, RESTARTS + 1):
            # What every reveal leaves: a report refresh due in 61 s, which the
            # worker holds unacknowledged until then.
            system.manage_shell(env, "from games import tasks\n"
                                     "tasks.report_refresh.apply_async((1,), countdown=61)\n"
                                     "print(1)")
            system.poll("the refresh held", lambda r=restart: log.read_text().count(
                "games.report_refresh[") >= r)
            redis.stop()
            time.sleep(1)
            redis.start()  # empty: no queue, no bindings
            system.poll("the worker's reconnect", lambda r=restart: log.read_text().count(
                "Connected to") >= r + 1, seconds=60)
            assert process.poll() is None, log.read_text()[-3000:]
        system.manage_shell(env, 'from paigow_site.celery import app\n'
                                 'app.send_task("games.invites_expire")\nprint(1)')
        revoked = ("import json\nfrom games.models import Invite\nprint(json.dumps(Invite."
                   f"objects.get(pk={ids['stale_invite']}).revoked_at is not None))")
        system.poll("a task after the restarts", lambda: system.manage_shell(env, revoked) is True)
        assert process.poll() is None, log.read_text()[-3000:]
    assert "Unrecoverable error" not in log.read_text()
    print(f"the worker survived {RESTARTS} Redis restarts, each with a message unacknowledged")
