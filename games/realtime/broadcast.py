"""Telling a table's sockets that it changed, from outside a socket.

The event carries no game data: each seat's socket (``TableSocket``)
answers it by building its own view from the database
(``selectors.table_state``). (A socket's own changes push each seat's view
to that seat's group instead: ``games.realtime.table_socket``.) Send it only
after the change has committed.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from ..models import Table


def refresh_event(origin: str | None = None) -> dict[str, Any]:
    """The group message; the socket named ``origin`` (the sender) ignores it."""
    return {"type": "table.refresh", "origin": origin}


def table_changed(*, table: Table) -> None:
    """From synchronous code (pages, REST): refresh every socket of the table
    once the current transaction commits (at once when there is none)."""
    _refresh_on_commit(table.group_name)


def seats_changed(*, seats: Iterable[tuple[Table, int]]) -> None:
    """``table_changed`` for the sockets of the given seats only, each a
    ``(table, number)`` (the group ``<table group>.<number>`` that
    ``games.realtime.consumer`` joins them to): changes that only those
    seats' views show. One hand-off to the channel layer for all of them
    (``run_publish``)."""
    groups = sorted({f"{table.group_name}.{number}" for table, number in seats})
    if groups:
        _refresh_on_commit(*groups)


def luck_checked(*, checks: Iterable[tuple[Table, int, dict[str, Any]]]) -> None:
    """``seats_changed`` for luck checks (``upkeep``), each a ``(table, number,
    told)``: seat ``number``'s sockets read their view again and send it, as
    for a bare refresh. The refresh carries ``told["version"]``, the table's
    version under the check's lock (a check leaves it alone): a socket that
    has already sent a view of a newer version, read after the check
    committed, drops it (``TableSocket.table_refresh``). The rest of ``told``
    (what the check changed of the view) is not sent: the view is built
    again, by its one author (``selectors``, ``engine.seat_view``)."""
    events: dict[str, dict[str, Any]] = {}
    for table, number, told in checks:
        group = f"{table.group_name}.{number}"
        # Two checks for one seat's view (a late estimate's deal and the
        # latest's): one refresh, dropped only when both are old.
        version = max(told["version"], events.get(group, {}).get("version", told["version"]))
        events[group] = {**refresh_event(), "version": version}
    if events:
        _publish_on_commit(events)


def _refresh_on_commit(*groups: str) -> None:
    _publish_on_commit({group: refresh_event() for group in groups})


def _publish_on_commit(events: dict[str, dict[str, Any]]) -> None:
    async def publish(layer: Any) -> None:
        await asyncio.gather(*(layer.group_send(group, event) for group, event in events.items()))

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            run_publish(lambda: publish(layer))

    transaction.on_commit(send)


class _PublishLoop:
    """One event loop, on a thread of its own, that a process outside any
    event loop (a Celery worker) publishes from, call after call.

    ``async_to_sync`` there makes a new loop for each call, and the channel
    layer's connections belong to their loop: every publish connected to
    Redis again, with the client's handshake, and closed when its loop did
    (2.5 ms of CPU a group, most of a luck check's cost besides the engine:
    docs/benchmarks.md, fifteenth round). Here the loop, and so the layer's
    pooled connections, last as long as the process. Made on first use, and
    again in a process forked after it (a thread does not survive a fork)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="channel-layer-publish", daemon=True
                ).start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop

    def run(self, publish: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run the coroutine ``publish()`` makes on the loop; return once it
        has, raising what it raised (as ``async_to_sync`` does)."""
        asyncio.run_coroutine_threadsafe(publish(), self.loop()).result()


_publish_loop: _PublishLoop | None = None


def publish_from_own_loop() -> None:
    """From now on this process publishes on one lasting event loop
    (``_PublishLoop``). For processes that run no event loop of their own:
    a worker calls it as it starts. A web process must not: its synchronous
    code already publishes on the server's loop, through ``async_to_sync``,
    and an in-memory layer's queues belong to that loop."""
    global _publish_loop
    if _publish_loop is None:
        _publish_loop = _PublishLoop()


def run_publish(publish: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run the coroutine ``publish()`` makes to its end, from synchronous code:
    on the process's lasting loop when it has one (``publish_from_own_loop``),
    otherwise through ``async_to_sync``."""
    if _publish_loop is not None:
        _publish_loop.run(publish)
        return

    async def run() -> None:
        await publish()

    async_to_sync(run)()
