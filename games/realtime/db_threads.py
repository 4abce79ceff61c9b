"""The table sockets' database threads.

Channels' default (``thread_sensitive``) runs every database call of a
process on one thread, one after another: one socket's PostgreSQL round trip
made every other socket wait (docs/benchmarks.md). ``db`` runs them on a pool
of ``SOCKET_DB_THREADS`` instead, each thread with its own connection.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache, partial
from typing import Any, TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connection

T = TypeVar("T")


@cache
def _db_threads() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(settings.SOCKET_DB_THREADS, thread_name_prefix="table-socket-db")


def stop_db_threads() -> None:
    """Wait for the database calls in flight and let the threads go; the next
    call starts a new pool. (Tests use it between tests; a server keeps its
    pool for its lifetime.)"""
    if _db_threads.cache_info().currsize:
        _db_threads().shutdown(wait=True)
        _db_threads.cache_clear()


def db(func: Callable[..., T], *, opens_with_read: bool = False) -> Callable[..., Awaitable[T]]:
    """``func`` run off the event loop on the sockets' database threads.

    Channels' default (``thread_sensitive``) runs every database call of a
    process on one thread, one after another: one socket's PostgreSQL round
    trip made every other socket wait (docs/benchmarks.md). Each call here is
    one whole service transaction or one read, independent of the others, so
    they can run side by side; one socket's own calls still run in order,
    because a consumer awaits each before handling its next message.

    The hop is the event loop's own ``run_in_executor`` with the caller's
    context copied, as asgiref's ``sync_to_async(thread_sensitive=False)``
    does it, without the wrapper object it builds and inspects for every
    call (about 3% of a web process's CPU under load: docs/benchmarks.md,
    fourteenth round). Like it, a cancelled caller (a socket closing) drops
    a call that has not started and lets one that runs finish: a transaction
    is never cut short.

    Like Channels' ``database_sync_to_async``, it drops a connection that
    failed or outlived ``CONN_MAX_AGE`` before and after each call; unlike it,
    Channels' test communicator does not switch that off, since these threads
    never share a test's transaction.

    ``opens_with_read``: ``func`` starts with a read run through
    ``reconnecting`` (the socket's session check does), or with
    ``apply.message_apply``, which runs itself again when its first statement
    finds the connection dead. Django's health check,
    a ``SELECT 1`` before each call's first statement (``CONN_HEALTH_CHECKS``),
    is skipped for it: that read finds a dead connection itself, one round
    trip fewer for every message and heartbeat.
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
        done = asyncio.get_running_loop().run_in_executor(
            _db_threads(), partial(context.run, call, *args, **kwargs)
        )
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            done.cancel()  # a call not started yet never starts
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
