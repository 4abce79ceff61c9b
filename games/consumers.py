"""The table socket: transport only.

It authenticates the connection, checks each frame against the one registry
in ``games.protocol``, calls a service, and sends the result. It holds no
rules. A socket's action reads every seat's view once, in the action's own
transaction (``selectors.seat_views``, built by ``engine.seat_view``); once
it commits, the socket answers with its own and pushes each other view to
that seat's own channel-layer group (``<table group>.<seat>``), which only
that seat's sockets join, so a view only ever travels to the seat allowed to
see it.
Views carry the table's ``version``: pushes from two processes can arrive out
of order, and a socket never sends a view older than the last it sent.
Changes made outside a socket (pages, upkeep) and presence changes send the
table's group a bare refresh; each socket then reads its own view.

Presence: each open socket keeps one ``Presence`` row (made on connect,
refreshed by a heartbeat, deleted on close). A connect or a close tells the
group to refresh, so the other seat sees ``seats.other.connected`` change; a
row left by a process that died ages out, and the other seat's next heartbeat
notices and sends a fresh state.

Close codes: 4401 not signed in, 4403 no seat at this table (or no such table).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import close_old_connections

from . import broadcast, protocol, selectors, services
from .exceptions import GameError, ServerError, error_payload
from .models import Seat, Table

log = logging.getLogger(__name__)

CLOSE_NOT_SIGNED_IN = 4401
CLOSE_NOT_SEATED = 4403

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


def db(func: Callable[..., T]) -> Callable[..., Any]:
    """``func`` run off the event loop on the sockets' database threads.

    Channels' default (``thread_sensitive``) runs every database call of a
    process on one thread, one after another: one socket's PostgreSQL round
    trip made every other socket wait (docs/benchmarks.md). Each call here is
    one whole service transaction or one read, independent of the others, so
    they can run side by side; one socket's own calls still run in order,
    because a consumer awaits each before handling its next message.

    Like Channels' ``database_sync_to_async``, it drops a connection that
    failed or outlived ``CONN_MAX_AGE`` before and after each call; unlike it,
    Channels' test communicator does not switch that off, since these threads
    never share a test's transaction.
    """

    def call(*args: Any, **kwargs: Any) -> T:
        close_old_connections()
        try:
            return func(*args, **kwargs)
        finally:
            close_old_connections()

    return sync_to_async(call, thread_sensitive=False, executor=_db_threads())


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


# Message type -> the service it calls, with the fields it passes.
ACTIONS: dict[str, Callable[[Any, int, dict[str, Any]], object]] = {
    "stake": lambda user, table_id, f: services.stake_propose(
        user=user, table_id=table_id, amount=f["amount"]
    ),
    "accept_stake": lambda user, table_id, f: services.stake_accept(user=user, table_id=table_id),
    "deal": lambda user, table_id, f: services.deal_start(user=user, table_id=table_id),
    "rebet": lambda user, table_id, f: services.deal_rebet(user=user, table_id=table_id),
    "lock": lambda user, table_id, f: services.setting_lock(
        user=user,
        table_id=table_id,
        front=f["front"],
        back=f.get("back"),
        confirm_foul=f.get("confirm_foul", False),
        deal_number=f.get("deal"),
    ),
    "invite_new": lambda user, table_id, f: services.invite_create(user=user, table_id=table_id),
    "invite_revoke": lambda user, table_id, f: services.invite_revoke(user=user, table_id=table_id),
    "luck": lambda user, table_id, f: services.luck_record(
        user=user,
        table_id=table_id,
        deal_number=f["deal"],
        wins=f["wins"],
        pushes=f["pushes"],
        losses=f["losses"],
    ),
}


class TableConsumer(AsyncWebsocketConsumer):
    table_id: int
    seat_number: int
    seat_id: int
    group: str | None = None
    version_sent: int = -1  # the newest table version this socket has sent
    base_url: str = ""
    heartbeat: asyncio.Task[None] | None = None
    other_connected: bool | None = None  # as last sent to this socket

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its check of old database connections
        before every frame and group event: that check runs on the process's
        one thread for synchronous code (a hop there, queued behind every
        other socket's, per message), for connections these sockets do not
        use. Their calls run on ``db``'s threads, which check their own
        connections before and after each call."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
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
        self.seat_number = seat.number
        self.seat_id = seat.pk
        self.group = seat.table.group_name
        # The origin was checked against ALLOWED_HOSTS: it is this page's own.
        self.base_url = dict(self.scope.get("headers") or []).get(b"origin", b"").decode("latin-1")
        await db(services.presence_connect)(
            table_id=self.table_id, seat_id=seat.pk, channel_name=self.channel_name
        )
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.channel_layer.group_add(self.seat_group(self.seat_number), self.channel_name)
        await self.send_state()
        await self.tell_others()
        self.heartbeat = asyncio.create_task(self.beat())

    async def disconnect(self, code: int) -> None:
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.heartbeat
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.channel_layer.group_discard(
                self.seat_group(self.seat_number), self.channel_name
            )
            await db(services.presence_disconnect)(channel_name=self.channel_name)
            await self.tell_others()

    async def beat(self) -> None:
        """Keep this socket counted; send a fresh state when the other seat's
        presence changed without a refresh (its process died)."""
        for delay in beat_delays(settings.PRESENCE_HEARTBEAT_SECONDS, random.Random()):
            await asyncio.sleep(delay)
            try:
                connected = await db(self.keep_present)()
                if connected != self.other_connected:
                    await self.send_state()
            except Exception:
                log.exception("table %s: heartbeat failed", self.table_id)

    def keep_present(self) -> bool:
        """Refresh this socket's presence; whether the other seat is connected."""
        services.presence_heartbeat(seat_id=self.seat_id, channel_name=self.channel_name)
        return selectors.other_connected(table_id=self.table_id, seat_number=self.seat_number)

    def seat_group(self, number: int) -> str:
        """The group of one seat's sockets: the only ones its view is sent to."""
        return f"{self.group}.{number}"

    async def tell_others(self) -> None:
        if self.group:
            await self.channel_layer.group_send(
                self.group, broadcast.refresh_event(self.channel_name)
            )

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.group is None:
            return
        raw: Any = None
        try:
            raw = protocol.decode(text_data, bytes_data)
            message = protocol.validate(raw)
        except GameError as exc:
            await self.send_error(exc, protocol.message_id(raw))
            return
        if message.type == "ping":
            await self.send_frame({"type": "pong"}, message.id)
            return
        if message.type == "state":
            await self.send_state(message.id)
            return
        try:
            applied, state, views = await db(self.perform_then_read)(message)
        except GameError as exc:
            await self.send_error(exc, message.id)
            return
        except Exception:
            log.exception("table %s: %s failed", self.table_id, message.type)
            await self.send_error(ServerError(), message.id)
            return
        if not applied:  # a resend of an id already applied: the same answer, once
            await self.send_state(message.id, replayed=True, state=state)
            return
        # The service's transaction has committed: answer, then tell the others.
        await self.send_state(message.id, state=state)
        await self.push_views(views)

    def perform_then_read(
        self, message: protocol.Message
    ) -> tuple[bool, dict[str, Any] | None, list[selectors.SeatView] | None]:
        """``perform``; this seat's state for the answer; the views to push
        (None: tell the table to refresh). One database call: one thread hop
        and one connection check fewer a message.

        A message with an ``id`` (the page's always have one) gets every
        seat's view read in its own transaction; one without, after the
        commit. A resend reads its own state only. If a read after the commit
        fails, None asks for it again instead of reporting the committed
        action as failed."""
        views: list[selectors.SeatView] = []
        applied = self.perform(message, views)
        try:
            if not applied:
                return applied, self.read_state(), []
            if not views:
                views = selectors.table_states(table_id=self.table_id, base_url=self.base_url)
        except Exception:
            log.exception(
                "table %s: reading the state after %s failed", self.table_id, message.type
            )
            return applied, None, None if applied else []
        own = next(v.state for v in views if v.number == self.seat_number)
        return applied, own, views

    async def push_views(self, views: list[selectors.SeatView] | None) -> None:
        """Send each seat's view to that seat's group (this socket's own other
        tabs included), when it has a socket to send it to; a bare refresh
        when the views could not be read. (A socket that opens after the read
        reads its own first view after this change committed.)"""
        if views is None:
            await self.tell_others()
            return
        for view in views:
            others = view.sockets - (view.number == self.seat_number)
            if others > 0:
                await self.channel_layer.group_send(
                    self.seat_group(view.number),
                    {"type": "table.state", "state": view.state, "origin": self.channel_name},
                )

    def perform(self, message: protocol.Message, views: list[selectors.SeatView]) -> bool:
        """Run the message's service; with an ``id``, at most once per seat and id
        (False: this id was applied before, nothing ran). ``views`` gets the
        seats' views, read in the action's transaction (with an ``id`` only)."""
        user = self.scope["user"]

        def action() -> object:
            return ACTIONS[message.type](user, self.table_id, message.fields)

        def read(
            table: Table, seats: tuple[Seat, Seat], latest: selectors.LatestDeal | None
        ) -> None:
            views.extend(
                selectors.seat_views(
                    table=table, seats=seats, latest=latest, base_url=self.base_url
                )
            )

        if message.id is None:
            action()
            return True
        return services.client_message_apply(
            user=user,
            table_id=self.table_id,
            client_id=message.id,
            kind=message.type,
            fields=message.fields,
            action=action,
            then=read,
        )

    async def table_refresh(self, event: dict[str, Any]) -> None:
        """Another seat changed the table: send this seat its own fresh view."""
        if event.get("origin") != self.channel_name:
            await self.send_state()

    async def table_state(self, event: dict[str, Any]) -> None:
        """This seat's view after another socket's change: sent unless this
        socket made the change or has already sent a view as new."""
        state = event["state"]
        if event.get("origin") != self.channel_name and state["table"]["version"] > self.version_sent:
            await self.send_state(state=state)

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
            state = await db(self.read_state)()
        self.other_connected = state["seats"]["other"]["connected"]
        self.version_sent = max(self.version_sent, state["table"]["version"])
        frame = {"type": "state", **state}
        if replayed:
            frame["replayed"] = True
        await self.send_frame(frame, message_id)

    async def send_error(self, exc: GameError, message_id: str | int | None = None) -> None:
        await self.send_frame({"type": "error", **error_payload(exc)}, message_id)

    async def send_frame(self, payload: dict[str, Any], message_id: str | int | None) -> None:
        if message_id is not None:
            payload = {**payload, "id": message_id}
        await self.send(text_data=json.dumps(payload, separators=(",", ":")))
