"""A fault anywhere in a table socket ends it cleanly: a close the client sees,
with a code a server may send (4500: reconnect), no heartbeat left running,
no presence row left counting against the player or showing the seat
connected, and a new socket for the same player accepted.

The application runs under ``daphne_rules``: as daphne (autobahn) does, a
close code a server may not send (anything but 1000 and 3000-4999) raises in
the application's ``send`` and closes nothing. The test communicator alone
would pass any code through."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import OperationalError, transaction

from accounts.models import User
from games import selectors, services
from games.models import Presence
from games.realtime import apply, presence
from games.realtime.consumer import CLOSE_SERVER_ERROR
from games.realtime.table_socket import TableSocket
from paigow_site.asgi import application
from tests.sockets import Seat_, db_snapshot, join, open_seat
from tests.support import STRONG, WEAK, deck_with, friend_table, house_front

pytestmark = pytest.mark.django_db(transaction=True)


def daphne_rules(app: Any) -> Any:
    """``app`` with autobahn's rule for a server's close codes."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        async def checked(message: dict[str, Any]) -> None:
            code = message.get("code", 1000)
            if message["type"] == "websocket.close" and code != 1000 and not 3000 <= code <= 4999:
                raise Exception(f"invalid close code {code} (must be 1000 or from [3000, 4999])")
            await send(message)

        await app(scope, receive, checked)

    return wrapped


SERVED = daphne_rules(application)


def fail(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, times: int = 1,
         error: BaseException | None = None) -> list[int]:
    """``owner.name`` raises ``error`` (the database away) on its first
    ``times`` calls, then works; the list counts the calls."""
    real = getattr(owner, name)
    calls: list[int] = []
    failure = error or OperationalError("the database system is shutting down")

    def failing(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) <= times:
            raise failure
        return real(*args, **kwargs)

    async def failing_async(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) <= times:
            raise failure
        return await real(*args, **kwargs)

    is_async = asyncio.iscoroutinefunction(real)
    monkeypatch.setattr(owner, name, failing_async if is_async else failing)
    return calls


async def closed_with(seat: Seat_, seconds: float = 5) -> int:
    """The code of the close the socket gets (frames before it are kept)."""
    deadline = time.monotonic() + seconds
    while True:
        output = await seat.comm.receive_output(timeout=max(0.1, deadline - time.monotonic()))
        if output["type"] == "websocket.close":
            code: int = output["code"]
            return code
        seat.frames.append(output["text"])


def heartbeats() -> list[asyncio.Task[Any]]:
    return [
        task for task in asyncio.all_tasks()
        if getattr(task.get_coro(), "__qualname__", "") == "TableConsumer.beat"
    ]


async def eventually(check: Callable[[], Awaitable[bool]], seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def rows(user: User) -> int:
    count: int = await database_sync_to_async(
        Presence.objects.filter(seat__user=user).count
    )()
    return count


async def beating(count: int) -> bool:
    """Whether ``count`` heartbeats run (a socket starts its own just after
    its first frame)."""

    async def check() -> bool:
        return len(heartbeats()) == count

    return await eventually(check)


async def nothing_left(user: User) -> bool:
    return not heartbeats() and await rows(user) == 0


async def test_a_fault_while_handling_a_message_closes_with_4500_and_leaves_nothing(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    seat, _ = await join(player, table.pk, app=SERVED)
    assert await rows(player) == 1
    assert await beating(1)
    fail(monkeypatch, TableSocket, "read_state_signed_in")
    await seat.comm.send_to(text_data=json.dumps({"type": "state", "id": "s"}))
    assert await closed_with(seat) == CLOSE_SERVER_ERROR
    await seat.comm.disconnect()  # the client answers the close
    assert await eventually(lambda: nothing_left(player))
    again, hello = await join(player, table.pk, app=SERVED)
    assert hello["type"] == "state"
    assert (await again.answer({"type": "ping", "id": 1}))["type"] == "pong"
    await again.close()


async def test_a_cancellation_inside_a_handler_is_a_fault_not_a_dead_worker(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    seat, _ = await join(player, table.pk, app=SERVED)
    fail(monkeypatch, TableSocket, "read_state_signed_in", error=asyncio.CancelledError())
    await seat.comm.send_to(text_data=json.dumps({"type": "state", "id": "s"}))
    assert await closed_with(seat) == CLOSE_SERVER_ERROR
    await seat.comm.disconnect()
    assert await eventually(lambda: nothing_left(player))


async def test_a_fault_while_connecting_closes_with_4500_and_leaves_no_row(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    # After the row is made; every try (a read is tried again on a new connection).
    fail(monkeypatch, selectors, "table_state", times=10**6)
    comm = await open_seat(player, table.pk, app=SERVED)
    connected, _ = await comm.connect()
    assert connected
    assert await closed_with(Seat_(comm)) == CLOSE_SERVER_ERROR
    await comm.disconnect()
    monkeypatch.undo()
    assert await eventually(lambda: nothing_left(player))
    seat, hello = await join(player, table.pk, app=SERVED)
    assert hello["type"] == "state"
    await seat.close()


async def test_a_channel_layer_failure_closes_with_4500(player: User, friend: User) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    seat, _ = await join(player, table.pk, app=SERVED)
    grace, _ = await join(friend, table.pk, app=SERVED)
    assert (await seat.receive())["seats"]["other"]["connected"] is True
    # The layer's own instance (channels-redis proxies its methods per event loop).
    layer = get_channel_layer()
    real = layer.group_send
    calls: list[int] = []

    async def group_send(*args: Any) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("Redis away")
        await real(*args)

    layer.group_send = group_send
    try:
        answer = await seat.answer({"type": "stake", "amount": 10, "id": "p"})
        assert answer["table"]["proposal"]["amount"] == 10  # committed, answered; the push failed
        assert await closed_with(seat) == CLOSE_SERVER_ERROR
        await seat.comm.disconnect()
    finally:
        del layer.group_send
    await grace.close()

    async def no_row() -> bool:
        return await rows(player) == 0

    assert await eventually(no_row)


async def test_an_instance_the_server_cancels_stops_its_heartbeat_and_presence(
    player: User, friend: User
) -> None:
    """daphne cancels an application instance that took too long to shut
    down (``application_checker``): its heartbeat must not outlive it."""
    table = await database_sync_to_async(friend_table)(player, friend)
    seat, _ = await join(player, table.pk, app=SERVED)
    assert await beating(1)
    seat.comm.future.cancel()
    assert await eventually(lambda: nothing_left(player))


async def test_a_closed_socket_s_row_is_deleted_once_the_database_is_back(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    seat, _ = await join(player, table.pk, app=SERVED)
    calls = fail(monkeypatch, presence, "presence_disconnect", times=2)
    await seat.close()
    assert await eventually(lambda: nothing_left(player))
    assert len(calls) == 3


async def test_a_closed_socket_whose_row_waits_for_the_database_does_not_count(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """Its process knows the socket is gone: a reconnect it serves is not
    refused for the row the closed socket could not delete yet."""
    settings.SOCKETS_PER_USER = 1
    table = await database_sync_to_async(friend_table)(player, friend)
    first, _ = await join(player, table.pk, app=SERVED)
    fail(monkeypatch, presence, "presence_disconnect", times=10**6)
    await first.close()
    assert await rows(player) == 1  # its delete is being tried again
    second, hello = await join(player, table.pk, app=SERVED)
    assert hello["type"] == "state"
    assert await rows(player) == 1  # the new socket's own
    monkeypatch.undo()
    await second.close()
    assert await eventually(lambda: nothing_left(player))


async def test_sockets_ended_by_faults_do_not_count_against_the_player(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.SOCKETS_PER_USER = 2
    table = await database_sync_to_async(friend_table)(player, friend)
    for _round in range(3):
        seats = [(await join(player, table.pk, app=SERVED))[0] for _ in range(2)]
        fail(monkeypatch, TableSocket, "read_state_signed_in", times=2)
        for seat in seats:
            await seat.comm.send_to(text_data=json.dumps({"type": "state", "id": "s"}))
            assert await closed_with(seat) == CLOSE_SERVER_ERROR
            await seat.comm.disconnect()
        monkeypatch.undo()
    assert await eventually(lambda: nothing_left(player))


async def test_the_other_seat_sees_a_socket_ended_by_a_fault_as_gone(
    player: User, friend: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    ada, _ = await join(player, table.pk, app=SERVED)
    grace, hello = await join(friend, table.pk, app=SERVED)
    assert hello["seats"]["other"]["connected"] is True
    assert (await ada.receive())["seats"]["other"]["connected"] is True
    fail(monkeypatch, TableSocket, "read_state_signed_in")
    await grace.comm.send_to(text_data=json.dumps({"type": "state", "id": "g"}))
    assert await closed_with(grace) == CLOSE_SERVER_ERROR
    await grace.comm.disconnect()
    seen = await ada.receive()
    assert seen["seats"]["other"]["connected"] is False
    await ada.close()


# --- an action whose outcome the server does not know --------------------------------------


def answer_lost_after_commit(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The next message's change commits, then the database fails before its
    answer (an on-commit callback raising, as a connection lost right after
    the COMMIT would): on both backends, committed and failed."""
    real = apply._views
    fired: list[int] = []

    def lost() -> None:
        raise OperationalError("server closed the connection unexpectedly")

    def views(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        if not fired:  # the last thing the message does before its COMMIT
            fired.append(1)
            transaction.on_commit(lost)
        return found

    monkeypatch.setattr(apply, "_views", views)
    return fired


async def solo_deal(player: User, rig: Any) -> tuple[Any, Seat_]:
    """A solo table with a deal to lock, and its socket."""
    rig(deck_with(STRONG, WEAK))
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    seat, _ = await join(player, table.pk, app=SERVED)
    await seat.answer({"type": "stake", "amount": 20, "id": "s"})
    await seat.answer({"type": "deal", "id": "d"})
    return table, seat


async def test_a_change_that_may_have_committed_is_answered_outcome_unknown_and_the_resend_tells(
    player: User, rig: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, seat = await solo_deal(player, rig)
    lock = {"type": "lock", "front": house_front(STRONG), "id": "L"}
    fired = answer_lost_after_commit(monkeypatch)
    unknown = await seat.answer(lock)
    assert fired
    assert (unknown["type"], unknown["error"]) == ("error", "outcome_unknown")
    assert await closed_with(seat) == CLOSE_SERVER_ERROR  # the page resends on its next socket
    await seat.comm.disconnect()
    again, hello = await join(player, table.pk, app=SERVED)
    assert hello["deal"]["revealed"] is True  # it had committed
    resent = await again.answer(lock)
    assert (resent["type"], resent.get("replayed")) == ("state", True)
    await again.close()


async def test_a_failure_before_the_commit_is_a_server_error_that_changed_nothing(
    player: User, rig: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, seat = await solo_deal(player, rig)
    before = await database_sync_to_async(db_snapshot)(table.pk)
    fail(monkeypatch, apply, "_views")  # inside the transaction, before the COMMIT
    refused = await seat.answer({"type": "lock", "front": house_front(STRONG), "id": "L"})
    assert (refused["type"], refused["error"]) == ("error", "server_error")
    assert await database_sync_to_async(db_snapshot)(table.pk) == before
    monkeypatch.undo()
    locked = await seat.answer({"type": "lock", "front": house_front(STRONG), "id": "L"})
    assert locked["deal"]["revealed"] is True
    assert "replayed" not in locked
    await seat.close()
