"""The table socket: transport only.

It authenticates the connection, checks each frame against the one registry
in ``games.protocol``, calls a service, and sends the result. It holds no
rules. After a change commits, it tells the table's group to refresh, and
every seat's consumer builds its own view from the database with
``selectors.table_state`` (so nothing hidden ever crosses the channel layer).

Close codes: 4401 not signed in, 4403 no seat at this table (or no such table).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from . import protocol, selectors, services
from .exceptions import GameError, ServerError, error_payload

log = logging.getLogger(__name__)

CLOSE_NOT_SIGNED_IN = 4401
CLOSE_NOT_SEATED = 4403

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
    group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        try:
            seat = await database_sync_to_async(selectors.seat_for)(
                user=user, table_id=self.table_id
            )
        except GameError:
            await self.close(code=CLOSE_NOT_SEATED)
            return
        self.seat_number = seat.number
        self.group = seat.table.group_name
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_state()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

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
            await database_sync_to_async(self.perform)(message)
        except GameError as exc:
            await self.send_error(exc, message.id)
            return
        except Exception:
            log.exception("table %s: %s failed", self.table_id, message.type)
            await self.send_error(ServerError(), message.id)
            return
        # The service's transaction has committed: answer, then tell the others.
        await self.send_state(message.id)
        await self.channel_layer.group_send(
            self.group, {"type": "table.refresh", "origin": self.channel_name}
        )

    def perform(self, message: protocol.Message) -> None:
        ACTIONS[message.type](self.scope["user"], self.table_id, message.fields)

    async def table_refresh(self, event: dict[str, Any]) -> None:
        """Another seat changed the table: send this seat its own fresh view."""
        if event.get("origin") != self.channel_name:
            await self.send_state()

    async def send_state(self, message_id: str | int | None = None) -> None:
        state = await database_sync_to_async(selectors.table_state)(
            table_id=self.table_id, seat_number=self.seat_number
        )
        await self.send_frame({"type": "state", **state}, message_id)

    async def send_error(self, exc: GameError, message_id: str | int | None = None) -> None:
        await self.send_frame({"type": "error", **error_payload(exc)}, message_id)

    async def send_frame(self, payload: dict[str, Any], message_id: str | int | None) -> None:
        if message_id is not None:
            payload = {**payload, "id": message_id}
        await self.send(text_data=json.dumps(payload, separators=(",", ":")))
