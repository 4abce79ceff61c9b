"""Server load: N friend tables played through whole deals over WebSockets.

    .venv/bin/python benchmarks/load.py --tables 50 200 500 --think 5 --seconds 60

One command starts the stack on loopback, plays, measures and stops it:

- PostgreSQL: a dedicated database (``--database``, default ``paigow_bench``
  on ``postgres@127.0.0.1``), created when missing and migrated;
- Redis database 7 (``--redis``): channels-redis layer, cache, Celery broker;
- Celery workers (``celery -A paigow_site worker -c 1``, by default one a
  queue as docker-compose.yml runs them, ``--workers``) and daphne, all
  with ``DJANGO_DEBUG=0`` (``SECURE_SSL_REDIRECT=0``: plain HTTP on loopback)
  and a connection pool of ``--pool-max`` (``DB_POOL_MAX_SIZE``, default 10).

Players are made directly in that database (``bulk_create``; no HTTP sign-up)
and signed in by creating their sessions with Django's ``SessionStore`` (the
cookie the browser would get from sign-in). Each table is opened and joined
through ``services.table_start`` and ``services.invite_accept``.

Each table runs two socket clients (the ``websockets`` library's asyncio
client) through whole deals, as the page does:
seat 0 proposes a stake of 1, seat 1 accepts, seat 0 deals; each seat thinks
for ``uniform(0.5, 1.5) × --think`` seconds and locks the house way; after the
reveal each seat sends its luck counts; 0.2 s later the next deal starts.
The tables start evenly over ``--ramp`` seconds (by default about one deal's
time), so that, like independent players, they do not play in step.

Measured for each N over ``--seconds`` after every table has played its first
deal: deals/s, the lock-to-reveal latency (from sending the second lock of a
deal to both seats having received the revealed state; p50/p95/p99), errors
(error frames, timeouts, dropped sockets), and CPU (% of one core) and peak
RSS of daphne and of the Celery workers (with their pools), from /proc. As each
run ends, how far the worker kept up with the deals revealed in the window:
the luck estimates checked (the other seat sees "being checked" until then)
and the wait from a reveal to its check, and the hands with a decision cost.

With ``--gc-log`` each web process runs under ``gc_log.py`` and the window's
garbage collections are reported, the web processes' and the generator's
own. The generator freezes its long-lived heap (Django, the seeded rows)
before it plays either way, so its own collections do not count as the
server's latency.

Bounded: at most 1,000 tables and 600 s a run; loopback addresses only; one
run at a time (a PostgreSQL advisory lock: a second run would drop the
database under the first, or share its cores).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from benchmarks import gc_log
from tests.live_site import background_process, free_port, migrate, wait_healthy

MAX_TABLES = 1000
MAX_SECONDS = 600
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
LOCK_KEY = 0x6C6F6164  # "load": the advisory lock every run holds (one_run_at_a_time)


# --- the stack ----------------------------------------------------------------


def stack_env(args: argparse.Namespace) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(
        DATABASE_URL=f"postgres://{args.pg_user}@{args.pg_host}:5432/{args.database}",
        REDIS_URL=args.redis,
        DJANGO_DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        DB_POOL_MAX_SIZE=str(args.pool_max),
        DJANGO_SETTINGS_MODULE="paigow_site.settings",
    )
    for url in (env["DATABASE_URL"], env["REDIS_URL"]):
        host = urlparse(url).hostname
        if host not in LOOPBACK:
            raise SystemExit(f"load.py only runs against loopback services, not {host}")
    return env


def psql(args: argparse.Namespace, sql: str, database: str = "postgres") -> str:
    return subprocess.run(
        ["psql", "-h", args.pg_host, "-U", args.pg_user, "-d", database, "-tAc", sql],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@contextmanager
def one_run_at_a_time(args: argparse.Namespace) -> Iterator[None]:
    """Hold a PostgreSQL advisory lock for the whole run, one for every
    ``load.py`` on this server: a second run on the same database would drop
    it (``ensure_database``) and, on the same Redis database, empty it under
    the first, whose players then get server errors; on others it would
    still share the two cores and spoil both runs' figures. The lock goes
    with the connection, so a run that dies releases it."""
    import psycopg

    with psycopg.connect(
        host=args.pg_host, user=args.pg_user, dbname="postgres", autocommit=True
    ) as held:
        locked = held.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY]).fetchone()
        if not (locked and locked[0]):
            raise SystemExit(
                "another load.py is running against this PostgreSQL: wait for it to end"
                " (a second run would drop its database or share its cores)"
            )
        yield


def vacuum(args: argparse.Namespace) -> None:
    """Every run starts from vacuumed tables: this machine's PostgreSQL runs with
    autovacuum off, and the heartbeats' dead presence rows alone made every
    frame's read 60% slower after an hour of runs."""
    psql(args, "VACUUM ANALYZE", args.database)


def empty_redis(url: str) -> None:
    """Empty the run's own Redis database (db 7 by default). A run left its
    Celery queue behind (834 tasks after a 500-table run): the next run's
    worker spent its first minutes on hands of a dropped database, whose ids
    a fresh database gives out again, and PostgreSQL's CPU doubled with it."""
    redis.Redis.from_url(url).flushdb()


def ensure_database(args: argparse.Namespace, env: dict[str, str]) -> None:
    if args.fresh_database:
        psql(args, f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
    if not psql(args, f"select 1 from pg_database where datname = '{args.database}'"):
        psql(args, f'create database "{args.database}"')
    migrate(env)


def server_command(server: str, port: int, app: str, gc_dir: Path | None = None) -> list[str]:
    """The command line of one web process on ``port``: daphne as production
    runs it (``paigow_site.server``) or daphne's own command; with ``gc_dir``,
    its collections logged there (``gc_log.py``)."""
    python = [sys.executable]
    if gc_dir is not None:
        python += [str(REPO / "benchmarks" / "gc_log.py"), str(gc_dir)]
    return [*python, "-m", server, "-b", "127.0.0.1", "-p", str(port), app]


def worker_command(queues: str | None, cpus: str | None = None) -> list[str]:
    """One Celery worker process (``-c 1``), on ``queues`` (``-Q``) or, when
    None, on every queue of the settings; on the CPU list ``cpus`` (``taskset
    -c``, as docker-compose.yml's ``cpuset``) when given."""
    command = [sys.executable, "-m", "celery", "-A", "paigow_site", "worker", "-c", "1",
               "--loglevel", "WARNING"]
    pinned = ["taskset", "-c", cpus] if cpus else []
    return pinned + command + (["-Q", queues] if queues else [])


@contextmanager
def stack(
    env: dict[str, str],
    log_dir: Path,
    app: str = "paigow_site.asgi:application",
    servers: int = 1,
    server: str = "paigow_site.server",
    workers: str = "split",
    gc_dir: Path | None = None,
    costs_cpus: str | None = None,
) -> Iterator[tuple[list[int], list[subprocess.Popen[bytes]], list[subprocess.Popen[bytes]]]]:
    """Celery workers and ``servers`` daphne processes; their ports, the
    daphnes and the workers. ``workers`` "split" is one worker a queue, as
    docker-compose.yml runs them (the default queue, then the decision
    costs'); "one" is a single worker on both. ``costs_cpus`` pins the costs'
    worker to those CPUs (compose gives it CPUs of its own). The daphnes are
    stopped first, then the workers."""
    log_dir.mkdir(parents=True, exist_ok=True)
    queue = env.get("CELERY_QUEUE", "celery")
    queues = [queue, f"{queue}-costs"] if workers == "split" else [None]
    with ExitStack() as running:
        started = [
            running.enter_context(
                background_process(
                    worker_command(q, costs_cpus if q and q.endswith("-costs") else None),
                    env, log_path=log_dir / f"worker-{i}.log",
                    stop_seconds=15,
                )
            )
            for i, q in enumerate(queues)
        ]
        ports = [free_port() for _ in range(servers)]
        daphnes = [
            running.enter_context(
                background_process(
                    server_command(server, port, app, gc_dir),
                    env,
                    log_path=log_dir / f"daphne-{i}.log",
                    stop_seconds=15,
                )
            )
            for i, port in enumerate(ports)
        ]
        for port, daphne in zip(ports, daphnes, strict=True):
            wait_healthy(f"http://127.0.0.1:{port}", daphne)
        yield ports, daphnes, started


# --- /proc -------------------------------------------------------------------

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def cpu_rss(*pids: int) -> tuple[float, int]:
    """CPU seconds (user+system) and RSS bytes of process trees."""
    cpu, rss = 0.0, 0
    for p in (p for pid in pids for p in tree(pid)):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            pages = int(Path(f"/proc/{p}/statm").read_text().split()[1])
        except OSError:
            continue
        cpu += (int(fields[11]) + int(fields[12])) / TICKS
        rss += pages * PAGE
    return cpu, rss


def named_cpu(*names: str) -> float:
    """CPU seconds of every process whose command name is one of ``names``
    (PostgreSQL's backends and postmaster, redis-server), with the time of
    their children that exited."""
    cpu = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            head, _, rest = (entry / "stat").read_text().rpartition(")")
        except OSError:
            continue
        if head.split("(", 1)[1] in names:
            # Its own time and its exited children's (the postmaster's
            # backends that ended during the window).
            fields = rest.split()
            cpu += sum(int(f) for f in fields[11:15]) / TICKS
    return cpu


def system_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


# --- players and tables ---------------------------------------------------------


def seed_tables(count: int, run: str) -> list[dict[str, Any]]:
    """``count`` friend tables, both seats signed in; their ids and cookies."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    from games import services
    from games.models import Invite

    User = get_user_model()
    users = [User(username=f"load-{run}-{i}") for i in range(2 * count)]
    for user in users:
        user.set_unusable_password()
    User.objects.bulk_create(users)
    users = list(User.objects.filter(username__startswith=f"load-{run}-").order_by("id"))
    backend = (
        settings.AUTHENTICATION_BACKENDS[0]
        if getattr(settings, "AUTHENTICATION_BACKENDS", None)
        else "django.contrib.auth.backends.ModelBackend"
    )

    def cookie(user: Any) -> str:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = backend
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        return f"{settings.SESSION_COOKIE_NAME}={store.session_key}"

    tables = []
    for i in range(count):
        host, friend = users[2 * i], users[2 * i + 1]
        table = services.table_start(user=host, mode="friend")
        token = Invite.objects.filter(table=table).values_list("token", flat=True).get()
        services.invite_accept(user=friend, token=token)
        tables.append({"id": table.pk, "cookies": [cookie(host), cookie(friend)]})
    from django.db import connections

    connections.close_all()
    return tables


# --- the WebSocket client -----------------------------------------------------------


class Closed(Exception):
    pass


class Socket:
    """One table socket on the ``websockets`` client, as a browser opens it
    (the session cookie, this site's Origin, no keepalive pings of its own)."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn

    @classmethod
    async def connect(cls, port: int, path: str, cookie: str) -> Socket:
        try:
            conn = await connect(
                f"ws://127.0.0.1:{port}{path}",
                origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
                additional_headers={"Cookie": cookie},
                open_timeout=30,
                ping_interval=None,
            )
        except InvalidHandshake as exc:
            raise Closed(f"handshake: {exc}") from None
        return cls(conn)

    async def send(self, message: dict[str, Any]) -> None:
        try:
            await self.conn.send(json.dumps(message))
        except ConnectionClosed as exc:
            raise Closed(f"closed by the server ({exc.rcvd.code if exc.rcvd else None})") from None

    async def recv(self) -> dict[str, Any]:
        try:
            frame: dict[str, Any] = json.loads(await self.conn.recv())
        except ConnectionClosed as exc:
            raise Closed(f"closed by the server ({exc.rcvd.code if exc.rcvd else None})") from None
        return frame

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.conn.close(), 2)
        except (TimeoutError, OSError):
            self.conn.transport.abort()


# --- players ----------------------------------------------------------------------


class Stats:
    def __init__(self) -> None:
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        self.deals = 0
        self.latencies: list[float] = []
        self.replies: list[float] = []  # every request: sent to its answer
        self.errors: dict[str, int] = {}
        self.first_deals = 0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def in_window(self, t: float) -> bool:
        return self.window[0] <= t <= self.window[1]


class Seat:
    """One seat's socket: a reader task keeps the latest state and answers waiters."""

    def __init__(self, sock: Socket, stats: Stats) -> None:
        self.sock, self.stats = sock, stats
        self.state: dict[str, Any] | None = None
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.changed = asyncio.Event()
        self.revealed_at: dict[int, float] = {}
        self.next_id = 0
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        try:
            while True:
                frame = await self.sock.recv()
                now = time.perf_counter()
                if frame.get("type") == "state":
                    self.state = frame
                    deal = frame.get("deal")
                    if deal and deal.get("revealed") and deal["number"] not in self.revealed_at:
                        self.revealed_at[deal["number"]] = now
                    self.changed.set()
                future = self.replies.pop(str(frame.get("id")), None) if "id" in frame else None
                if future is not None and not future.done():
                    future.set_result(frame)
        except (Closed, ConnectionError) as exc:
            for future in self.replies.values():
                if not future.done():
                    future.set_exception(Closed(str(exc)))
            self.changed.set()
            raise

    async def request(self, message: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        self.next_id += 1
        key = str(self.next_id)
        future = asyncio.get_running_loop().create_future()
        self.replies[key] = future
        sent = time.perf_counter()
        await self.sock.send({**message, "id": key})
        reply = await asyncio.wait_for(future, timeout)
        if self.stats.in_window(sent):
            self.stats.replies.append(time.perf_counter() - sent)
        if reply.get("type") == "error":
            raise GameReply(reply["error"])
        return reply

    async def until(self, check, timeout: float = 30) -> dict[str, Any]:
        deadline = time.perf_counter() + timeout
        while True:
            if self.state is not None and check(self.state):
                return self.state
            if self.reader.done():
                raise Closed("socket closed")
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError()
            with suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)


class GameReply(Exception):
    pass


def house_front(cards: list[str]) -> list[str]:
    from games.engine import house_way

    return list(house_way(cards).setting.front)


async def play_table(
    table: dict[str, Any],
    ports: list[int],
    stats: Stats,
    think: float,
    stop_at: float,
    start_delay: float,
    pace: str = "lock",
) -> None:
    await asyncio.sleep(start_delay)
    path = f"/ws/tables/{table['id']}/"
    seats: list[Seat] = []
    step = "connect"

    async def decide() -> None:
        """A person choosing a betting step (``--pace action``); at ``--pace
        lock`` only the lock is thought about and betting goes at once."""
        if pace == "action":
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)

    try:
        for port, cookie in zip(ports, table["cookies"], strict=True):
            seats.append(Seat(await Socket.connect(port, path, cookie), stats))
        a, b = seats
        first = True
        while time.perf_counter() < stop_at:
            step = "stake"
            await decide()
            await a.request({"type": "stake", "amount": 1})
            step = "proposal seen"
            seen = await b.until(lambda s: (s["table"]["proposal"] or {}).get("by") == "other")
            shown = seen["table"]["proposal"]
            step = "accept"
            await decide()
            # The accept names the proposal the friend's page shows.
            await b.request(
                {"type": "accept_stake", "amount": shown["amount"], "proposal": shown["id"]}
            )
            step = "deal"
            await decide()
            reply = await a.request({"type": "deal"})
            number = reply["deal"]["number"]

            def dealt(s: dict[str, Any], number: int = number) -> bool:
                return (s.get("deal") or {}).get("number") == number

            def revealed(s: dict[str, Any], number: int = number) -> bool:
                return dealt(s, number) and s["deal"]["revealed"]

            step = "deal seen"
            state_b = await b.until(dealt)
            step = "lock"
            sent: list[float] = []

            async def lock(
                seat: Seat, cards: list[str], number: int = number, sent: list[float] = sent
            ) -> None:
                await asyncio.sleep(random.uniform(0.5, 1.5) * think)
                sent.append(time.perf_counter())
                await seat.request({"type": "lock", "front": house_front(cards), "deal": number})

            await asyncio.gather(
                lock(a, reply["deal"]["you"]["cards"]), lock(b, state_b["deal"]["you"]["cards"])
            )
            step = "reveal seen"
            for seat in seats:
                await seat.until(revealed, timeout=10)
            done = max(seat.revealed_at[number] for seat in seats)
            if stats.in_window(done):
                stats.deals += 1
                stats.latencies.append(done - max(sent))
            if first:
                stats.first_deals += 1
                first = False
            step = "luck"
            for seat in seats:
                wins = random.randint(0, 120)
                pushes = random.randint(0, 120 - wins)
                await seat.request(
                    {
                        "type": "luck",
                        "deal": number,
                        "wins": wins,
                        "pushes": pushes,
                        "losses": 120 - wins - pushes,
                    }
                )
            await asyncio.sleep(0.2)
    except GameReply as exc:
        stats.error(f"error frame {exc}")
    except TimeoutError:
        stats.error(f"timeout ({step})")
    except (Closed, OSError) as exc:
        stats.error(f"socket: {type(exc).__name__} {exc}"[:80])
    finally:
        for seat in seats:
            seat.reader.cancel()
            await seat.sock.close()


def deal_seconds(think: float, pace: str) -> float:
    """About how long a table takes for one deal: the default ramp. Tables
    started within a few seconds of each other stay in step for their first
    deals, and their requests come in waves (at 200 tables, 2-3 s at 1.5-2x
    the mean rate every 21 s); started over one deal's time they arrive as
    independent players would."""
    thinks = 4 if pace == "action" else 1
    return thinks * think + 1.5


def socket_ports(ports: list[int], index: int) -> list[int]:
    """The server each seat of table ``index`` connects to: sockets are spread
    over the servers in turn, as a load balancer would, so with two servers
    the seats of a table always sit on different processes and every refresh
    crosses Redis (the harder case)."""
    return [ports[(2 * index + seat) % len(ports)] for seat in (0, 1)]


async def run_load(
    tables: list[dict[str, Any]],
    ports: list[int],
    think: float,
    seconds: float,
    daphne_pids: list[int],
    worker_pids: list[int],
    pace: str = "lock",
    ramp: float | None = None,
) -> dict[str, Any]:
    stats = Stats()
    if ramp is None:
        ramp = deal_seconds(think, pace)
    # Every table's first deal (connect + think) lands before the window opens.
    warm = ramp + (4 if pace == "action" else 1) * 1.5 * think + 3
    start = time.perf_counter()
    stop_at = start + warm + seconds
    tasks = [
        asyncio.create_task(
            play_table(
                t, socket_ports(ports, i), stats, think, stop_at, ramp * i / len(tables), pace
            )
        )
        for i, t in enumerate(tables)
    ]
    await asyncio.sleep(warm)
    stats.window = (time.perf_counter(), stop_at)
    window_start = time.time()
    d0, w0 = cpu_rss(*daphne_pids), cpu_rss(*worker_pids)
    each0 = [cpu_rss(pid)[0] for pid in worker_pids]
    s0, c0 = system_cpu(), time.process_time()
    pg0, r0 = named_cpu("postgres"), named_cpu("redis-server")
    peak_d, peak_w = d0[1], w0[1]
    load = []
    while time.perf_counter() < stop_at:
        await asyncio.sleep(1)
        peak_d = max(peak_d, cpu_rss(*daphne_pids)[1])
        peak_w = max(peak_w, cpu_rss(*worker_pids)[1])
        load.append(os.getloadavg()[0])
    d1, w1, s1 = cpu_rss(*daphne_pids), cpu_rss(*worker_pids), system_cpu()
    each1 = [cpu_rss(pid)[0] for pid in worker_pids]
    pg1, r1 = named_cpu("postgres"), named_cpu("redis-server")
    clients_cpu = time.process_time() - c0
    await asyncio.wait(tasks, timeout=20)
    for task in tasks:
        task.cancel()
    lat = sorted(stats.latencies)
    replies = sorted(stats.replies)

    def pct(p: float) -> float | None:
        return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else None

    return {
        "tables": len(tables),
        "servers": len(daphne_pids),
        "think": think,
        "seconds": seconds,
        "deals": stats.deals,
        "deals_per_s": stats.deals / seconds,
        "p50_ms": statistics.median(lat) * 1000 if lat else None,
        "p95_ms": pct(0.95),
        "p99_ms": pct(0.99),
        "max_ms": lat[-1] * 1000 if lat else None,
        "pace": pace,
        "ramp_s": ramp,
        "replies": len(replies),
        "reply_p50_ms": statistics.median(replies) * 1000 if replies else None,
        "reply_p99_ms": replies[min(len(replies) - 1, int(0.99 * len(replies)))] * 1000
        if replies
        else None,
        "errors": sum(stats.errors.values()),
        "error_kinds": stats.errors,
        "daphne_cpu_pct": 100 * (d1[0] - d0[0]) / seconds,
        "daphne_rss_mb": peak_d / 2**20,
        "daphne_cpu_ms_per_deal": 1000 * (d1[0] - d0[0]) / stats.deals if stats.deals else None,
        "postgres_cpu_pct": 100 * (pg1 - pg0) / seconds,
        "redis_cpu_pct": 100 * (r1 - r0) / seconds,
        "worker_cpu_pct": 100 * (w1[0] - w0[0]) / seconds,
        # Each worker's part, in the order started (--workers split: the
        # default queue's, the luck checks among its tasks, then the costs').
        "workers_cpu_pct": [100 * (b - a) / seconds for a, b in zip(each0, each1, strict=True)],
        "worker_cpu_ms_per_deal": [
            1000 * (b - a) / stats.deals if stats.deals else None
            for a, b in zip(each0, each1, strict=True)
        ],
        "worker_rss_mb": peak_w / 2**20,
        "clients_cpu_pct": 100 * clients_cpu / seconds,
        "machine_busy_pct": 100 * (s1[0] - s0[0]) / max(1, s1[1] - s0[1]),
        "load_avg_max": max(load) if load else None,
        "load_avg_start": load[0] if load else None,
        "window_epoch": (window_start, window_start + seconds),
    }


def background(args: argparse.Namespace, window: tuple[float, float]) -> dict[str, Any]:
    """How far the worker kept up with the deals revealed in the window, read
    as the run ends: the luck estimates checked (the other seat sees "being
    checked" until then) and the wait from the reveal to the check, an
    unchecked one counted until now; the decision costs recorded."""
    wait = "extract(epoch from coalesce(a.checked_at, now()) - d.revealed_at)"
    row = psql(args, f"""
        select count(*) filter (where h.luck_wins is not null),
               count(a.id),
               percentile_cont(0.5) within group (order by {wait})
                   filter (where h.luck_wins is not null),
               percentile_cont(0.99) within group (order by {wait})
                   filter (where h.luck_wins is not null),
               count(*), count(*) filter (where h.cost_method <> '')
        from games_hand h join games_deal d on d.id = h.deal_id
        left join games_luckaudit a on a.hand_id = h.id
        where d.revealed_at between to_timestamp({window[0]}) and to_timestamp({window[1]})
    """, args.database).split("|")
    estimates, checked, p50, p99, hands, costed = row
    return {
        "luck_estimates": int(estimates), "luck_checked": int(checked),
        "luck_check_wait_p50_s": float(p50 or 0), "luck_check_wait_p99_s": float(p99 or 0),
        "hands": int(hands), "hands_costed": int(costed),
    }


def report(row: dict[str, Any]) -> str:
    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.0f}"

    return (
        f"N={row['tables']:>4} servers={row['servers']} think={row['think']:g}s "
        f"pace={row['pace']}: {row['deals_per_s']:6.1f} deals/s "
        f"({row['deals']} in {row['seconds']:g} s); lock→reveal p50 {ms(row['p50_ms'])} ms, "
        f"p95 {ms(row['p95_ms'])} ms, p99 {ms(row['p99_ms'])} ms, max {ms(row['max_ms'])} ms; "
        f"every reply p50 {ms(row['reply_p50_ms'])} ms, p99 {ms(row['reply_p99_ms'])} ms; "
        f"errors {row['errors']}{' ' + json.dumps(row['error_kinds']) if row['errors'] else ''}; "
        f"daphne {row['daphne_cpu_pct']:.0f}% CPU {row['daphne_rss_mb']:.0f} MB, "
        f"{row['daphne_cpu_ms_per_deal'] or 0:.0f} ms CPU a deal; "
        f"worker {row['worker_cpu_pct']:.0f}% CPU "
        f"({' + '.join(f'{p:.0f}' for p in row['workers_cpu_pct'])}; "
        f"{' + '.join(f'{m or 0:.1f}' for m in row['worker_cpu_ms_per_deal'])} ms a deal) "
        f"{row['worker_rss_mb']:.0f} MB; "
        f"PostgreSQL {row['postgres_cpu_pct']:.0f}%, Redis {row['redis_cpu_pct']:.0f}% CPU; "
        f"load generator {row['clients_cpu_pct']:.0f}% CPU; "
        f"machine busy {row['machine_busy_pct']:.0f}% of 2 cores, "
        f"load avg {row['load_avg_start']:.2f}"
        f"→{row['load_avg_max']:.2f}; "
        f"luck checked {row['luck_checked']} of {row['luck_estimates']} as the run ends, "
        f"reveal→check p50 {row['luck_check_wait_p50_s']:.1f} s, "
        f"p99 {row['luck_check_wait_p99_s']:.1f} s; "
        f"decision costs {row['hands_costed']} of {row['hands']} hands"
    )


def collections_in(
    gc_dir: Path, daphne_pids: list[int], row: dict[str, Any]
) -> dict[str, Any]:
    """The window's garbage collections: the web processes' (all of them
    together) and the generator's own, each as counts, the longest, and the
    full collections' count and total."""
    time.sleep(1.5)  # the logs are written once a second
    window = row["window_epoch"]
    out = {}
    for who, pids in (("servers", daphne_pids), ("generator", [os.getpid()])):
        found = [p for pid in pids for p in gc_log.pauses(gc_dir, pid, window)]
        full = [ms for generation, ms in found if generation == 2]
        out[who] = {
            "collections": len(found),
            "longest_ms": max((ms for _, ms in found), default=0.0),
            "full": len(full),
            "full_ms": sum(full),
            "full_longest_ms": max(full, default=0.0),
        }
    return out


def gc_report(found: dict[str, Any]) -> str:
    return "garbage collections in the window: " + "; ".join(
        f"{who} {c['collections']} (longest {c['longest_ms']:.0f} ms), full {c['full']}"
        f" ({c['full_ms']:.0f} ms in all, longest {c['full_longest_ms']:.0f} ms)"
        for who, c in found.items()
    )


def settle_heap() -> None:
    """Freeze the generator's long-lived heap (Django, the seeded rows) before
    it plays: its full collections stopped every client for 200-250 ms a run
    (``--gc-log``), and those waits were counted as the server's."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def run_loop(name: str) -> Any:
    """How the generator runs its coroutine: ``asyncio.run`` on uvloop's loop
    or on the standard library's."""
    if name == "asyncio":
        return asyncio.run
    import uvloop

    return uvloop.run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument(
        "--think",
        type=float,
        nargs="+",
        default=[5.0],
        help="think times to try, each with every --tables",
    )
    parser.add_argument(
        "--pace",
        choices=["lock", "action"],
        default="lock",
        help="think before the lock only (betting at once), or before every choice a "
        "person makes (stake, accept, deal, lock)",
    )
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument(
        "--ramp",
        type=float,
        default=None,
        help="start the tables evenly over this many seconds (default: about one deal's "
        "time at this think and pace, so they do not play in step)",
    )
    parser.add_argument("--database", default="paigow_bench")
    parser.add_argument(
        "--keep-database",
        dest="fresh_database",
        action="store_false",
        help="reuse the database's rows from earlier runs (by default it is made afresh)",
    )
    parser.add_argument("--pg-host", default="127.0.0.1")
    parser.add_argument("--pg-user", default="postgres")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--pool-max", type=int, default=10)
    parser.add_argument(
        "--servers", type=int, default=1, help="daphne processes; sockets are spread over them"
    )
    parser.add_argument(
        "--server", choices=("paigow_site.server", "daphne"),
        default="paigow_site.server",
        help="the web server of the --servers processes: production's (daphne with"
        " uvloop, paigow_site.server) or daphne's own command",
    )
    parser.add_argument(
        "--workers", choices=("split", "one"), default="split",
        help="one Celery worker a queue (the default queue and the decision costs',"
        " as docker-compose.yml runs them) or one worker on both",
    )
    parser.add_argument(
        "--costs-cpus", default=None,
        help="with --workers split, run the decision costs' worker on these CPUs"
        " (taskset -c, e.g. 1), as docker-compose.yml gives worker-costs CPUs of its own",
    )
    parser.add_argument(
        "--loop", choices=("uvloop", "asyncio"), default="uvloop",
        help="the load generator's own event loop: uvloop (the default since the"
        " fourteenth round: the generator shares the two cores with the server, so"
        " its CPU is the server's loss) or the standard library's, as before",
    )
    parser.add_argument(
        "--gc-log", action="store_true",
        help="log every garbage collection of the web processes and of the generator"
        " (gc_log.py, under var/bench/gc) and report the window's",
    )
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument(
        "--app",
        default="paigow_site.asgi:application",
        help="the ASGI application daphne serves",
    )
    args = parser.parse_args()
    if any(not 1 <= n <= MAX_TABLES for n in args.tables) or not 1 <= args.seconds <= MAX_SECONDS:
        raise SystemExit(f"--tables 1..{MAX_TABLES}, --seconds 1..{MAX_SECONDS}")
    env = stack_env(args)
    print(
        f"$ .venv/bin/python benchmarks/load.py --tables {' '.join(map(str, args.tables))} "
        f"--servers {args.servers} --pace {args.pace} "
        f"--think {' '.join(f'{t:g}' for t in args.think)} --seconds {args.seconds:g}"
        + ("" if args.ramp is None else f" --ramp {args.ramp:g}")
        + ("" if args.loop == "uvloop" else f" --loop {args.loop}")
        + (" --gc-log" if args.gc_log else "")
    )
    print(
        time.strftime("%Y-%m-%d %H:%M %Z"),
        f"nproc {os.cpu_count()}, load avg {os.getloadavg()[0]:.2f},",
        f"PostgreSQL autovacuum {psql(args, 'show autovacuum')} (tables vacuumed before each run)",
    )
    with one_run_at_a_time(args):
        run_all(args, env)


def run_all(args: argparse.Namespace, env: dict[str, str]) -> None:
    """Make the database and the stack, play every ``--tables`` × ``--think``."""
    ensure_database(args, env)
    empty_redis(args.redis)
    os.environ.update(env)
    rows = []
    print(f"{args.server} serves {args.app}")
    gc_dir = REPO / "var" / "bench" / "gc" if args.gc_log else None
    if gc_dir is not None:
        shutil.rmtree(gc_dir, ignore_errors=True)
        gc_log.record(gc_dir)
    running = stack(
        env, REPO / "var" / "bench", args.app, args.servers, args.server, args.workers, gc_dir,
        args.costs_cpus,
    )
    with running as (ports, daphnes, workers):
        for think in args.think:
            for n in args.tables:
                tables = seed_tables(n, f"{int(time.time())}-{n}-{think:g}")
                vacuum(args)
                settle_heap()
                row = run_loop(args.loop)(
                    run_load(
                        tables,
                        ports,
                        think,
                        args.seconds,
                        [d.pid for d in daphnes],
                        [w.pid for w in workers],
                        args.pace,
                        args.ramp,
                    )
                )
                row.update(background(args, row["window_epoch"]))
                rows.append(row)
                print(report(row), flush=True)
                if gc_dir is not None:
                    row["gc"] = collections_in(gc_dir, [d.pid for d in daphnes], row)
                    print(gc_report(row["gc"]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
