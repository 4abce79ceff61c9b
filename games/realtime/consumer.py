"""The table socket's transport: Channels' side of ``TableSocket``.

``TableConsumer`` authenticates the connection (4401 not signed in, 4403 no
seat at this table), counts its user's live sockets (4429 over
``SOCKETS_PER_USER``, ``presence.presence_connect``), joins its groups,
makes a ``TableSocket`` (``games.realtime.table_socket``) and hands it every
frame and group event, in the order they came. The socket does the rest:
limits, applies, answers, pushes, sends views in version order; it sends
and closes through this consumer's ``send`` and ``close``.

Groups: the table's (refreshes told to every seat), each seat's
``<table group>.<seat>`` (a seat's view travels only there) and the user's
(``games.realtime.session``: a session's end).

Presence: each open socket keeps one ``Presence`` row (made on connect,
refreshed by a heartbeat, deleted on close). A connect or a close tells the
group to refresh, so the other seat sees ``seats.other.connected`` change; a
row left by a process that died ages out, and the other seat's next heartbeat
notices and sends a fresh state.

Faults: whatever ends a socket (its close, an exception anywhere in it, or
daphne cancelling an instance that took too long to shut down), ``__call__``
ends it the same way (``leave``): a close the client sees (4500 for a fault;
never 1011, which autobahn refuses to send from a server), then the worker
stopped, the heartbeat stopped, the groups left and the presence row deleted
(tried again while the database is away), in a task a cancellation does not
cut short. So no socket stays open without a worker, and no heartbeat
outlives its socket to keep it counted.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Iterator
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError

from .. import selectors
from ..engine.errors import GameError, SessionEnded, TooManySockets
from . import broadcast, presence, session
from .db_threads import db, reconnecting
from .table_socket import (
    CLOSE_NOT_SEATED,
    CLOSE_NOT_SIGNED_IN,
    CLOSE_SERVER_ERROR,
    CLOSE_TOO_MANY,
    REASON_SERVER_ERROR,
    REASON_TOO_MANY_SOCKETS,
    MessageBucket,
    TableSocket,
    current_cancelled,
    seat_group,
)

__all__ = [
    "CLOSE_NOT_SEATED", "CLOSE_NOT_SIGNED_IN", "CLOSE_SERVER_ERROR", "CLOSE_TOO_MANY",
    "TableConsumer", "beat_delays", "retry_waits",
]

log = logging.getLogger(__name__)

# What a connected socket hands to its ``TableSocket``, in order: frames, and
# the group events that read the database.
QUEUED = frozenset(
    {"websocket.receive", "table.state", "table.refresh", "table.resync", "session.check"}
)
# How long a closing socket waits for a heartbeat already running on a
# database thread (it could make the row again after the delete).
BEAT_FINISH_SECONDS = 5.0
# How long a closing socket's instance waits for its last work (under
# daphne's --application-close-timeout, 10 s by default).
LEAVE_WAIT_SECONDS = 5.0
# The closing sockets' last work (``TableConsumer.leave``), kept referenced
# until done: it outlives an instance daphne cancelled.
LEAVING: set[asyncio.Task[None]] = set()
# This process's closed sockets whose presence row may still be there (its
# delete waits for the database): a connect deletes them before counting the
# user's sockets, so a reconnect is not refused for a socket that is gone.
GONE: set[str] = set()


def retry_waits(first: float, most: float) -> Iterator[float]:
    """Waits doubling from ``first``, each at most ``most``.

    >>> waits = retry_waits(0.25, 2.0)
    >>> [next(waits) for _ in range(6)]
    [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    """
    wait = first
    while True:
        yield wait
        wait = min(wait * 2, most)


def beat_delays(interval: float, rng: random.Random) -> Iterator[float]:
    """The waits before each heartbeat: the first a random part of
    ``interval``, then ``interval`` give or take a tenth.

    Sockets open in bursts (a server restart reconnects them all at once):
    beating every ``interval`` from the connect, they would all beat together,
    a burst of database calls that delays every deal in it. Spread and
    jittered, they beat at an even rate (never more than 1.1 intervals apart,
    well inside ``PRESENCE_TTL_SECONDS``)."""
    yield rng.uniform(0, interval)
    while True:
        yield interval * rng.uniform(0.9, 1.1)


class TableConsumer(AsyncWebsocketConsumer):
    table_id: int
    socket: TableSocket | None = None  # once signed in, seated and counted
    heartbeat: asyncio.Task[None] | None = None
    beat_call: asyncio.Future[bool] | None = None  # a heartbeat's database call
    present = False  # a presence row may exist for this socket
    leaving: asyncio.Task[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Channels' consumer, with every way out of it ending the socket.

        An exception that escapes a handler ends Channels' loop (and, left to
        daphne, the instance: the socket then stays open, answering nothing,
        while the tasks it started run on). Here it closes the socket (4500)
        instead. Then, however the loop ended (the client's close, a fault,
        daphne's cancel of an instance slow to shut down), ``leave`` runs."""
        try:
            await super().__call__(scope, receive, send)
        except Exception:
            log.exception("table socket %s failed", getattr(self, "table_id", "?"))
            await self.close_after_fault()
        finally:
            await self.leave()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Frames and group events go to the ``TableSocket`` once there is
        one (before, or when the connect refused the socket, they are
        dropped); the rest (connect, disconnect, a session's end) are
        handled here.

        Channels' own dispatch first checks the process's old database
        connections before every frame and group event: that check runs on
        the process's one thread for synchronous code (a hop there, queued
        behind every other socket's, per message), for connections these
        sockets do not use. Their calls run on ``db``'s threads, which check
        their own connections before and after each call."""
        if message["type"] in QUEUED:
            if self.socket is not None:
                await self.socket.hand(message)
            return
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        """Authenticate, find the seat, count the socket, join the groups,
        send the first view; then the ``TableSocket`` takes over."""
        user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        try:
            seat = await db(selectors.seat_for)(user=user, table_id=self.table_id)
        except GameError:
            await self.close(code=CLOSE_NOT_SEATED)
            return
        # Set before the call: a commit whose answer was lost leaves a row.
        self.present = True
        try:
            await db(presence.presence_connect)(
                table_id=self.table_id,
                seat_id=seat.pk,
                channel_name=self.channel_name,
                gone=tuple(GONE),
            )
        except TooManySockets:
            self.present = False
            await self.close(code=CLOSE_TOO_MANY, reason=REASON_TOO_MANY_SOCKETS)
            return
        socket = TableSocket(
            user=user,
            table_id=self.table_id,
            seat_number=seat.number,
            seat_id=seat.pk,
            session_key=getattr(self.scope.get("session"), "session_key", None),
            group=seat.table.group_name,
            origin=self.channel_name,
            # The origin is exactly this site's (paigow_site.websocket_origin).
            base_url=dict(self.scope.get("headers") or []).get(b"origin", b"").decode("latin-1"),
            bucket=MessageBucket(
                rate=settings.SOCKET_MESSAGES_PER_SECOND,
                burst=settings.SOCKET_MESSAGES_BURST,
                now=time.monotonic(),
            ),
            send=self.send_text,
            close=self.close_socket,
            group_send=self.group_send,
        )
        # Set before the joins: a join that fails still has its groups left.
        # (Channels dispatches one event at a time: none is handed over
        # before the connect has returned.)
        self.socket = socket
        # Joined side by side: on pub/sub each join waits for Redis's
        # confirmation, which arrives behind every message already on its way
        # to this process (seconds when the server is overloaded).
        await asyncio.gather(
            *(self.channel_layer.group_add(group, self.channel_name) for group in groups(socket))
        )
        await socket.send_state()
        await self.tell_others()
        self.heartbeat = asyncio.create_task(self.beat())
        socket.start()

    async def send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def group_send(self, group: str, event: dict[str, Any]) -> None:
        await self.channel_layer.group_send(group, event)

    async def close_socket(self, code: int, reason: str) -> None:
        """Close, this socket's row no longer counting (``GONE``)."""
        self.mark_gone()
        await self.close(code=code, reason=reason)

    async def close_after_fault(self) -> None:
        """Close as a server fault (4500): the client reconnects. If even
        the close fails, that failure escapes the instance, so that daphne
        closes the socket itself."""
        if self.socket is not None:
            self.socket.closing = True
        try:
            await self.close_socket(CLOSE_SERVER_ERROR, REASON_SERVER_ERROR)
        except Exception:
            log.exception("table socket: the close after a fault failed")
            raise

    async def session_ended(self, event: dict[str, Any]) -> None:
        if self.socket is not None:
            await self.socket.session_ended(event)

    async def disconnect(self, code: int) -> None:
        await self.leave()

    async def leave(self) -> None:
        """End what the socket started, once, however it ended (``__call__``
        calls it again: it is done once). In its own task, so that daphne
        cancelling a slow instance cannot cut it short, kept in ``LEAVING``
        until it is done. The instance waits for it at most
        ``LEAVE_WAIT_SECONDS`` (a row's delete may wait for the database
        much longer), so daphne never has to kill it for that."""
        if self.leaving is None:
            self.leaving = asyncio.create_task(self.left())
            LEAVING.add(self.leaving)
            self.leaving.add_done_callback(LEAVING.discard)
        if not current_cancelled():  # a cancelled instance ends now; the task runs on
            await asyncio.wait([self.leaving], timeout=LEAVE_WAIT_SECONDS)

    async def left(self) -> None:
        """The socket's worker handles what was queued and stops; the
        heartbeat stops (a beat already on a database thread finishes first:
        it could make the row again); the groups are left and the presence
        row deleted (tried again while the database is away: a row of a
        closed socket must not count against its user's sockets nor show its
        seat connected); the other seat is told. Each step runs whatever the
        one before met."""
        self.mark_gone()
        if self.socket is not None:
            await self.socket.finish()
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            await asyncio.wait([self.heartbeat])
        if self.beat_call is not None:
            await asyncio.wait([self.beat_call], timeout=BEAT_FINISH_SECONDS)
        for group in groups(self.socket):
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:  # the channel layer away: its groups expire
                log.warning("table %s: leaving %s failed", self.table_id, group, exc_info=True)
        if self.present:
            await self.presence_gone()
            try:
                await self.tell_others()
            except Exception:  # the other seat's next heartbeat notices
                log.warning("table %s: telling the close failed", self.table_id, exc_info=True)

    async def presence_gone(self) -> None:
        """Delete this socket's presence row, tried again while the database
        is away, for at most ``PRESENCE_TTL_SECONDS``: by then the row (no
        longer refreshed) has aged out and counts for nothing."""
        deadline = time.monotonic() + settings.PRESENCE_TTL_SECONDS
        try:
            for wait in retry_waits(0.1, 1.0):
                try:
                    await db(presence.presence_disconnect)(channel_name=self.channel_name)
                except DatabaseError:
                    if time.monotonic() + wait > deadline:
                        log.warning("table %s: presence row left to age out", self.table_id)
                        return
                    log.info("table %s: deleting presence failed; again in %ss",
                             self.table_id, wait)
                    await asyncio.sleep(wait)
                else:
                    self.present = False
                    return
        finally:
            GONE.discard(self.channel_name)

    def mark_gone(self) -> None:
        """This socket is closed (or closing): its row no longer counts
        (``GONE``)."""
        if self.present:
            GONE.add(self.channel_name)

    async def beat(self) -> None:
        """Keep this socket counted; send a fresh state when the other seat's
        presence changed without a refresh (its process died). Each beat's
        database call is shielded, so that a closing socket can wait for it
        (``left``)."""
        socket = self.socket
        assert socket is not None
        for delay in beat_delays(settings.PRESENCE_HEARTBEAT_SECONDS, random.Random()):
            await asyncio.sleep(delay)
            try:
                self.beat_call = asyncio.ensure_future(
                    db(self.keep_present, opens_with_read=True)(socket)
                )
                connected = await asyncio.shield(self.beat_call)
                if connected != socket.other_connected:
                    await socket.send_state()
            except SessionEnded as exc:
                await socket.end_session(exc)
                return
            except Exception:
                log.exception("table %s: heartbeat failed", self.table_id)

    def keep_present(self, socket: TableSocket) -> bool:
        """Refresh this socket's presence; whether the other seat is connected.
        SessionEnded when the socket's session no longer signs its user in:
        an idle socket notices within a heartbeat. (All one statement on
        PostgreSQL, safe to run twice: ``reconnecting``.)"""
        return reconnecting(
            lambda: presence.presence_beat(
                seat_id=socket.seat_id,
                channel_name=self.channel_name,
                table_id=self.table_id,
                seat_number=socket.seat_number,
                signed_in=session.SignedIn(socket.session_key, socket.user_id),
            )
        )

    async def tell_others(self) -> None:
        if self.socket is not None:
            await self.channel_layer.group_send(
                self.socket.group, broadcast.refresh_event(self.channel_name)
            )


def groups(socket: TableSocket | None) -> tuple[str, ...]:
    """The channel-layer groups a socket joins: its table's, its seat's, its user's."""
    if socket is None:
        return ()
    seat = seat_group(socket.group, socket.seat_number)
    return (socket.group, seat, session.user_group(socket.user_id))
