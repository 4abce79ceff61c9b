"""What a table socket does, without Channels.

``TableSocket`` is one connected seat's socket once it is signed in and
seated: it takes each frame and group event in the order they came
(``hand``), limits the frames (``admit``), handles them one at a time on its
worker (``work``), applies each action (``apply.message_apply``), answers
it, pushes the other views (``push_views``) and sends views in table-version
order, never an older one after a newer one. It holds no rules, and builds
no view: every view comes from ``selectors`` (each seat's by
``engine.seat_view``).

It talks to the world through three callables the consumer gives it
(``games.realtime.consumer``): ``send(text)`` a frame, ``close(code,
reason)`` the socket, and ``group_send(group, event)`` on the channel
layer. The tests drive it with fakes of them (tests/realtime/
test_table_socket.py).

Events it handles (the consumer hands them over as they come):

- ``websocket.receive``: a frame (``receive``): a ping, a ``state``, or an
  action from the registry (``games.realtime.messages``).
- ``table.state``: a view another socket's change pushed to this seat.
- ``table.refresh``: the table changed outside a socket (pages, upkeep, a
  luck check, presence): this socket reads its own view and sends it. One
  that carries a ``version`` (a luck check's) is dropped when this socket
  has already sent a newer view, which shows the change.
- ``table.resync``: the channel layer subscribed again after losing Redis:
  the session is checked and the view read again.
- ``session.check``: the user changed: the session is checked.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from django.db import DatabaseError

from .. import selectors
from ..engine.errors import (
    GameError,
    OutcomeUnknown,
    ServerError,
    SessionEnded,
    TooManyMessages,
    error_payload,
)
from . import messages, session
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
# Close reasons (at most 123 bytes; browsers show them in the close event).
REASON_SESSION_ENDED = "Your session ended: sign in again."
REASON_TOO_MANY_SOCKETS = "Too many table sockets open for this account."
REASON_TOO_MANY_MESSAGES = "Too many messages too fast."
REASON_SERVER_ERROR = "Server error: reconnecting."
# Waits before a session check that failed on the database is tried again
# (None: the last try, whose failure closes the socket as a server error).
SESSION_CHECK_RETRIES = (0.05, 0.2, None)

Send = Callable[[str], Awaitable[None]]
Close = Callable[[int, str], Awaitable[None]]
GroupSend = Callable[[str, dict[str, Any]], Awaitable[None]]


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


class TableSocket:
    """One seat's table socket: see the module's docstring.

    ``user`` holds seat ``seat_number`` (``seat_id``) of table ``table_id``,
    signed in with ``session_key``; ``group`` is the table's channel-layer
    group, ``origin`` this socket's channel name (its own pushes and
    refreshes come back to it and are dropped), ``base_url`` the site's
    origin for the links in views."""

    def __init__(
        self,
        *,
        user: Any,
        table_id: int,
        seat_number: int,
        seat_id: int,
        session_key: str | None,
        group: str,
        origin: str,
        base_url: str,
        bucket: MessageBucket,
        send: Send,
        close: Close,
        group_send: GroupSend,
    ) -> None:
        self.user, self.user_id = user, user.pk
        self.table_id, self.seat_number, self.seat_id = table_id, seat_number, seat_id
        self.session_key, self.group, self.origin = session_key, group, origin
        self.base_url, self.bucket = base_url, bucket
        self._send, self._close, self._group_send = send, close, group_send
        self.version_sent = -1  # the newest table version this socket has sent
        self.other_connected: bool | None = None  # as last sent
        self.warned = False  # sent too_many_messages since the bucket was last full
        self.closing = False  # closed by the server: nothing more is handled
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.worker: asyncio.Task[None] | None = None
        self.handlers: dict[str, Callable[[dict[str, Any]], Awaitable[None]]] = {
            "websocket.receive": self.receive_event,
            "table.state": self.table_state,
            "table.refresh": self.table_refresh,
            "table.resync": self.table_resync,
            "session.check": self.session_check,
        }

    # The work loop.

    def start(self) -> None:
        """Start handling what is handed over (after the first view is sent)."""
        self.worker = asyncio.create_task(self.work())

    async def hand(self, event: dict[str, Any]) -> None:
        """Queue a frame or group event for the worker, in the order they
        come. Each frame is counted (``admit``) as it arrives: counted as
        they are handled, a flood of actions that each take longer than the
        bucket's refill would never run it dry, and would queue behind its
        own database calls without end."""
        if event["type"] not in self.handlers:
            raise ValueError(f"No handler for message type {event['type']}")
        if event["type"] != "websocket.receive" or await self.admit(event.get("text")):
            self.inbox.put_nowait(event)

    async def work(self) -> None:
        """Handle the queued frames and events one at a time, until None.
        Nothing is handled once the server closed the socket. A failure (the
        database or the channel layer away, a bug) closes the socket (4500):
        the client reconnects and its first frame is the full state again.
        The worker itself never dies of it: a socket whose worker had died
        would stay open and never answer again."""
        while (event := await self.inbox.get()) is not None:
            if self.closing:
                continue
            try:
                await self.handlers[event["type"]](event)
            except asyncio.CancelledError:
                if current_cancelled():
                    raise
                # A cancellation that is not this task's own (inside a
                # library): a fault like any other.
                log.exception("table %s: handling %s cancelled", self.table_id, event["type"])
                await self.close_after_fault()
            except Exception:
                log.exception("table %s: handling %s failed", self.table_id, event["type"])
                await self.close_after_fault()

    async def finish(self) -> None:
        """Let the worker handle what was queued before the close, then stop."""
        if self.worker is not None:
            self.inbox.put_nowait(None)
            await asyncio.wait([self.worker])

    async def admit(self, text_data: str | None) -> bool:
        """Take a token for this frame as it arrives; with a token and room
        in the queue, it is handled. Else: the first time since the bucket
        was last full, a too_many_messages frame (with the message's id,
        when it has one); after that, the close (4429). A refused frame
        costs no database call, so a flood drains at once."""
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

    # Closing.

    async def close_with(self, code: int, reason: str) -> None:
        self.closing = True
        await self._close(code, reason)

    async def close_after_fault(self) -> None:
        """Close as a server fault (4500): the client reconnects. A close
        that fails is logged (the consumer's ``__call__`` ends the socket)."""
        try:
            await self.close_with(CLOSE_SERVER_ERROR, REASON_SERVER_ERROR)
        except Exception:
            log.exception("table socket: the close after a fault failed")

    async def end_session(self, exc: SessionEnded, message_id: str | int | None = None) -> None:
        """Answer ``message_id`` (if any) with ``session_ended``, then close: 4401."""
        if self.closing:
            return
        if message_id is not None:
            await self.send_error(exc, message_id)
        await self.close_with(CLOSE_NOT_SIGNED_IN, REASON_SESSION_ENDED)

    # Frames.

    async def receive_event(self, event: dict[str, Any]) -> None:
        await self.receive(event.get("text"), event.get("bytes"))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """One frame: checked against the registry, then answered."""
        if self.closing:
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
        elif message.type == "state":
            await self.answer_state(message)
        else:
            await self.answer_action(message)

    async def answer_state(self, message: messages.Message) -> None:
        try:
            own = await db(self.read_state_signed_in, opens_with_read=True)()
        except SessionEnded as exc:
            await self.end_session(exc, message.id)
            return
        await self.send_state(message.id, state=own)

    async def answer_action(self, message: messages.Message) -> None:
        """Apply an action (at most once per id), answer it with this seat's
        view, then push the other views."""
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
            user=self.user,
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
                await self._group_send(
                    seat_group(self.group, view.number),
                    {
                        "type": "table.state",
                        "text": frame_text({"type": "state", **state}),
                        "version": state["table"]["version"],
                        "connected": state["seats"]["other"]["connected"],
                        "origin": self.origin,
                    },
                )

    # Group events.

    async def table_state(self, event: dict[str, Any]) -> None:
        """This seat's view after another socket's change (``push_views``):
        sent unless this socket made the change or has already sent a view as
        new."""
        if self.closing or event.get("origin") == self.origin:
            return
        if "text" not in event:  # from a process of the release before (a rolling deploy)
            if event["state"]["table"]["version"] > self.version_sent:
                await self.send_state(state=event["state"])
            return
        if event["version"] > self.version_sent:
            self.other_connected = event["connected"]
            self.version_sent = event["version"]
            await self._send(event["text"])

    async def table_refresh(self, event: dict[str, Any]) -> None:
        """The table changed outside a socket: send this seat its own fresh
        view. A refresh with a ``version`` (a luck check's, made under the
        table's lock, which leaves the version alone) changed nothing a view
        of a newer version does not show: dropped when this socket has sent
        one."""
        if self.closing or event.get("origin") == self.origin:
            return
        version = event.get("version")
        if version is not None and version < self.version_sent:
            return
        await self.send_state()

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

    # Reads (on a database thread).

    def check_session(self) -> None:
        """SessionEnded unless this socket's session still signs its user in.
        The first statement of every call ``db`` runs with ``opens_with_read``:
        it reconnects once if the thread's connection had died."""
        if not reconnecting(
            lambda: session.session_holds(session_key=self.session_key, user_id=self.user_id)
        ):
            raise SessionEnded()

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
        """This seat's view, as ``engine.seat_view`` builds it."""
        return selectors.table_state(
            table_id=self.table_id, seat_number=self.seat_number, base_url=self.base_url
        )

    # Sending.

    async def send_state(
        self,
        message_id: str | int | None = None,
        *,
        replayed: bool = False,
        state: dict[str, Any] | None = None,
    ) -> None:
        """Send this seat's view (read now when not given), with
        ``message_id`` when it answers a message."""
        if state is None:
            state = await db(self.read_state_reconnecting, opens_with_read=True)()
        self.other_connected = state["seats"]["other"]["connected"]
        self.version_sent = max(self.version_sent, state["table"]["version"])
        frame = {"type": "state", **state}
        if replayed:
            frame["replayed"] = True
        await self.send_frame(frame, message_id)

    async def send_error(self, exc: GameError, message_id: str | int | None = None) -> None:
        await self.send_frame({"type": "error", **error_payload(exc)}, message_id)

    async def send_frame(self, payload: dict[str, Any], message_id: str | int | None) -> None:
        """Send ``payload`` (with ``message_id``, when there is one)."""
        if message_id is not None:
            payload = {**payload, "id": message_id}
        await self._send(frame_text(payload))


def seat_group(group: str, number: int) -> str:
    """The group of one seat's sockets: the only ones its view is sent to."""
    return f"{group}.{number}"


def current_cancelled() -> bool:
    """Whether the running task is being cancelled (not merely a
    ``CancelledError`` raised inside a library it called)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def frame_text(payload: dict[str, Any]) -> str:
    """A frame's JSON text, compact (orjson: a table's view in about a tenth
    of the standard library's time)."""
    return orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS).decode()
