"""A private Redis (never the shared one) stopped, frozen and restarted
under a live daphne and a Celery worker.

/healthz must tell a Redis that is down or hung (503) from a healthy one
(200): the layer check reads its own channel with a read timeout past the
layer's blocking pop, and neither may hide a Redis that stopped answering.
The worker must ride out the restart, as daphne does, and then run a task.
"""

from __future__ import annotations

import json
import signal
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live_site import background_process, embedded_env, live_site, migrate
from tests.system.test_faults import Redis, private_redis
from tests.system.test_two_servers import SETUP, manage_shell, poll

pytestmark = [pytest.mark.services, pytest.mark.slow]


def healthz(base: str) -> tuple[int, str]:
    """/healthz's status and body."""
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.fixture
def redis() -> Iterator[Redis]:
    with private_redis() as server:  # stopped even if a test left it frozen
        yield server


def private_env(redis: Redis, var_dir: Path) -> dict[str, str]:
    queue = f"restart-{uuid.uuid4().hex[:8]}"
    return embedded_env(
        var_dir, REDIS_URL=f"redis://127.0.0.1:{redis.port}/0", CELERY_QUEUE=queue,
        CHANNELS_PREFIX=queue, LOG_LEVEL="WARNING",
    )


def test_healthz_answers_503_while_redis_is_down_or_hung_and_200_once_it_is_back(
    redis: Redis, tmp_path: Path
) -> None:
    env = private_env(redis, tmp_path / "var")
    env["CELERY_EAGER"] = "1"
    migrate(env)
    with live_site(env, log_path=tmp_path / "web.log") as base:
        assert healthz(base)[0] == 200
        redis.stop()
        status, body = healthz(base)
        assert status == 503, body
        assert json.loads(body)["channel_layer"].startswith("error"), body
        redis.start()
        poll("a 200 after the restart", lambda: healthz(base)[0] == 200)
        assert redis.process is not None
        redis.process.send_signal(signal.SIGSTOP)  # up, but answering nothing
        status, body = healthz(base)
        assert (status, json.loads(body)["channel_layer"]) == (503, "error: timeout"), body
        redis.process.send_signal(signal.SIGCONT)
        poll("a 200 once Redis answers again", lambda: healthz(base)[0] == 200)


def test_the_worker_rides_out_a_restart_of_its_redis_and_then_runs_a_task(
    redis: Redis, tmp_path: Path
) -> None:
    env = private_env(redis, tmp_path / "var")
    migrate(env)
    ids = manage_shell(env, SETUP)
    log = tmp_path / "worker.log"
    # As docker-compose.yml runs it (prefork, gossip, mingle), one child.
    command = [sys.executable, "-m", "celery", "-A", "paigow_site", "worker", "--concurrency=1",
               "--loglevel=INFO", "-n", f"{env['CELERY_QUEUE']}@%h"]
    with background_process(command, env, log_path=log) as worker:
        poll("the worker's start", lambda: " ready." in log.read_text(), seconds=45)
        redis.stop()
        time.sleep(1)
        redis.start()  # empty: no queue, no bindings
        poll("the worker's reconnect", lambda: log.read_text().count("Connected to") >= 2)
        assert worker.poll() is None, log.read_text()[-3000:]
        manage_shell(env, 'from paigow_site.celery import app\n'
                          'app.send_task("games.invites_expire")\nprint("true")')
        revoked = ("from games.models import Invite\nprint(json.dumps(Invite.objects"
                   f".get(pk={ids['stale_invite']}).revoked_at is not None))")
        poll("the task after the restart",
              lambda: manage_shell(env, f"import json\n{revoked}") is True)
        assert worker.poll() is None, log.read_text()[-3000:]
    assert "Unrecoverable error" not in log.read_text()
