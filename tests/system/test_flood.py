"""An anonymous flood against a production-like daphne (issue 43).

One ``python -m paigow_site.server`` with ``DJANGO_DEBUG=0`` on a PostgreSQL
database of its own. 16 threads send ``GET /`` with a made-up ``sessionid``
(each a session read) for a bounded time; meanwhile the test counts the
database's connections in ``pg_stat_activity``. With persistent connections
(``DB_CONN_MAX_AGE=60``, before the pool) a request thread kept its
connection until the garbage collector ran: hundreds of 500s and a database
that stayed full. Now every request borrows from the process's pool:

- no answer is a 500 (a request that finds the pool empty past
  ``DB_POOL_TIMEOUT_SECONDS`` gets a 503 with Retry-After);
- the process never holds more than ``DB_POOL_MAX_SIZE`` connections;
- a few seconds after the flood it holds no more than ``DB_POOL_MIN_SIZE``,
  and a signed-in player's /history/ answers;
- a sequential client leaves no connection behind;
- a request body past ``REQUEST_BODY_MAX_BYTES`` is refused with 413 before
  it is read;
- while PostgreSQL is down pages answer 503, and 200 as soon as it is back.
"""

from __future__ import annotations

import http.client
import os
import secrets
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.live_site import free_port, live_site, migrate
from tests.system.test_two_servers import manage_shell, own_database, stack_env

pytestmark = [pytest.mark.services, pytest.mark.slow]

THREADS = 16
FLOOD_SECONDS = 12
POOL_MAX = 4
POOL_MIN = 1
SEQUENTIAL = 200
BODY_MAX = 1_000_000

PLAYER = """
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from accounts.models import User
ada = User.objects.create_user(username="ada", password="a long pass phrase 1")
store = SessionStore()
store[SESSION_KEY] = str(ada.pk)
store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
store[HASH_SESSION_KEY] = ada.get_session_auth_hash()
store.create()
print(json.dumps(store.session_key))
"""


class Site:
    def __init__(self, base: str, database: str, session: str) -> None:
        self.port = int(base.rsplit(":", 1)[1])
        self.database = database
        self.name = database.rsplit("/", 1)[1]
        self.session = session

    def get(self, path: str, cookie: str, timeout: float = 30) -> tuple[int, dict[str, str]]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path, headers={"Cookie": cookie})
            response = conn.getresponse()
            response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}
        finally:
            conn.close()

    def connections(self) -> int:
        """The database's connections now (the site's: nothing else uses it)."""
        admin = self.database.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            found = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [self.name]
            ).fetchone()
        return int(found[0]) if found else 0

    def settled(self, at_most: int, seconds: float) -> int:
        """The connection count once it is ``at_most`` or less, or after ``seconds``."""
        deadline = time.monotonic() + seconds
        while (held := self.connections()) > at_most and time.monotonic() < deadline:
            time.sleep(0.25)
        return held


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    var_dir = tmp_path_factory.mktemp("flood")
    run = f"flood-{uuid.uuid4().hex[:8]}"
    with own_database("flood") as database:
        env = stack_env(
            database,
            var_dir,
            run,
            DJANGO_DEBUG="0",
            SECRET_KEY=secrets.token_urlsafe(64),
            ALLOWED_HOSTS="127.0.0.1",
            SECURE_SSL_REDIRECT="0",
            DB_POOL_MAX_SIZE=str(POOL_MAX),
            DB_POOL_MIN_SIZE=str(POOL_MIN),
            # Idle connections above the minimum close one a second.
            DB_POOL_MAX_IDLE_SECONDS="1",
            REQUEST_BODY_MAX_BYTES=str(BODY_MAX),
        )
        migrate(env)
        session = manage_shell(env, PLAYER)
        with live_site(env, log_path=Path(var_dir) / "daphne.log") as base:
            yield Site(base, database, session)


def flood(site: Site) -> tuple[Counter[int], int]:
    """``THREADS`` anonymous clients with made-up session cookies for
    ``FLOOD_SECONDS``: the answers by status, and the most connections seen."""
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    stop = time.monotonic() + FLOOD_SECONDS
    most = 0
    done = threading.Event()

    def client() -> None:
        while time.monotonic() < stop:
            cookie = f"sessionid={secrets.token_hex(16)}"
            try:
                status, _ = site.get("/", cookie)
            except OSError:
                status = 0  # refused or reset: counted, never a 500
            with lock:
                statuses[status] += 1

    def watch() -> None:
        nonlocal most
        while not done.is_set():
            most = max(most, site.connections())
            time.sleep(0.1)

    watcher = threading.Thread(target=watch)
    watcher.start()
    clients = [threading.Thread(target=client) for _ in range(THREADS)]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()
    done.set()
    watcher.join()
    return statuses, most


def test_a_flood_gets_no_500_and_holds_at_most_the_pool(site: Site) -> None:
    statuses, most = flood(site)
    print(f"flood: answers {dict(statuses)}, most connections {most}")
    assert statuses[500] == 0, statuses
    assert set(statuses) <= {200, 503}, statuses
    assert statuses[200] > 0, statuses
    assert most <= POOL_MAX, f"{most} connections, the pool allows {POOL_MAX}"
    # Afterwards the pool gives back what it does not need...
    held = site.settled(POOL_MIN, seconds=15)
    assert held <= POOL_MIN, f"{held} connections still held after the flood"
    # ... and a signed-in player is served.
    status, _ = site.get("/history/", f"sessionid={site.session}")
    assert status == 200


def test_a_sequential_client_leaves_no_connection_behind(site: Site) -> None:
    site.settled(POOL_MIN, seconds=15)
    most = 0
    for _ in range(SEQUENTIAL):
        status, _ = site.get("/", f"sessionid={secrets.token_hex(16)}")
        assert status == 200
        most = max(most, site.connections())
    held = site.settled(POOL_MIN, seconds=15)
    print(f"sequential: most connections {most}, {held} after")
    assert most <= POOL_MAX
    assert held <= POOL_MIN


def test_clients_that_hang_up_mid_request_leave_no_connection_lent(site: Site) -> None:
    # A connection lent to a request whose client went away must come back
    # all the same: lost, it would shrink the pool for good.
    import socket

    for _ in range(10 * POOL_MAX):
        with socket.create_connection(("127.0.0.1", site.port), timeout=10) as sock:
            sock.sendall(
                b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: sessionid="
                + secrets.token_hex(16).encode()
                + b"\r\n\r\n"
            )
    statuses = Counter(site.get("/", f"sessionid={secrets.token_hex(16)}", timeout=10)[0]
                       for _ in range(2 * POOL_MAX))
    assert statuses == Counter({200: 2 * POOL_MAX})
    assert site.settled(POOL_MIN, seconds=15) <= POOL_MIN


def test_a_body_past_the_cap_is_refused_before_it_is_read(site: Site) -> None:
    # The client announces a body past the cap and sends none of it: the
    # answer comes at once, without waiting for the body.
    conn = http.client.HTTPConnection("127.0.0.1", site.port, timeout=10)
    try:
        conn.putrequest("POST", "/accounts/sign-in/")
        conn.putheader("Content-Length", str(256 * 1024 * 1024))
        conn.putheader("Content-Type", "application/x-www-form-urlencoded")
        conn.endheaders()
        conn.send(b"x" * 1024)
        response = conn.getresponse()
        assert response.status == 413
        assert b"too large" in response.read().lower()
    finally:
        conn.close()
    status, _ = site.get("/", "")
    assert status == 200



def test_a_chunked_body_is_refused_once_it_passes_the_cap(site: Site) -> None:
    # No length announced: daphne refuses it as soon as what came passes the
    # cap, without waiting for the rest.
    import socket

    chunk = b"x" * (BODY_MAX // 2 + 1000)
    with socket.create_connection(("127.0.0.1", site.port), timeout=10) as sock:
        sock.sendall(
            b"POST /accounts/sign-in/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
            + b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(2))
        )
        answer = b""
        while b"\r\n\r\n" not in answer and (part := sock.recv(4096)):
            answer += part
    assert answer.startswith(b"HTTP/1.1 413 ")
    status, _ = site.get("/", "")
    assert status == 200


POSTGRES_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), None)


@pytest.fixture
def private_postgres() -> Iterator[tuple[str, Any]]:
    """A PostgreSQL of its own on a free loopback port (it is stopped and
    started by the test): its site database's URL, and ``pg_ctl``."""
    import shutil
    import subprocess
    import tempfile

    if POSTGRES_BIN is None:
        pytest.skip("no PostgreSQL server binaries")
    # Not under pytest's tmp_path, which only its owner may enter.
    data = Path(tempfile.mkdtemp(prefix="paigow-pg-"))
    # initdb and the server refuse to run as root: as postgres, then.
    user = "postgres" if os.geteuid() == 0 else None
    if user:
        shutil.chown(data, user)
    port = free_port()
    options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1"

    def pg_ctl(*args: str) -> None:
        subprocess.run(
            [str(POSTGRES_BIN / "pg_ctl"), "-D", str(data), "-s", "-w", *args],
            # Not captured: the server it starts would hold the pipe open.
            check=True, user=user, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            timeout=60,
        )

    subprocess.run(
        [str(POSTGRES_BIN / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"],
        check=True, user=user, capture_output=True,
    )
    pg_ctl("-o", options, "-l", str(data / "log"), "start")
    try:
        with psycopg.connect(
            f"postgres://postgres@127.0.0.1:{port}/postgres", autocommit=True
        ) as conn:
            conn.execute("CREATE DATABASE site")

        def control(action: str) -> None:
            if action == "start":
                pg_ctl("-o", options, "-l", str(data / "log"), "start")
            else:
                pg_ctl("-m", "fast", action)

        yield f"postgres://postgres@127.0.0.1:{port}/site", control
    finally:
        subprocess.run(
            [str(POSTGRES_BIN / "pg_ctl"), "-D", str(data), "-s", "-m", "immediate", "stop"],
            user=user, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
            timeout=60,
        )
        shutil.rmtree(data, ignore_errors=True)


def test_pages_answer_503_while_postgresql_is_down_and_200_once_it_is_back(
    private_postgres: tuple[str, Any], tmp_path: Path
) -> None:
    database, pg_ctl = private_postgres
    env = stack_env(
        database, tmp_path, f"pgdown-{uuid.uuid4().hex[:8]}",
        DJANGO_DEBUG="0", SECRET_KEY=secrets.token_urlsafe(64), ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0", DB_POOL_MAX_SIZE=str(POOL_MAX), DB_POOL_MIN_SIZE=str(POOL_MIN),
    )
    migrate(env)
    with live_site(env, log_path=tmp_path / "daphne.log") as base:
        site = Site(base, database, session="")

        def pages(count: int) -> list[int]:
            return [site.get("/", f"sessionid={secrets.token_hex(16)}")[0] for _ in range(count)]

        def back_within(seconds: float) -> float:
            """How long until a page is 200 again: meanwhile only 503s (the
            pool's reconnect waits out its backoff), never a 500."""
            started = time.monotonic()
            while (status := pages(1)[0]) != 200:
                assert status == 503, status
                assert time.monotonic() - started < seconds, "the pool never reconnected"
            return time.monotonic() - started

        assert pages(10) == [200] * 10  # the pool holds connections now
        pg_ctl("stop")
        assert pages(3) == [503] * 3
        pg_ctl("start")
        print(f"back {back_within(30):.1f} s after PostgreSQL started")
        assert pages(10) == [200] * 10  # then not one dead connection handed out
        pg_ctl("restart")
        print(f"back {back_within(30):.1f} s after PostgreSQL restarted")
        assert pages(10) == [200] * 10
