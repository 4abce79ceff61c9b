"""The whole system on this machine: two daphne processes, one Celery worker
and beat, one PostgreSQL database and one Redis.

Two friends sign in over HTTP on different server processes, open their
table sockets there, and play 20 deals; every reveal reaches both (the seat
that locked first hears of it only through the channels-redis layer, from the
other process); the worker refreshes both players' report aggregates after
the reveals, and beat's schedule reaches the worker (an expired invite link
is withdrawn). Everything is stopped with SIGTERM, and the database made for
the test is dropped.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from games import engine
from tests.conftest import IN_CI
from tests.live_site import REPO, background_process, live_site, migrate

pytestmark = [pytest.mark.services, pytest.mark.slow]

DEALS = 20
PASSWORD = "a long pass phrase 1"


def _unavailable() -> str | None:
    database = os.environ.get("DATABASE_URL", "")
    redis_url = os.environ.get("REDIS_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        return "DATABASE_URL does not point at PostgreSQL"
    if not redis_url:
        return "REDIS_URL is not set"
    import redis

    try:
        redis.Redis.from_url(redis_url, socket_timeout=2).ping()
    except redis.RedisError as exc:
        return f"Redis at REDIS_URL does not answer: {exc}"
    return None


@contextmanager
def own_database(suffix: str) -> Iterator[str]:
    """A database of its own, ``<name>_<suffix>``, on DATABASE_URL's server;
    dropped afterwards. Skipped (failed in CI) without PostgreSQL and Redis."""
    reason = _unavailable()
    if reason:
        if IN_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    import psycopg

    url = urllib.parse.urlsplit(os.environ["DATABASE_URL"])
    name = f"{url.path.lstrip('/') or 'paigow'}_{suffix}"
    admin = url._replace(path="/postgres").geturl()

    def run(sql: str) -> None:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql)

    run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    run(f'CREATE DATABASE "{name}"')
    try:
        yield url._replace(path=f"/{name}").geturl()
    finally:
        run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def stack_env(database: str, var_dir: Path, run: str, **extra: str) -> dict[str, str]:
    """The environment of one live stack: this process's, less the production
    switches, on ``database``, with its own keys and queue on the shared Redis
    (``run`` names them), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    for variable in ("DJANGO_DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "CELERY_EAGER"):
        env.pop(variable, None)
    env.update(
        DATABASE_URL=database,
        PAIGOW_VAR_DIR=str(var_dir),
        PAIGOW_TESTING="1",
        # One Redis shared with other runs: this stack's own keys and queue.
        CHANNELS_PREFIX=run,
        CACHE_PREFIX=run,
        CELERY_QUEUE=run,
        LOG_LEVEL="WARNING",
    )
    env.update(extra)
    return env


@pytest.fixture
def system_database() -> Iterator[str]:
    with own_database("system") as url:
        yield url


SETUP = """
import json
from datetime import timedelta
from django.utils import timezone
from accounts.models import User
from games import selectors, services
from games.models import Invite
ada = User.objects.create_user(username="ada", password=PASSWORD)
grace = User.objects.create_user(username="grace", password=PASSWORD)
table = services.table_start(user=ada, mode="friend")
services.invite_accept(user=grace, token=selectors.open_invite(table=table).token)
waiting = services.table_start(user=ada, mode="friend")
stale = Invite.objects.get(table=waiting)
Invite.objects.filter(pk=stale.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
print(json.dumps({"table": table.pk, "stale_invite": stale.pk}))
""".replace("PASSWORD", repr(PASSWORD))


def manage_shell(env: dict[str, str], code: str) -> Any:
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=REPO, env=env, capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def sign_in(base: str, username: str) -> str:
    """Sign in through the real form; returns the Cookie header for the socket."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{base}/accounts/sign-in/", timeout=10).read()
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    form = urllib.parse.urlencode(
        {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": csrf}
    ).encode()
    opener.open(f"{base}/accounts/sign-in/", data=form, timeout=10).read()
    cookies = {c.name: c.value for c in jar}
    assert "sessionid" in cookies, f"{username} could not sign in at {base}"
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


class Socket:
    """A table socket on the ``websockets`` client that keeps every state
    frame the server sends."""

    def __init__(self, name: str, conn: ClientConnection) -> None:
        self.name, self.conn = name, conn
        self.frames: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.revealed: set[int] = set()  # deal numbers seen revealed
        self.pushed: set[int] = set()  # ... in a frame this socket did not ask for
        self.closed = False
        self.task = asyncio.create_task(self._read())
        self.next_id = 0

    @classmethod
    async def open(cls, name: str, base: str, path: str, cookie: str) -> Socket:
        conn = await connect(
            base.replace("http", "ws", 1) + path,
            origin=base,  # type: ignore[arg-type]
            additional_headers={"Cookie": cookie},
            open_timeout=10,
            ping_interval=None,  # as a browser: no keepalive pings
        )
        return cls(name, conn)

    async def _read(self) -> None:
        try:
            async for message in self.conn:
                self._keep(json.loads(message))
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.changed.set()

    def _keep(self, frame: dict[str, Any]) -> None:
        self.frames.append(frame)
        deal = frame.get("deal") or {}
        if frame.get("type") == "state" and deal.get("revealed"):
            self.revealed.add(deal["number"])
            if "id" not in frame:
                self.pushed.add(deal["number"])
        self.changed.set()

    async def until(self, test: Callable[[dict[str, Any]], bool], start: int = 0,
                    timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        seen = start
        while True:
            for frame in self.frames[seen:]:
                if test(frame):
                    return frame
            seen = len(self.frames)
            if self.closed:
                raise AssertionError(f"{self.name}'s socket closed")
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.name}: no matching frame in {timeout}s")
            self.changed.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        message_id = f"{self.name}-{self.next_id}"
        start = len(self.frames)
        await self.conn.send(json.dumps({**message, "id": message_id}))
        reply = await self.until(lambda f: f.get("id") == message_id, start)
        assert reply["type"] == "state", (self.name, message, reply)
        return reply

    async def close(self) -> None:
        await self.conn.close()
        try:
            await asyncio.wait_for(self.task, 5)
        except TimeoutError:
            self.task.cancel()


def house_front(cards: list[str]) -> list[str]:
    return list(engine.house_way(cards).setting.front)


async def play(bases: tuple[str, str], cookies: tuple[str, str], table_id: int) -> None:
    path = f"/ws/tables/{table_id}/"
    ada = await Socket.open("ada", bases[0], path, cookies[0])
    grace = await Socket.open("grace", bases[1], path, cookies[1])
    try:
        await ada.until(lambda f: f.get("type") == "state")
        await grace.until(lambda f: f.get("type") == "state")
        for number in range(1, DEALS + 1):
            proposed = (await ada.request({"type": "stake", "amount": 1}))["table"]["proposal"]
            # Grace accepts the proposal once her page shows it, naming it.
            shown = {**proposed, "by": "other"}
            await grace.until(
                lambda f, shown=shown: (f.get("table") or {}).get("proposal") == shown
            )
            await grace.request({"type": "accept_stake", "amount": 1, "proposal": shown["id"]})
            mine = (await ada.request({"type": "deal"}))["deal"]
            assert mine["number"] == number
            theirs = (await grace.request({"type": "state"}))["deal"]
            hands = {ada: mine["you"]["cards"], grace: theirs["you"]["cards"]}
            first, last = (ada, grace) if number % 2 else (grace, ada)
            for seat in (first, last):
                await seat.request(
                    {"type": "lock", "front": house_front(hands[seat]), "deal": number}
                )
            for seat in (ada, grace):
                await seat.until(
                    lambda f, n=number: (f.get("deal") or {}).get("number") == n
                    and f["deal"]["revealed"]
                )
            # The seat that locked first heard of the reveal from the other
            # process, through the channel layer.
            assert number in first.pushed, (first.name, number)
        everything = set(range(1, DEALS + 1))
        assert ada.revealed == everything
        assert grace.revealed == everything
    finally:
        await ada.close()
        await grace.close()


def query(database_url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(database_url) as conn:
        return list(conn.execute(sql, args).fetchall())


def poll(what: str, check: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds}s")
        time.sleep(0.25)


@contextmanager
def celery(env: dict[str, str], logs: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    with ExitStack() as stack:
        worker = stack.enter_context(background_process(
            [sys.executable, "-m", "celery", "-A", "paigow_site", "worker", "--pool=solo",
             "--loglevel=INFO", "--without-gossip", "--without-mingle",
             "-n", f"system-{uuid.uuid4().hex[:8]}@%h"],
            env, log_path=logs / "worker.log",
        ))
        beat = stack.enter_context(background_process(
            [sys.executable, "-m", "celery", "-A", "paigow_site", "beat", "--loglevel=INFO",
             "--schedule", str(logs / "beat-schedule")],
            env, log_path=logs / "beat.log",
        ))
        yield [worker, beat]


def _forget_redis_keys(pattern: str) -> None:
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    for key in client.scan_iter(match=pattern, count=500):
        client.delete(key)


def test_two_servers_one_game(system_database: str, tmp_path: Path) -> None:
    started = time.monotonic()
    run = uuid.uuid4().hex[:10]
    env = stack_env(
        system_database,
        tmp_path / "var",
        f"system-{run}",
        UPKEEP_SECONDS="2",
        # A short report window: the worker's deferred refreshes (one a
        # window a player) must still catch up with every deal.
        REPORT_REFRESH_SECONDS="2",
        # This script answers each frame at once and plays 20 deals in a few
        # seconds on a quiet machine: faster than the 20 messages a second a
        # person's socket may send (the limit: tests/realtime/test_limits.py).
        SOCKET_MESSAGES_PER_SECOND="200",
        SOCKET_MESSAGES_BURST="400",
    )
    phases: dict[str, float] = {}
    migrate(env)
    phases["migrated"] = time.monotonic() - started

    with ExitStack() as stack:
        processes = stack.enter_context(celery(env, tmp_path))
        # The players and tables are made while both servers start (each
        # server waits for its own /healthz).
        with ThreadPoolExecutor(3) as pool:
            setup = pool.submit(manage_shell, env, SETUP)
            first, second = pool.map(
                lambda n: stack.enter_context(live_site(env, log_path=tmp_path / f"web{n}.log")),
                (1, 2),
            )
            ids = setup.result()
        phases["servers up"] = time.monotonic() - started
        assert first != second
        cookies = (sign_in(first, "ada"), sign_in(second, "grace"))
        # Its own thread: the session's Playwright driver may own this one's loop.
        with ThreadPoolExecutor(1) as runner:
            runner.submit(asyncio.run, play((first, second), cookies, ids["table"])).result()
        phases["20 deals played"] = time.monotonic() - started

        hands = """select u.username, r.hands from games_playerreport r
                   join accounts_user u on u.id = r.user_id"""
        poll("the worker's report refresh",
             lambda: dict(query(system_database, hands)) == {"ada": DEALS, "grace": DEALS})
        buckets = query(system_database, "select sum(deals) from games_reportbucket")
        assert buckets == [(2 * DEALS,)]
        poll("beat's invite expiry", lambda: query(
            system_database, "select revoked_at is not null from games_invite where id = %s",
            ids["stale_invite"],
        ) == [(True,)])
        assert all(p.poll() is None for p in processes), "a Celery process died"
        phases["worker and beat checked"] = time.monotonic() - started
    for process in processes:
        assert process.returncode == 0, (process.args, process.returncode)
    _forget_redis_keys(f"*system-{run}*")
    phases["stopped"] = time.monotonic() - started
    print("two servers:", ", ".join(f"{k} at {v:.1f}s" for k, v in phases.items()))
