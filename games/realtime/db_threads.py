"""The table sockets' database threads.

Channels' default (``thread_sensitive``) runs every database call of a
process on one thread, one after another: one socket's PostgreSQL round trip
made every other socket wait (docs/benchmarks.md). ``db`` runs them on a pool
of ``SOCKET_DB_THREADS`` instead, each thread with its own connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import Awaitable, Callable
from functools import cache, partial
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connection

T = TypeVar("T")


class _Call(Generic[T]):
    """One call for the threads, and the event loop's future for its result.
    ``gate`` is taken once: by the thread that runs the call, or by a caller
    cancelled before that (the call then never starts)."""

    __slots__ = ("func", "future", "gate", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, func: Callable[[], T]) -> None:
        self.loop, self.func = loop, func
        self.future: asyncio.Future[T] = loop.create_future()
        self.gate = threading.Lock()

    def cancel(self) -> None:
        self.gate.acquire(blocking=False)

    def run(self) -> None:
        if not self.gate.acquire(blocking=False):
            return  # cancelled before it started
        try:
            outcome: tuple[Any, BaseException | None] = (self.func(), None)
        except BaseException as exc:  # noqa: BLE001 - the caller's to handle, as an executor's
            outcome = (None, exc)
        # A loop closed meanwhile has nobody waiting for the result.
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(_settle, self.future, *outcome)


def _settle(future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if future.cancelled():
        return
    if exc is None:
        future.set_result(result)
    else:
        future.set_exception(exc)


class _Threads:
    """``SOCKET_DB_THREADS`` threads taking calls from one queue, each call
    settling its event loop's future from its thread.

    Not the loop's ``run_in_executor`` on a ``ThreadPoolExecutor``: that
    makes an executor future (with a ``Condition``), a ``_WorkItem``, an
    asyncio future chained to it, and a shield, for every call. Here a call
    is one object and one loop future. When each call wakes an idle thread
    the two cost the same (about 55 µs of CPU, mostly the wake-ups); when
    fifty callers keep the threads busy, 9.4 µs against 23
    (``benchmarks/socket_hops.py``, docs/benchmarks.md, seventeenth round)."""

    def __init__(self, count: int) -> None:
        self.calls: queue.SimpleQueue[_Call[Any] | None] = queue.SimpleQueue()
        self.threads = [
            threading.Thread(target=self.serve, name=f"table-socket-db_{n}", daemon=True)
            for n in range(count)
        ]
        for thread in self.threads:
            thread.start()

    def serve(self) -> None:
        while (call := self.calls.get()) is not None:
            call.run()

    def stop(self) -> None:
        """Let every call given so far run, then the threads end."""
        for _ in self.threads:
            self.calls.put(None)
        for thread in self.threads:
            thread.join()


@cache
def _db_threads() -> _Threads:
    return _Threads(settings.SOCKET_DB_THREADS)


def stop_db_threads() -> None:
    """Wait for the database calls in flight and let the threads go; the next
    call starts new ones. (Tests use it between tests; a server keeps its
    threads for its lifetime.)"""
    if _db_threads.cache_info().currsize:
        _db_threads().stop()
        _db_threads.cache_clear()


def db(func: Callable[..., T], *, opens_with_read: bool = False) -> Callable[..., Awaitable[T]]:
    """``func`` run off the event loop on the sockets' database threads.

    Channels' default (``thread_sensitive``) runs every database call of a
    process on one thread, one after another: one socket's PostgreSQL round
    trip made every other socket wait (docs/benchmarks.md). Each call here is
    one whole service transaction or one read, independent of the others, so
    they can run side by side; one socket's own calls still run in order,
    because a consumer awaits each before handling its next message.

    The hop is a queue the threads share (``_Threads``), with the caller's
    context copied, as asgiref's ``sync_to_async(thread_sensitive=False)``
    does it, without the wrapper object it builds and inspects for every
    call (about 3% of a web process's CPU under load: docs/benchmarks.md,
    fourteenth round). Like it, a cancelled caller (a socket closing) drops
    a call that has not started and lets one that runs finish: a transaction
    is never cut short.

    Like Channels' ``database_sync_to_async``, it gives the connection back
    after each call (to the process's pool on PostgreSQL, ``paigow_site.dbpool``:
    a thread holds one only while a call runs, and the pool's bound covers the
    sockets as it covers the pages); unlike it, Channels' test communicator
    does not switch that off, since these threads never share a test's
    transaction. A connection goes back idle and in autocommit whatever the
    call did: Django rolls back an ``atomic`` block that raised, puts
    autocommit back as the block ends, and drops a connection left otherwise
    (``close_if_unusable_or_obsolete``); the pool rolls back one returned
    inside a transaction all the same.

    ``opens_with_read``: ``func`` starts with a read run through
    ``reconnecting`` (the socket's session check does), or with
    ``apply.message_apply``, which runs itself again when its first statement
    finds the connection dead. Django's health check of a connection kept
    between calls is skipped for it: that read finds a dead connection
    itself. (A pooled connection is checked by the pool as it is lent, and
    can still die between that check and the call's first statement.)
    """

    def call(*args: Any, **kwargs: Any) -> T:
        close_old_connections()
        if opens_with_read:
            # Django's own flag (4.1+): set once a connection was checked, or made.
            connection.health_check_done = True  # type: ignore[attr-defined]
        try:
            return func(*args, **kwargs)
        finally:
            close_old_connections()

    async def run(*args: Any, **kwargs: Any) -> T:
        context = contextvars.copy_context()
        queued = _Call(asyncio.get_running_loop(), partial(context.run, call, *args, **kwargs))
        _db_threads().calls.put(queued)
        try:
            return await queued.future
        except asyncio.CancelledError:
            queued.cancel()  # a call not started yet never starts
            raise

    return run


def reconnecting(read: Callable[[], T]) -> T:
    """``read`` (statements outside a transaction that are safe to run twice),
    run once more on a new connection when the connection it found had died
    (PostgreSQL restarted, or the link dropped while the thread was idle).
    That is what the skipped health check was for (``db``'s
    ``opens_with_read``): the first message after a restart is answered, not
    failed once per thread. Any other error is raised as it is."""
    try:
        return read()
    except (InterfaceError, OperationalError):
        if connection.in_atomic_block or connection.is_usable():
            raise
        connection.close()
    return read()
