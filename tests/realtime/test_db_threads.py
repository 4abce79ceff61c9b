"""How the table socket reaches the database: its own thread pool, one locked
transaction per message, and connections that are given back."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import services
from games.engine.errors import StakeTooHigh
from games.models import ClientMessage, Presence, Seat, Table
from games.realtime import broadcast, consumer, db_threads, presence
from games.realtime.apply import message_apply
from games.realtime.messages import Message
from tests.sockets import join
from tests.support import friend_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pool_of(settings: Any) -> Iterator[Any]:
    """Start the sockets' pool afresh with ``n`` threads."""

    def size(n: int) -> None:
        db_threads.stop_db_threads()
        settings.SOCKET_DB_THREADS = n

    yield size
    db_threads.stop_db_threads()


async def test_two_sockets_database_calls_run_side_by_side(pool_of: Any) -> None:
    # Each call waits at a barrier for the other: on a single database thread
    # (Channels' default) the first would wait forever and the barrier break.
    pool_of(2)
    barrier = threading.Barrier(2, timeout=10)

    def meet() -> str:
        barrier.wait()
        return threading.current_thread().name

    names = await asyncio.gather(db_threads.db(meet)(), db_threads.db(meet)())
    assert len(set(names)) == 2
    assert all(name.startswith("table-socket-db") for name in names)


async def test_a_database_thread_gives_its_connection_back_after_each_call(
    pool_of: Any,
) -> None:
    # CONN_MAX_AGE is 0 in the tests: no connection may outlive its call, even
    # though Channels' test communicator turns its own cleanup off.
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("Django never closes the in-memory test database's connections")
    pool_of(1)
    count = await db_threads.db(Table.objects.count)()
    assert count == 0
    still_open = await db_threads.db(lambda: connection.connection is not None)()
    assert still_open is False


def test_a_socket_message_locks_the_table_once_and_makes_no_savepoint(
    player: User, friend: User
) -> None:
    table = friend_table(player, friend)
    fields = {"amount": 5}
    with CaptureQueriesContext(connection) as captured:
        applied = message_apply(
            user=player, table_id=table.pk, message=Message("stake", fields, "m1")
        )
    assert not applied.replayed
    sql = [q["sql"].upper() for q in captured.captured_queries]
    assert sum('FROM "GAMES_TABLE"' in q for q in sql) == 1  # read (and locked) once
    if connection.features.has_select_for_update:
        assert sum("FOR UPDATE" in q for q in sql) == 1
    assert not any(q.startswith(("SAVEPOINT", "RELEASE SAVEPOINT")) for q in sql)
    table.refresh_from_db()
    assert (table.stake_proposed, table.stake_proposed_by) == (5, 0)
    assert ClientMessage.objects.filter(client_id='"m1"').count() == 1


def test_a_refused_message_in_the_messages_transaction_leaves_nothing(
    player: User, friend: User
) -> None:
    # The service joins the message's transaction without a savepoint: its
    # refusal must still roll back the whole message, the id included.
    table = friend_table(player, friend)
    with pytest.raises(StakeTooHigh):
        message_apply(
            user=player, table_id=table.pk, message=Message("stake", {"amount": 5000}, "m2")
        )
    assert not ClientMessage.objects.exists()
    table.refresh_from_db()
    assert table.stake_proposed is None


def test_a_heartbeat_rewrites_no_indexed_column() -> None:
    # Every open socket updates last_seen every 20 s: with last_seen in an
    # index, PostgreSQL cannot update the row in place (HOT), and dead rows
    # and index entries pile up between vacuums (docs/benchmarks.md).
    indexed = {
        column
        for constraint in connection.introspection.get_constraints(
            connection.cursor(), Presence._meta.db_table
        ).values()
        if constraint["index"] or constraint["unique"]
        for column in constraint["columns"]
    }
    assert "last_seen" not in indexed
    assert {"seat_id", "channel_name"} <= indexed


def test_sockets_opened_together_beat_spread_over_the_interval() -> None:
    rng = random.Random(7)
    interval = 20.0
    firsts = []
    for _ in range(400):  # a restart reconnects every socket at once
        delays = consumer.beat_delays(interval, rng)
        firsts.append(next(delays))
        later = [next(delays) for _ in range(5)]
        assert all(0.9 * interval <= d <= 1.1 * interval for d in later)
    # In any tenth of the interval, about a tenth of the sockets beat first.
    per_tenth = [sum(1 for f in firsts if k * 2 <= f < (k + 1) * 2) for k in range(10)]
    assert max(per_tenth) < 70, per_tenth
    assert min(per_tenth) > 15, per_tenth


async def test_frames_and_group_events_make_no_hop_to_the_sync_thread(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Channels checks old connections on its one sync thread before every
    message; the table socket's calls check their own, on their own threads."""
    hops: list[str] = []

    async def counted() -> None:
        hops.append("close_old_connections")

    monkeypatch.setattr("channels.consumer.aclose_old_connections", counted)
    table = await database_sync_to_async(friend_table)(player, friend)
    ada, _ = await join(player, table.pk)
    grace, _ = await join(friend, table.pk)
    await ada.receive()
    await ada.send({"type": "stake", "amount": 5, "id": 1})
    assert (await grace.receive())["table"]["proposal"]["amount"] == 5
    await grace.send({"type": "ping"})
    assert hops == []
    await ada.close()
    await grace.close()


def test_a_socket_is_counted_in_order_with_the_tables_changes(
    player: User, friend: User
) -> None:
    """A change reads how many sockets each seat has, to push only to seats
    with one. A socket opening meanwhile waits for the change's lock: it is
    either counted (and pushed the view) or reads the change itself."""
    if not connection.features.has_select_for_update:
        pytest.skip("SQLite has one writer: every write is ordered already")
    table = friend_table(player, friend)
    seat = Seat.objects.get(table=table, number=1)
    locked, release = threading.Event(), threading.Event()
    connected: list[bool] = []

    def change() -> None:
        with transaction.atomic():
            services.table_lock(table.pk)
            locked.set()
            release.wait(10)
        connections.close_all()

    def open_socket() -> None:
        presence.presence_connect(table_id=table.pk, seat_id=seat.pk, channel_name="t!1")
        connected.append(True)
        connections.close_all()

    holder = threading.Thread(target=change)
    holder.start()
    assert locked.wait(10)
    opener = threading.Thread(target=open_socket)
    opener.start()
    opener.join(0.5)
    assert connected == []  # waiting for the change's lock
    release.set()
    holder.join(10)
    opener.join(10)
    assert connected == [True]
    assert Presence.objects.filter(seat=seat, channel_name="t!1").exists()


@pytest.fixture
def usable_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every connection health check (``is_usable``: a ``SELECT 1`` on
    PostgreSQL) on the sockets' database threads from now on."""
    checks: list[str] = []
    wrapper = type(connections["default"])
    real = wrapper.is_usable

    def counted(self: Any) -> bool:
        if threading.current_thread().name.startswith("table-socket-db"):
            checks.append("checked")
        return bool(real(self))

    monkeypatch.setattr(wrapper, "is_usable", counted)
    return checks


@pytest.fixture
def kept_connections() -> Iterator[None]:
    """Connections kept between calls, as in production: in the process's
    pool on PostgreSQL (``DB_POOL_*``; a connection kept by a thread,
    ``CONN_MAX_AGE``, is refused since it leaked under ASGI). On PostgreSQL
    every other connection to the test database is ended afterwards, so
    that it can be dropped."""
    yield
    db_threads.stop_db_threads()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


async def test_a_message_and_a_heartbeat_make_no_health_check_round_trip(
    player: User, friend: User, pool_of: Any, usable_checks: list[str], settings: Any,
    kept_connections: None,
) -> None:
    # Their first statement is the session check, which reconnects by itself
    # (db_threads.reconnecting): Django's SELECT 1 before it would be one more
    # round trip for every message and every beat of every socket. (On
    # PostgreSQL the pool checks a connection as it lends it, an empty
    # statement of about 25 us on loopback: that one is the pool's, not this.)
    pool_of(1)
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.05
    table = await database_sync_to_async(friend_table)(player, friend)
    ada, _ = await join(player, table.pk)
    usable_checks.clear()
    answer = await ada.answer({"type": "stake", "amount": 5, "id": 1})
    assert answer["table"]["proposal"]["amount"] == 5
    assert (await ada.answer({"type": "state", "id": 2}))["type"] == "state"
    seen = await database_sync_to_async(_last_seen)()
    for _ in range(100):
        await asyncio.sleep(0.02)
        if await database_sync_to_async(_last_seen)() > seen:
            break
    else:
        raise AssertionError("no heartbeat within 2 s")
    assert usable_checks == []
    await ada.close()


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs a server that can drop a connection"
)
async def test_the_first_message_after_the_database_dropped_the_connection_is_answered(
    player: User, friend: User, pool_of: Any, kept_connections: None
) -> None:
    # What the skipped health check was for: a PostgreSQL restart (here, the
    # thread's backend terminated) must not fail the next message once per thread.
    pool_of(1)
    ada, _, backend = await seated_after_a_dropped_connection(player, friend)
    answer = await ada.answer({"type": "stake", "amount": 5, "id": 1})
    assert answer["type"] == "state", answer
    assert answer["table"]["proposal"]["amount"] == 5
    assert await db_threads.db(_backend_pid)() != backend  # it ran on a new connection
    await ada.close()


async def test_a_refresh_is_read_with_no_health_check_round_trip(
    player: User, friend: User, pool_of: Any, usable_checks: list[str], kept_connections: None
) -> None:
    # A luck check (or a page) tells a seat to refresh: the socket reads its
    # view, whose first statement reconnects by itself; a SELECT 1 before it
    # would be one more round trip for every refresh.
    pool_of(1)
    table = await database_sync_to_async(friend_table)(player, friend)
    ada, _ = await join(player, table.pk)
    usable_checks.clear()
    await get_channel_layer().group_send(f"{table.group_name}.0", broadcast.refresh_event())
    refreshed = await ada.receive()
    assert refreshed["type"] == "state"
    assert usable_checks == []
    await ada.close()


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs a server that can drop a connection"
)
async def test_a_refresh_after_the_database_dropped_the_connection_is_answered(
    player: User, friend: User, pool_of: Any, kept_connections: None
) -> None:
    pool_of(1)
    ada, table, backend = await seated_after_a_dropped_connection(player, friend)
    await get_channel_layer().group_send(f"{table.group_name}.0", broadcast.refresh_event())
    refreshed = await ada.receive()
    assert refreshed["type"] == "state", refreshed
    assert refreshed["table"]["id"] == table.pk
    assert await db_threads.db(_backend_pid)() != backend  # it ran on a new connection
    await ada.close()


async def test_a_call_cancelled_before_it_starts_never_runs(pool_of: Any) -> None:
    # A socket that closes while its call waits for a thread drops the call
    # (asgiref's sync_to_async did the same); one already running finishes.
    pool_of(1)
    started = threading.Event()
    release = threading.Event()
    ran: list[str] = []

    def hold() -> None:
        started.set()
        release.wait(10)
        ran.append("held")

    def queued() -> None:
        ran.append("queued")

    holding = asyncio.ensure_future(db_threads.db(hold)())
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
    waiting = asyncio.ensure_future(db_threads.db(queued)())
    await asyncio.sleep(0.05)
    holding.cancel()
    waiting.cancel()
    for task in (holding, waiting):
        with pytest.raises(asyncio.CancelledError):
            await task
    await asyncio.sleep(0.05)  # the cancel reaches the thread pool's queue
    release.set()
    await db_threads.db(lambda: None)()  # the pool has run all it was given
    assert ran == ["held"]


async def seated_after_a_dropped_connection(player: User, friend: User) -> tuple[Any, Table, int]:
    """Ada seated at a friend table, then her socket thread's PostgreSQL
    backend terminated: her socket, the table and that backend's pid."""
    table = await database_sync_to_async(friend_table)(player, friend)
    ada, _ = await join(player, table.pk)
    backend = await db_threads.db(_backend_pid)()
    await database_sync_to_async(_terminate)(backend)
    return ada, table, backend


def _last_seen() -> Any:
    return Presence.objects.get().last_seen


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _terminate(pid: int) -> None:
    # On a connection of its own: the backend's connection went back to the
    # pool, which may lend it for this very call.
    import psycopg

    found = connection.settings_dict
    with psycopg.connect(
        dbname=found["NAME"],
        user=found["USER"] or None,
        password=found["PASSWORD"] or None,
        host=found["HOST"] or None,
        port=found["PORT"] or None,
        autocommit=True,
    ) as own:
        assert own.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)


async def test_a_call_that_raises_hands_its_error_to_the_caller_and_the_thread_goes_on(
    pool_of: Any,
) -> None:
    pool_of(1)

    def refuse() -> None:
        raise StakeTooHigh()

    with pytest.raises(StakeTooHigh):
        await db_threads.db(refuse)()
    assert await db_threads.db(threading.current_thread)() is db_threads._db_threads().threads[0]


class FailedOn(Exception):
    """A call that failed on the connection of this backend pid."""


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the pool is PostgreSQL's")
async def test_a_call_that_fails_mid_transaction_gives_its_connection_back_clean(
    pool_of: Any,
) -> None:
    # A call that raises inside its transaction must not hand the pool a
    # connection inside a transaction or out of autocommit.
    from psycopg.pq import TransactionStatus

    from games import reads

    pool_of(1)

    def fails() -> int:
        with transaction.atomic():
            reads.read_all(reads.rows_read(Table, "SELECT * FROM {table} WHERE id = %s", [0]))
            raw = connection.connection
            assert raw.info.transaction_status == TransactionStatus.INTRANS
            pid = int(raw.info.backend_pid)
            raise FailedOn(pid)

    with pytest.raises(FailedOn) as raised:
        await db_threads.db(fails)()
    pid = raised.value.args[0]
    pool = connection.pool
    lent = [pool.getconn(timeout=5) for _ in range(pool.get_stats()["pool_available"])]
    try:
        used = [conn for conn in lent if conn.info.backend_pid == pid]
        assert len(used) == 1, "the connection went back to the pool"
        assert used[0].info.transaction_status == TransactionStatus.IDLE
        assert used[0].autocommit is True
    finally:
        for conn in lent:
            pool.putconn(conn)
    # And the next call on that thread runs as usual.
    assert await db_threads.db(Table.objects.count)() == 0
