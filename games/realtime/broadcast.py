"""Telling a table's sockets that it changed, from outside a socket.

The event carries no game data: each seat's consumer answers it by building
its own view from the database (``selectors.table_state``). (A socket's own
changes push each seat's view to that seat's group instead:
``games.realtime.consumer``.) Send it only after the change has committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
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
    (from a worker, each ``async_to_sync`` runs a new event loop, whose first
    publish connects to Redis again)."""
    groups = sorted({f"{table.group_name}.{number}" for table, number in seats})
    if groups:
        _refresh_on_commit(*groups)


def _refresh_on_commit(*groups: str) -> None:
    async def publish(layer: Any) -> None:
        await asyncio.gather(*(layer.group_send(group, refresh_event()) for group in groups))

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(publish)(layer)

    transaction.on_commit(send)
