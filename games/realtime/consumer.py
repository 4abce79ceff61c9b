"""The table socket: transport only.

It authenticates the connection, checks each frame against the one registry
in ``games.realtime.messages``, applies it (``apply.message_apply``: one
transaction that opens the table, records the message id, calls the
registered service and reads every seat's view, each built by
``engine.seat_view``), and sends the result. It holds no rules. Once the
message has committed, the socket answers with its own view and pushes each
other view to that seat's own channel-layer group (``<table group>.<seat>``),
which only that seat's sockets join, so a view only ever travels to the seat
allowed to see it.
Views carry the table's ``version``: pushes from two processes can arrive out
of order, and a socket never sends a view older than the last it sent.
Changes made outside a socket (pages, upkeep) and presence changes send the
table's group a bare refresh; each socket then reads its own view (a luck
check's refresh says what it changed, and a socket whose last view is of
its version changes that view instead: ``luck_checked_frame``). So does
the channel layer, to every socket of its process, when it has subscribed
again after losing Redis (``table.resync``: pub/sub keeps nothing sent
meanwhile).

Presence: each open socket keeps one ``Presence`` row (made on connect,
refreshed by a heartbeat, deleted on close). A connect or a close tells the
group to refresh, so the other seat sees ``seats.other.connected`` change; a
row left by a process that died ages out, and the other seat's next heartbeat
notices and sends a fresh state.

Limits: a user has at most ``SOCKETS_PER_USER`` sockets open
(``presence.presence_connect`` counts them); each socket's messages go
through a token bucket (``SOCKET_MESSAGES_PER_SECOND``, bursts of
``SOCKET_MESSAGES_BURST``): a message over it is not handled and gets a
``too_many_messages`` error frame; another before the bucket has filled up
again closes the socket. A refused message costs no database call, so a
flood drains at once instead of queueing behind its own database calls.

Sign-in: the socket re-checks its session with each ``state`` or action
message and each heartbeat, and closes when its user's group says a session
ended (``games.realtime.session``).

Close codes: 4401 not signed in, or the session ended; 4403 no seat at this
table (or no such table); 4429 too many sockets for this user, or too many
messages; 4500 a fault on the server (the database or the channel layer
failed, a bug): reconnect.

Faults: whatever ends a socket (its close, an exception anywhere in it, or
daphne cancelling an instance that took too long to shut down), ``__call__``
ends it the same way (``leave``): a close the client sees (4500 for a fault;
never 1011, which autobahn refuses to send from a server), then the
heartbeat stopped, the groups left and the presence row deleted (tried again
while the database is away), in a task a cancellation does not cut short.
So no socket stays open without a worker, and no heartbeat outlives its
socket to keep it counted.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Iterator
from typing import Any

import orjson
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError

from .. import selectors
from ..engine.errors import (
    GameError,
    OutcomeUnknown,
    ServerError,
    SessionEnded,
    TooManyMessages,
    TooManySockets,
    error_payload,
)
from . import broadcast, messages, presence, session
from .apply import Applied, message_apply
from .db_threads import db, reconnecting

log = logging.getLogger(__name__)

CLOSE_NOT_SIGNED_IN = 4401
CLOSE_NOT_SEATED = 4403
CLOSE_TOO_MANY = 4429
# A fault on the server: the client reconnects. Not 1011: autobahn (daphne)
# sends only 1000 or 3000-4999 from a server, and raises for anything else,
# leaving the socket open.
CLOSE_SERVER_ERROR = 4500
# What a connected socket hands to its worker, in order: frames, and the
# group events that read the database (``TableConsumer.dispatch``).
QUEUED = frozenset(
    {"websocket.receive", "table.state", "table.refresh", "table.resync", "session.check"}
)
# Close reasons (at most 123 bytes; browsers show them in the close event).
REASON_SESSION_ENDED = "Your session ended: sign in again."
REASON_TOO_MANY_SOCKETS = "Too many table sockets open for this account."
REASON_TOO_MANY_MESSAGES = "Too many messages too fast."
REASON_SERVER_ERROR = "Server error: reconnecting."
# Waits before a session check that failed on the database is tried again
# (None: the last try, whose failure closes the socket as a server error).
SESSION_CHECK_RETRIES = (0.05, 0.2, None)
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


class MessageBucket:
    """A token bucket: on average ``rate`` messages a second, ``burst`` at once.

    >>> bucket = MessageBucket(rate=2, burst=3, now=0.0)
    >>> [bucket.take(0.0) for _ in range(4)]
    [True, True, True, False]
    >>> bucket.take(0.5), bucket.rested
    (True, False)
    >>> bucket.take(10.0), bucket.rested
    (True, True)
    """

    def __init__(self, *, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = float(burst), now
        self.rested = True  # the last message found the bucket full

    def take(self, now: float) -> bool:
        """Take one token for a message arriving at ``now``: False when none is left."""
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        self.rested = self.tokens >= self.burst
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class TableConsumer(AsyncWebsocketConsumer):
    table_id: int
    seat_number: int
    seat_id: int
    group: str | None = None
    version_sent: int = -1  # the newest table version this socket has sent
    # The last state frame sent and its table version: a luck check's refresh
    # is put in it rather than read again (``luck_checked_frame``).
    state_sent: tuple[int, str] | None = None
    base_url: str = ""
    heartbeat: asyncio.Task[None] | None = None
    other_connected: bool | None = None  # as last sent to this socket
    user_id: int
    session_key: str | None = None  # the session this socket signed in with
    bucket: MessageBucket
    warned = False  # sent too_many_messages since the bucket was last full
    closing = False  # closed by the server: nothing more is handled
    inbox: asyncio.Queue[dict[str, Any] | None]
    worker: asyncio.Task[None] | None = None
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
            await self.close_after_fault(reraise=True)
        finally:
            await self.leave()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its check of old database connections
        before every frame and group event: that check runs on the process's
        one thread for synchronous code (a hop there, queued behind every
        other socket's, per message), for connections these sockets do not
        use. Their calls run on ``db``'s threads, which check their own
        connections before and after each call.

        Once connected, frames and the group's events go to ``work`` in the
        order they came, and each frame is counted (``admit``) as it
        arrives: counted as they are handled, a flood of actions that each
        take longer than the bucket's refill would never run it dry, and
        would queue behind its own database calls without end."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        if self.worker is None or message["type"] not in QUEUED:
            await handler(message)
        elif message["type"] != "websocket.receive" or await self.admit(message.get("text")):
            self.inbox.put_nowait(message)

    async def work(self) -> None:
        """Handle the queued frames and events one at a time, until None.
        Nothing is handled once the server closed the socket. A failure (the
        database or the channel layer away, a bug) closes the socket (4500):
        the client reconnects and its first frame is the full state again.
        The worker itself never dies of it: a socket whose worker had died
        would stay open and never answer again."""
        while (message := await self.inbox.get()) is not None:
            if self.closing:
                continue
            try:
                await getattr(self, get_handler_name(message))(message)
            except asyncio.CancelledError:
                if current_cancelled():
                    raise
                # A cancellation that is not this task's own (inside a
                # library): a fault like any other.
                log.exception("table %s: handling %s cancelled", self.table_id, message["type"])
                await self.close_after_fault()
            except Exception:
                log.exception("table %s: handling %s failed", self.table_id, message["type"])
                await self.close_after_fault()

    async def finish_work(self) -> None:
        """Let the worker handle what was queued before the close, then stop."""
        if self.worker is not None:
            self.inbox.put_nowait(None)
            await asyncio.wait([self.worker])

    async def connect(self) -> None:
        user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        self.user_id = user.pk
        self.session_key = getattr(self.scope.get("session"), "session_key", None)
        self.bucket = MessageBucket(
            rate=settings.SOCKET_MESSAGES_PER_SECOND,
            burst=settings.SOCKET_MESSAGES_BURST,
            now=time.monotonic(),
        )
        try:
            seat = await db(selectors.seat_for)(user=user, table_id=self.table_id)
        except GameError:
            await self.close(code=CLOSE_NOT_SEATED)
            return
        self.seat_number = seat.number
        self.seat_id = seat.pk
        # The origin is exactly this site's (paigow_site.websocket_origin).
        self.base_url = dict(self.scope.get("headers") or []).get(b"origin", b"").decode("latin-1")
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
        self.group = seat.table.group_name
        # Joined side by side: on pub/sub each join waits for Redis's
        # confirmation, which arrives behind every message already on its way
        # to this process (seconds when the server is overloaded).
        await asyncio.gather(
            *(
                self.channel_layer.group_add(group, self.channel_name)
                for group in (
                    self.group,
                    self.seat_group(self.seat_number),
                    session.user_group(self.user_id),
                )
            )
        )
        await self.send_state()
        await self.tell_others()
        self.heartbeat = asyncio.create_task(self.beat())
        self.inbox = asyncio.Queue()
        self.worker = asyncio.create_task(self.work())

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
        """The worker handles what was queued and stops; the heartbeat stops
        (a beat already on a database thread finishes first: it could make
        the row again); the groups are left and the presence row deleted
        (tried again while the database is away: a row of a closed socket
        must not count against its user's sockets nor show its seat
        connected); the other seat is told. Each step runs whatever the one
        before met."""
        self.mark_gone()
        await self.finish_work()
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            await asyncio.wait([self.heartbeat])
        if self.beat_call is not None:
            await asyncio.wait([self.beat_call], timeout=BEAT_FINISH_SECONDS)
        if self.group:
            for group in (
                self.group, self.seat_group(self.seat_number), session.user_group(self.user_id)
            ):
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

    async def close_after_fault(self, *, reraise: bool = False) -> None:
        """Close the socket as a server fault (4500): the client reconnects.
        ``reraise``: if even the close fails, let that failure escape the
        instance, so that daphne closes the socket itself."""
        self.closing = True
        self.mark_gone()
        try:
            await self.close(code=CLOSE_SERVER_ERROR, reason=REASON_SERVER_ERROR)
        except Exception:
            log.exception("table socket: the close after a fault failed")
            if reraise:
                raise

    async def beat(self) -> None:
        """Keep this socket counted; send a fresh state when the other seat's
        presence changed without a refresh (its process died). Each beat's
        database call is shielded, so that a closing socket can wait for it
        (``left``)."""
        for delay in beat_delays(settings.PRESENCE_HEARTBEAT_SECONDS, random.Random()):
            await asyncio.sleep(delay)
            try:
                self.beat_call = asyncio.ensure_future(
                    db(self.keep_present, opens_with_read=True)()
                )
                connected = await asyncio.shield(self.beat_call)
                if connected != self.other_connected:
                    await self.send_state()
            except SessionEnded as exc:
                await self.end_session(exc)
                return
            except Exception:
                log.exception("table %s: heartbeat failed", self.table_id)

    def keep_present(self) -> bool:
        """Refresh this socket's presence; whether the other seat is connected.
        SessionEnded when the socket's session no longer signs its user in:
        an idle socket notices within a heartbeat. (All one statement on
        PostgreSQL, safe to run twice: ``reconnecting``.)"""
        return reconnecting(
            lambda: presence.presence_beat(
                seat_id=self.seat_id,
                channel_name=self.channel_name,
                table_id=self.table_id,
                seat_number=self.seat_number,
                signed_in=session.SignedIn(self.session_key, self.user_id),
            )
        )

    def seat_group(self, number: int) -> str:
        """The group of one seat's sockets: the only ones its view is sent to."""
        return f"{self.group}.{number}"

    async def tell_others(self) -> None:
        if self.group:
            await self.channel_layer.group_send(
                self.group, broadcast.refresh_event(self.channel_name)
            )

    def check_session(self) -> None:
        """SessionEnded unless this socket's session still signs its user in.
        The first statement of every call ``db`` runs with ``opens_with_read``:
        it reconnects once if the thread's connection had died."""
        if not reconnecting(
            lambda: session.session_holds(session_key=self.session_key, user_id=self.user_id)
        ):
            raise SessionEnded()

    async def end_session(self, exc: SessionEnded, message_id: str | int | None = None) -> None:
        """Answer ``message_id`` (if any) with ``session_ended``, then close: 4401."""
        if self.closing:
            return
        if message_id is not None:
            await self.send_error(exc, message_id)
        await self.close_with(CLOSE_NOT_SIGNED_IN, REASON_SESSION_ENDED)

    async def close_with(self, code: int, reason: str) -> None:
        self.closing = True
        self.mark_gone()
        await self.close(code=code, reason=reason)

    async def session_ended(self, event: dict[str, Any]) -> None:
        """A session of this user ended: close if it is this socket's."""
        if event.get("session_key") == self.session_key:
            await self.end_session(SessionEnded())

    async def session_check(self, event: dict[str, Any]) -> None:
        """This user changed (a new password, say): check this socket's session.

        The change is told while the request that made it may still be
        writing its own session row: a read that fails then is tried again a
        moment later rather than closing the socket as a server error."""
        if self.closing:
            return
        for wait in SESSION_CHECK_RETRIES:
            try:
                await db(self.check_session, opens_with_read=True)()
                return
            except SessionEnded as exc:
                await self.end_session(exc)
                return
            except DatabaseError:
                if wait is None:
                    raise
                await asyncio.sleep(wait)

    async def admit(self, text_data: str | None) -> bool:
        """Take a token for this frame as it arrives; with a token and room
        in the queue, it is handled. Else: the first time since the bucket
        was last full, a too_many_messages frame (with the message's id,
        when it has one); after that, the close."""
        if self.closing:
            return False
        if self.bucket.take(time.monotonic()) and self.inbox.qsize() < self.bucket.burst:
            if self.bucket.rested:
                self.warned = False
            return True
        if self.warned:
            await self.close_with(CLOSE_TOO_MANY, REASON_TOO_MANY_MESSAGES)
            return False
        self.warned = True
        try:
            message_id = messages.message_id(messages.decode(text_data))
        except GameError:
            message_id = None
        await self.send_error(TooManyMessages(), message_id)
        return False

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.group is None or self.closing:
            return
        raw: Any = None
        try:
            raw = messages.decode(text_data, bytes_data)
            message = messages.validate(raw)
        except GameError as exc:
            await self.send_error(exc, messages.message_id(raw))
            return
        if message.type == "ping":
            await self.send_frame({"type": "pong"}, message.id)
            return
        if message.type == "state":
            try:
                own = await db(self.read_state_signed_in, opens_with_read=True)()
            except SessionEnded as exc:
                await self.end_session(exc, message.id)
                return
            await self.send_state(message.id, state=own)
            return
        try:
            applied = await db(self.apply_signed_in, opens_with_read=True)(message)
        except SessionEnded as exc:
            await self.end_session(exc, message.id)
            return
        except OutcomeUnknown as exc:
            # It may have committed: the client keeps the message and resends
            # it, same id, on its next socket (this one is closed: its views
            # may be stale, and its pushes were not sent).
            log.warning("table %s: %s may have committed", self.table_id, message.type,
                        exc_info=True)
            await self.send_error(exc, message.id)
            await self.close_after_fault()
            return
        except GameError as exc:
            await self.send_error(exc, message.id)
            return
        except Exception:
            # Raised before the COMMIT (``message_apply``): rolled back.
            log.exception("table %s: %s failed", self.table_id, message.type)
            await self.send_error(ServerError(), message.id)
            return
        own = next(v.state for v in applied.views if v.number == self.seat_number)
        if applied.replayed:  # a resend of an id already applied: the same answer, once
            await self.send_state(message.id, replayed=True, state=own)
            return
        # The message's transaction has committed: answer, then tell the others.
        await self.send_state(message.id, state=own)
        await self.push_views(applied.views)

    def apply_signed_in(self, message: messages.Message) -> Applied:
        """``message_apply`` with this socket's session checked first, in the
        table lock's statement: SessionEnded if the session ended (nothing
        runs). One database call: one thread hop a message, and no statement
        of its own for the check; the message's id is claimed for the seat
        this socket joined in the round trip that reads the seats."""
        return message_apply(
            user=self.scope["user"],
            table_id=self.table_id,
            message=message,
            base_url=self.base_url,
            signed_in=session.SignedIn(self.session_key, self.user_id),
            seat_id=self.seat_id,
        )

    async def push_views(self, views: list[selectors.SeatView]) -> None:
        """Send each seat's view to that seat's group (this socket's own other
        tabs included), when it has a socket to send it to. (A socket that
        opens after the read reads its own first view after this change
        committed.) The view travels as its frame's text, written once here:
        the receiving sockets send it as it is, with the version and presence
        they keep beside it."""
        for view in views:
            others = view.sockets - (view.number == self.seat_number)
            if others > 0:
                state = view.state
                await self.channel_layer.group_send(
                    self.seat_group(view.number),
                    {
                        "type": "table.state",
                        "text": frame_text({"type": "state", **state}),
                        "version": state["table"]["version"],
                        "connected": state["seats"]["other"]["connected"],
                        "origin": self.channel_name,
                    },
                )

    async def table_refresh(self, event: dict[str, Any]) -> None:
        """Another seat changed the table: send this seat its own fresh view.
        A luck check's refresh says what it changed of the view
        (``broadcast.luck_checked``): when this socket's last view is of the
        check's version, the change is made in it, without reading it again."""
        if event.get("origin") == self.channel_name or self.closing:
            return
        told = event.get("luck_checked")
        if told is not None:
            frame = luck_checked_frame(self.state_sent, self.version_sent, told)
            if isinstance(frame, str):
                await self.send(text_data=frame)
                self.state_sent = (told["version"], frame)
            if frame is not READ_AGAIN:
                return
        await self.send_state()

    async def table_state(self, event: dict[str, Any]) -> None:
        """This seat's view after another socket's change (``push_views``):
        sent unless this socket made the change or has already sent a view as
        new."""
        if self.closing or event.get("origin") == self.channel_name:
            return
        if "text" not in event:  # from a process of the release before (a rolling deploy)
            if event["state"]["table"]["version"] > self.version_sent:
                await self.send_state(state=event["state"])
            return
        if event["version"] > self.version_sent:
            self.other_connected = event["connected"]
            self.version_sent = event["version"]
            await self.send(text_data=event["text"])
            self.state_sent = (event["version"], event["text"])

    async def table_resync(self, event: dict[str, Any]) -> None:
        """The process's channel layer lost Redis and has subscribed again
        (``paigow_site.pubsub``): a push or a session's end told meanwhile
        may be lost. Check the session and send a fresh view."""
        if self.closing:
            return
        try:
            own = await db(self.read_state_signed_in, opens_with_read=True)()
        except SessionEnded as exc:
            await self.end_session(exc)
            return
        await self.send_state(state=own)

    def read_state_signed_in(self) -> dict[str, Any]:
        """``read_state`` after ``check_session``: one database call."""
        self.check_session()
        return self.read_state()

    def read_state_reconnecting(self) -> dict[str, Any]:
        """``read_state`` (reads only, safe to run twice), once more on a new
        connection when the thread's connection had died: no health check's
        ``SELECT 1`` before it (``db``'s ``opens_with_read``), one round trip
        fewer for every refresh a socket answers."""
        return reconnecting(self.read_state)

    def read_state(self) -> dict[str, Any]:
        return selectors.table_state(
            table_id=self.table_id, seat_number=self.seat_number, base_url=self.base_url
        )

    async def send_state(
        self,
        message_id: str | int | None = None,
        *,
        replayed: bool = False,
        state: dict[str, Any] | None = None,
    ) -> None:
        if state is None:
            state = await db(self.read_state_reconnecting, opens_with_read=True)()
        self.other_connected = state["seats"]["other"]["connected"]
        self.version_sent = max(self.version_sent, state["table"]["version"])
        frame = {"type": "state", **state}
        if replayed:
            frame["replayed"] = True
        text = await self.send_frame(frame, message_id)
        self.state_sent = (state["table"]["version"], text)

    async def send_error(self, exc: GameError, message_id: str | int | None = None) -> None:
        await self.send_frame({"type": "error", **error_payload(exc)}, message_id)

    async def send_frame(self, payload: dict[str, Any], message_id: str | int | None) -> str:
        """Send ``payload`` (with ``message_id``, when there is one); its text."""
        if message_id is not None:
            payload = {**payload, "id": message_id}
        text = frame_text(payload)
        await self.send(text_data=text)
        return text


def current_cancelled() -> bool:
    """Whether the running task is being cancelled (not merely a
    ``CancelledError`` raised inside a library it called)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def frame_text(payload: dict[str, Any]) -> str:
    """A frame's JSON text, compact (orjson: a table's view in about a tenth
    of the standard library's time)."""
    return orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS).decode()


class _ReadAgain:
    def __repr__(self) -> str:
        return "READ_AGAIN"


READ_AGAIN = _ReadAgain()


def luck_checked_frame(
    sent: tuple[int, str] | None, version_sent: int, told: dict[str, Any]
) -> str | _ReadAgain | None:
    """A socket's frame after a luck check (``broadcast.luck_checked``), from
    ``sent``, its last state frame and that frame's table version.

    The check ran under the table's lock and left its version alone: a view
    of a later version was read after it committed and shows it (None:
    nothing to send), and a view of its version shows it or shows the
    estimate being checked, which is all it changes of a seat's view
    (``selectors.other_luck``). So when ``sent`` is the newest this socket
    sent and of the check's version, the frame is ``sent`` with the other
    seat's ``luck`` and ``luck_check`` as told, without its answer's ``id``
    (None when it already shows them). Otherwise (an older view, a frame of
    another version or deal, none sent yet): ``READ_AGAIN``, and the socket
    reads its view as for a bare refresh.

    >>> def frame(check, **more):
    ...     other = {"luck": None, "luck_check": check}
    ...     return frame_text({"type": "state", "deal": {"number": 3,
    ...                        "results": {"other": other}}, **more})
    >>> told = {"deal": 3, "version": 9, "luck": "Luck +1.2", "luck_check": "passed"}
    >>> patched = orjson.loads(luck_checked_frame((9, frame("checking", id="l4")), 9, told))
    >>> patched["deal"]["results"]["other"], "id" in patched
    ({'luck': 'Luck +1.2', 'luck_check': 'passed'}, False)
    >>> luck_checked_frame((10, frame("checking")), 10, told) is None
    True
    >>> luck_checked_frame((8, frame("checking")), 8, told)
    READ_AGAIN
    """
    version = told["version"]
    if version < version_sent:
        return None
    if sent is None or sent[0] != version or version != version_sent:
        return READ_AGAIN
    frame = orjson.loads(sent[1])
    deal = frame.get("deal") or {}
    other = (deal.get("results") or {}).get("other")
    if deal.get("number") != told["deal"] or other is None:
        return READ_AGAIN
    shown = {"luck": told["luck"], "luck_check": told["luck_check"]}
    if all(other.get(key) == value for key, value in shown.items()):
        return None
    other.update(shown)
    frame.pop("id", None)
    frame.pop("replayed", None)
    return frame_text(frame)
