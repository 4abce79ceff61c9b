"""Idle table sockets on the real Redis: two daphne processes, four solo
tables (two a process) whose sockets send nothing for 22 s, more than four
times the channel layer's 5 s blocking pop, while /healthz is probed 25 times.

Under redis-py 8's default 5 s socket timeout every idle socket was closed
with 1011 about every 6 s ("Timeout reading from 127.0.0.1:6379"), and the
probe timed out (503) beside a healthy Redis whenever an idle socket held the
layer's receive lock.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field

import pytest

from tests.live_site import live_site, migrate
from tests.system.test_redis_restart import healthz
from tests.system.test_two_servers import (
    _forget_redis_keys,
    manage_shell,
    own_database,
    sign_in,
    stack_env,
)
from tests.system.wsclient import Closed, WebSocket

pytestmark = [pytest.mark.services, pytest.mark.slow]

SOCKETS = 4
IDLE_SECONDS = 22.0
PROBES = 25

SETUP = """
import json
from accounts.models import User
from games import services
tables = []
for number in range(SOCKETS):
    player = User.objects.create_user(username=f"idle{number}", password="a long pass phrase 1")
    tables.append(services.table_start(user=player, mode="solo").pk)
print(json.dumps(tables))
""".replace("SOCKETS", str(SOCKETS))


@dataclass
class IdleRun:
    probes: list[tuple[int, str]] = field(default_factory=list)  # (status, body)
    answers: dict[str, str] = field(default_factory=dict)  # socket -> "state" or why not
    logs: str = ""


def answer(ws: WebSocket, name: str) -> str:
    """What an idle socket says to a state request: "state", or how it was closed."""
    try:
        ws.send({"type": "state", "id": f"{name}-after-idle"})
        return str(ws.reply_to(f"{name}-after-idle")["type"])
    except Closed as exc:
        return f"closed with code {exc.code}"
    except TimeoutError:
        return "no answer in 10 s"


@pytest.fixture(scope="module")
def idle_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IdleRun]:
    """Hold the sockets idle once; the tests below read what happened."""
    logs = tmp_path_factory.mktemp("redis-idle")
    run = uuid.uuid4().hex[:10]
    with own_database("redis_idle") as database:
        env = stack_env(database, logs / "var", f"idle-{run}", CELERY_EAGER="1")
        result = IdleRun()
        with ExitStack() as stack, ThreadPoolExecutor(3) as pool:
            # The servers start while the database is made (/healthz needs no table).
            setup = pool.submit(lambda: (migrate(env), manage_shell(env, SETUP))[1])
            bases = list(pool.map(
                lambda n: stack.enter_context(live_site(env, log_path=logs / f"web{n}.log")),
                (1, 2),
            ))
            tables = setup.result()
            cookies = list(pool.map(lambda n: sign_in(bases[n % 2], f"idle{n}"), range(SOCKETS)))
            sockets: dict[str, WebSocket] = {}
            for number, table_id in enumerate(tables):
                base = bases[number % 2]
                ws = WebSocket(f"{base.replace('http', 'ws', 1)}/ws/tables/{table_id}/",
                               origin=base, cookie=cookies[number])
                stack.callback(ws.close)
                assert ws.recv()["type"] == "state"
                sockets[f"idle{number}"] = ws
            started = time.monotonic()
            for probe in range(PROBES):
                result.probes.append(healthz(bases[probe % 2]))
                time.sleep(max(0.0, started + (probe + 1) * IDLE_SECONDS / PROBES
                               - time.monotonic()))
            result.answers = {name: answer(ws, name) for name, ws in sockets.items()}
            stack.close()
            result.logs = "".join((logs / f"web{n}.log").read_text() for n in (1, 2))
        _forget_redis_keys(f"*idle-{run}*")
        yield result


def test_idle_table_sockets_stay_open_past_the_layers_blocking_timeout(idle_run: IdleRun) -> None:
    assert idle_run.answers == {f"idle{n}": "state" for n in range(SOCKETS)}, (
        idle_run.answers, idle_run.logs[-2000:])
    assert "Timeout reading" not in idle_run.logs


def test_healthz_answers_200_every_time_beside_idle_sockets(idle_run: IdleRun) -> None:
    failed = [(status, body) for status, body in idle_run.probes if status != 200]
    assert len(idle_run.probes) == PROBES
    assert failed == [], f"{len(failed)} of {PROBES} probes failed: {failed[:3]}"
    assert all(json.loads(body)["channel_layer"] == "ok" for _, body in idle_run.probes)
