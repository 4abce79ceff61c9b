"""``TableSocket`` driven without Channels: its frames go to a list, its
closes to another, its group sends to a third (``Wire``). What it does with
frames and events (limit, apply at most once, answer, push, send views in
version order, close 4500 on a fault) is held here; the consumer's tests
hold the same through the ASGI stack (WebsocketCommunicator). No consumer,
channel layer or communicator here: only the set-up's reads go through
``database_sync_to_async``, for its closing of their connections."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import OperationalError
from django.test import Client

from accounts.models import User
from games import selectors
from games.engine.errors import OutcomeUnknown
from games.models import Seat, Table
from games.realtime import presence, table_socket
from games.realtime.table_socket import (
    CLOSE_NOT_SIGNED_IN,
    CLOSE_SERVER_ERROR,
    CLOSE_TOO_MANY,
    MessageBucket,
    TableSocket,
)
from tests.support import friend_table

pytestmark = pytest.mark.django_db(transaction=True)


class Wire:
    """What a ``TableSocket`` sent: frames, closes and group events."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.closes: list[tuple[int, str]] = []
        self.events: list[tuple[str, dict[str, Any]]] = []

    async def send(self, text: str) -> None:
        self.texts.append(text)

    async def close(self, code: int, reason: str) -> None:
        self.closes.append((code, reason))

    async def group_send(self, group: str, event: dict[str, Any]) -> None:
        self.events.append((group, event))

    def frames(self) -> list[dict[str, Any]]:
        return [json.loads(text) for text in self.texts]


def session_key(user: User) -> str:
    client = Client()
    client.force_login(user)
    key = client.session.session_key
    assert key is not None
    return key


def seated(
    user: User, table: Table, wire: Wire, *, rate: float = 100, burst: int = 10
) -> TableSocket:
    seat = Seat.objects.get(table=table, user=user)
    return TableSocket(
        user=user,
        table_id=table.pk,
        seat_number=seat.number,
        seat_id=seat.pk,
        session_key=session_key(user),
        group=table.group_name,
        origin=f"test.{user.pk}",
        base_url="http://testserver",
        bucket=MessageBucket(rate=rate, burst=burst, now=0.0),
        send=wire.send,
        close=wire.close,
        group_send=wire.group_send,
    )


async def ada_socket(
    player: User, friend: User, **limits: Any
) -> tuple[TableSocket, Wire, Table]:
    table = await database_sync_to_async(friend_table)(player, friend)
    wire = Wire()
    socket = await database_sync_to_async(seated)(player, table, wire, **limits)
    socket.start()
    return socket, wire, table


async def handled(socket: TableSocket, *events: dict[str, Any]) -> None:
    """Hand ``events`` over and let the worker handle them all."""
    for event in events:
        await socket.hand(event)
    await socket.finish()


def frame(message: dict[str, Any]) -> dict[str, Any]:
    return {"type": "websocket.receive", "text": json.dumps(message)}


async def test_a_ping_is_answered_with_its_id_and_a_bad_frame_with_the_registrys_error(
    player: User, friend: User
) -> None:
    socket, wire, _ = await ada_socket(player, friend)
    await handled(
        socket, frame({"type": "ping", "id": 1}), frame({"type": "stake", "amount": "x", "id": 2})
    )
    pong, error = wire.frames()
    assert pong == {"type": "pong", "id": 1}
    assert (error["type"], error["id"]) == ("error", 2)
    assert error["error"]
    assert error["detail"]
    assert wire.closes == []


async def test_an_action_is_applied_once_answered_and_pushed_to_the_other_seat_only(
    player: User, friend: User
) -> None:
    socket, wire, table = await ada_socket(player, friend)
    grace_seat = await database_sync_to_async(Seat.objects.get)(table=table, user=friend)
    await database_sync_to_async(presence.presence_connect)(
        table_id=table.pk, seat_id=grace_seat.pk, channel_name="grace-tab"
    )
    stake = {"type": "stake", "amount": 10, "id": "s1"}
    await handled(socket, frame(stake), frame(stake))
    first, again = wire.frames()
    assert first["id"] == "s1"
    assert first["table"]["proposal"]["amount"] == 10
    assert again["replayed"] is True
    assert again["table"] == first["table"]
    # Pushed once (not for the replay), to Grace's seat group only.
    [(group, event)] = wire.events
    assert group == f"{table.group_name}.1"
    assert event["type"] == "table.state"
    assert event["origin"] == socket.origin
    grace_view = await database_sync_to_async(selectors.table_state)(
        table_id=table.pk, seat_number=1, base_url="http://testserver"
    )
    assert json.loads(event["text"]) == {"type": "state", **grace_view}
    assert event["version"] == first["table"]["version"] == socket.version_sent


async def test_views_are_sent_in_version_order_and_own_pushes_are_dropped(
    player: User, friend: User
) -> None:
    socket, wire, _ = await ada_socket(player, friend)
    socket.version_sent = 5

    def pushed(version: int, origin: str = "other") -> dict[str, Any]:
        return {"type": "table.state", "text": f'{{"v":{version}}}', "version": version,
                "connected": True, "origin": origin}

    await handled(socket, pushed(7), pushed(6), pushed(7), pushed(9, origin=socket.origin),
                  pushed(8))
    assert wire.texts == ['{"v":7}', '{"v":8}']
    assert socket.version_sent == 8
    assert socket.other_connected is True


async def test_a_refresh_reads_the_view_unless_a_newer_one_was_sent(
    player: User, friend: User
) -> None:
    socket, wire, table = await ada_socket(player, friend)
    fresh = await database_sync_to_async(selectors.table_state)(
        table_id=table.pk, seat_number=0, base_url="http://testserver"
    )
    version = fresh["table"]["version"]
    socket.version_sent = version
    await handled(
        socket,
        {"type": "table.refresh", "origin": None, "version": version - 1},  # older: dropped
        {"type": "table.refresh", "origin": socket.origin},  # its own: dropped
        {"type": "table.refresh", "origin": None, "version": version},  # as new: read
        {"type": "table.refresh", "origin": None},  # bare: read
    )
    assert wire.frames() == [{"type": "state", **fresh}] * 2


async def test_over_the_limit_a_frame_is_refused_then_the_socket_closes_4429(
    player: User, friend: User
) -> None:
    socket, wire, _ = await ada_socket(player, friend, rate=0.001, burst=2)
    pings = [frame({"type": "ping", "id": n}) for n in range(4)]
    # Counted as they arrive: the third is refused before the worker has
    # answered the first two, the fourth closes; once closed, the queued
    # frames are not handled.
    await handled(socket, *pings)
    [refused] = wire.frames()
    assert (refused["error"], refused["id"]) == ("too_many_messages", 2)
    assert [code for code, _ in wire.closes] == [CLOSE_TOO_MANY]
    assert socket.closing


async def test_a_fault_closes_4500_and_nothing_more_is_handled(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    socket, wire, _ = await ada_socket(player, friend)

    def away(self: TableSocket) -> dict[str, Any]:
        raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(TableSocket, "read_state_signed_in", away)
    await handled(socket, frame({"type": "state", "id": 1}), frame({"type": "ping", "id": 2}))
    assert wire.texts == []
    assert [code for code, _ in wire.closes] == [CLOSE_SERVER_ERROR]
    assert socket.worker is not None
    assert socket.worker.done()
    assert socket.worker.exception() is None  # the worker ended on finish, not of the fault


async def test_a_frame_after_the_session_ended_is_answered_session_ended_then_4401(
    player: User, friend: User
) -> None:
    socket, wire, _ = await ada_socket(player, friend)
    socket.session_key = "not-a-session"
    await handled(socket, frame({"type": "stake", "amount": 10, "id": "s"}))
    [answer] = wire.frames()
    assert (answer["error"], answer["id"]) == ("session_ended", "s")
    assert [code for code, _ in wire.closes] == [CLOSE_NOT_SIGNED_IN]


async def test_the_worker_handles_what_was_queued_before_finishing(
    player: User, friend: User
) -> None:
    socket, wire, _ = await ada_socket(player, friend)
    for n in range(3):
        await socket.hand(frame({"type": "ping", "id": n}))
    await asyncio.wait_for(socket.finish(), timeout=5)
    assert [f["id"] for f in wire.frames()] == [0, 1, 2]


async def test_an_id_reused_for_another_message_is_refused_and_nothing_is_pushed(
    player: User, friend: User
) -> None:
    socket, wire, _ = await ada_socket(player, friend)
    await handled(
        socket,
        frame({"type": "stake", "amount": 10, "id": "s"}),
        frame({"type": "stake", "amount": 20, "id": "s"}),
    )
    first, refused = wire.frames()
    assert first["table"]["proposal"]["amount"] == 10
    assert (refused["error"], refused["id"]) == ("id_reused", "s")
    assert wire.closes == []


async def test_an_outcome_unknown_is_answered_then_the_socket_closes_4500(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    socket, wire, _ = await ada_socket(player, friend)

    def lost(**_: Any) -> None:
        raise OutcomeUnknown()

    monkeypatch.setattr(table_socket, "message_apply", lost)
    await handled(socket, frame({"type": "stake", "amount": 10, "id": "s"}))
    [answer] = wire.frames()
    assert (answer["error"], answer["id"]) == ("outcome_unknown", "s")
    assert [code for code, _ in wire.closes] == [CLOSE_SERVER_ERROR]
    assert wire.events == []
