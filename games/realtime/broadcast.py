"""Telling a table's sockets that it changed, from outside a socket.

A bare refresh carries no game data: each seat's consumer answers it by
building its own view from the database (``selectors.table_state``). A
change that already holds the seats' views, read under the table's lock in
its own transaction (a luck check, ``views_changed``), sends each seat its
own view instead, on that seat's group only, so no socket reads it again.
(A socket's own changes push each seat's view to that seat's group too:
``games.realtime.consumer``.) Send either only after the change has committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from ..models import Table
from ..selectors import SeatView


def frame_text(payload: dict[str, Any]) -> str:
    """A frame's JSON text, compact (orjson: a table's view in about a tenth
    of the standard library's time)."""
    return orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS).decode()


def refresh_event(origin: str | None = None) -> dict[str, Any]:
    """The group message; the socket named ``origin`` (the sender) ignores it."""
    return {"type": "table.refresh", "origin": origin}


def view_refresh_event(view: SeatView) -> dict[str, Any]:
    """A refresh that carries the seat's view as its frame's text, with the
    version and presence the socket keeps beside it. A socket of an older
    release ignores the view and reads its own (a rolling deploy)."""
    state = view.state
    return {
        **refresh_event(),
        "text": frame_text({"type": "state", **state}),
        "version": state["table"]["version"],
        "connected": state["seats"]["other"]["connected"],
    }


def table_changed(*, table: Table) -> None:
    """From synchronous code (pages, REST): refresh every socket of the table
    once the current transaction commits (at once when there is none)."""
    _refresh_on_commit(table.group_name)


def views_changed(*, views: Iterable[tuple[Table, SeatView]]) -> None:
    """Tell some seats of some tables, each a ``(table, view)``, that their
    view changed, with the view already read in the transaction of the
    change (which holds the table's lock): on commit, each seat's sockets
    (the group ``<table group>.<number>`` that ``games.realtime.consumer``
    joins them to) get their own view, and none reads it again. A seat with
    no socket open when it was read gets nothing (one that opens later reads
    its own first view after this commit). A view with an open invite link
    goes as a bare refresh: the link is built from the receiving page's
    origin, which only its socket knows."""
    events: dict[str, dict[str, Any]] = {}
    for table, view in views:
        if view.sockets <= 0:
            continue
        has_link = view.state["table"]["invite"] is not None
        event = refresh_event() if has_link else view_refresh_event(view)
        events[f"{table.group_name}.{view.number}"] = event
    if events:  # one hand-off to the channel layer for all (a worker's opens a new loop)
        _send_on_commit(events)


def _refresh_on_commit(*groups: str) -> None:
    _send_on_commit({group: refresh_event() for group in groups})


def _send_on_commit(events: dict[str, dict[str, Any]]) -> None:
    async def publish(layer: Any) -> None:
        await asyncio.gather(*(layer.group_send(group, event) for group, event in events.items()))

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(publish)(layer)

    transaction.on_commit(send)
