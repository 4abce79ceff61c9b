"""What one user can cost the server: a capped number of table sockets, a
token bucket of messages per socket (an error frame, then a close: 4429), and
a capped number of stored message ids per seat, while an honest page's
resend is still applied exactly once. The last test floods a live daphne and
checks another table's socket is still answered."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from games import services
from games.models import ClientMessage, Presence, Table
from tests.live_site import REPO, embedded_env, live_site, migrate
from tests.sockets import open_seat
from tests.system.wsclient import Closed, WebSocket

pytestmark = pytest.mark.django_db(transaction=True)


async def solo_table(user: User) -> Table:
    table: Table = await database_sync_to_async(services.table_start)(user=user, mode="solo")
    return table


async def opened(user: User, table_id: int) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    """A socket and its first output (the state frame, or the close)."""
    comm = await open_seat(user, table_id)
    connected, _ = await comm.connect()
    assert connected
    return comm, await comm.receive_output(timeout=5)


async def send(comm: WebsocketCommunicator, message: dict[str, Any]) -> None:
    await comm.send_to(text_data=json.dumps(message))


async def frames_until_close(comm: WebsocketCommunicator, most: int) -> list[dict[str, Any]]:
    """Every frame up to the server's close (its code last, as {"close": code})."""
    seen: list[dict[str, Any]] = []
    for _ in range(most):
        output = await comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return [*seen, {"close": output["code"]}]
        seen.append(json.loads(output["text"]))
    raise AssertionError(f"no close within {most} frames")


async def reply_to(comm: WebsocketCommunicator, message_id: str, most: int = 50) -> dict[str, Any]:
    """Frames until the answer to ``message_id`` (pushes from other tabs skipped)."""
    for _ in range(most):
        frame: dict[str, Any] = json.loads(await comm.receive_from(timeout=5))
        if frame.get("id") == message_id:
            return frame
    raise AssertionError(f"no answer to {message_id} within {most} frames")


# --- sockets per user -----------------------------------------------------------------------


async def test_a_users_socket_over_the_limit_is_closed_with_4429(
    player: User, friend: User, settings: Any
) -> None:
    settings.SOCKETS_PER_USER = 2
    first, second = await solo_table(player), await solo_table(player)
    open_ones = []
    for table in (first, second):  # counted across tables
        comm, hello = await opened(player, table.pk)
        assert hello["type"] == "websocket.send"
        open_ones.append(comm)
    refused, closing = await opened(player, first.pk)
    assert closing["type"] == "websocket.close"
    assert closing["code"] == 4429
    theirs, hello = await opened(friend, (await solo_table(friend)).pk)
    assert hello["type"] == "websocket.send"  # another user's sockets are theirs
    await theirs.disconnect()
    assert await database_sync_to_async(Presence.objects.count)() == 2  # the refused one left none
    await refused.disconnect()
    await open_ones.pop().disconnect()
    again, hello = await opened(player, second.pk)  # a closed socket frees its place
    assert hello["type"] == "websocket.send"
    for comm in (again, *open_ones):
        await comm.disconnect()


# --- messages per socket --------------------------------------------------------------------


async def test_a_flood_gets_one_error_frame_then_the_close(player: User, settings: Any) -> None:
    settings.SOCKET_MESSAGES_BURST = 5
    settings.SOCKET_MESSAGES_PER_SECOND = 0.001  # no refill while the test runs
    table = await solo_table(player)
    comm, _ = await opened(player, table.pk)
    for n in range(30):
        await send(comm, {"type": "ping", "id": n})
    frames = await frames_until_close(comm, most=40)
    # The refusal is answered as the frame arrives, maybe before the pongs of
    # the five let in; the close drops whatever of those was not answered yet.
    errors = [f for f in frames if f.get("type") == "error"]
    assert len(errors) == 1
    assert errors[0]["error"] == "too_many_messages"
    assert errors[0]["id"] == 5
    assert errors[0]["detail"].startswith("Too many messages")
    pongs = [f["id"] for f in frames if f.get("type") == "pong"]
    assert pongs == sorted(pongs)
    assert set(pongs) <= set(range(5))
    assert frames[-1] == {"close": 4429}  # the next one over the limit closes it
    assert len(frames) == len(pongs) + 2
    await comm.disconnect()


async def test_a_pause_long_enough_to_refill_forgives_the_warning(
    player: User, settings: Any
) -> None:
    settings.SOCKET_MESSAGES_BURST = 2
    settings.SOCKET_MESSAGES_PER_SECOND = 2
    table = await solo_table(player)
    comm, _ = await opened(player, table.pk)
    for _ in range(2):  # two bursts of three, each refused once, with a pause between
        for n in range(3):
            await send(comm, {"type": "ping", "id": n})
        replies = [json.loads(await comm.receive_from(timeout=5)) for _ in range(3)]
        assert sorted(r["type"] for r in replies) == ["error", "pong", "pong"]
        assert await comm.receive_nothing(timeout=1.2)  # after 1 s the bucket is full again
    await comm.disconnect()


# --- stored message ids ---------------------------------------------------------------------


async def test_stored_ids_stay_bounded_under_a_flood_of_actions(
    player: User, settings: Any
) -> None:
    settings.CLIENT_MESSAGES_PER_SEAT = 5
    settings.SOCKET_MESSAGES_BURST = 100
    table = await solo_table(player)
    comm, _ = await opened(player, table.pk)
    for n in range(1, 31):
        await send(comm, {"type": "stake", "amount": n, "id": f"f-{n}"})
    for n in range(1, 31):
        assert (await reply_to(comm, f"f-{n}"))["table"]["stake"] == n
    kept = await database_sync_to_async(
        lambda: sorted(ClientMessage.objects.values_list("client_id", flat=True))
    )()
    # The newest five, and at most a quarter more (at least one): the trim
    # runs once a seat holds that many, not on every claim.
    assert set(kept) >= {json.dumps(f"f-{n}") for n in range(26, 31)}
    assert len(kept) <= 5 + 1
    # The newest are still applied once, and a resend pushes none of them out.
    await send(comm, {"type": "stake", "amount": 30, "id": "f-30"})
    assert (await reply_to(comm, "f-30"))["replayed"] is True
    await send(comm, {"type": "stake", "amount": 26, "id": "f-26"})
    assert (await reply_to(comm, "f-26"))["replayed"] is True
    again = await database_sync_to_async(
        lambda: sorted(ClientMessage.objects.values_list("client_id", flat=True))
    )()
    assert again == kept
    await comm.disconnect()


async def test_the_honest_pages_resend_is_applied_once_after_another_tabs_flood(
    player: User, settings: Any
) -> None:
    settings.SOCKET_MESSAGES_BURST = 10
    settings.SOCKET_MESSAGES_PER_SECOND = 0.001
    settings.CLIENT_MESSAGES_PER_SEAT = 20
    table = await solo_table(player)
    page, _ = await opened(player, table.pk)
    await send(page, {"type": "stake", "amount": 7, "id": "page-1"})
    assert (await reply_to(page, "page-1"))["table"]["stake"] == 7
    # Another tab of the same seat floods stakes: it is cut off after its burst.
    flood, _ = await opened(player, table.pk)
    for n in range(60):
        await send(flood, {"type": "stake", "amount": 9, "id": f"x{n}"})
    frames = await frames_until_close(flood, most=80)
    assert frames[-1] == {"close": 4429}
    answered = sum(f.get("type") == "state" for f in frames)
    await flood.disconnect()
    # What was applied: those answered, and at most one in flight at the close.
    applied = await database_sync_to_async(
        ClientMessage.objects.filter(client_id__startswith='"x').count
    )()
    assert answered <= applied <= min(answered + 1, 10)
    # The page lost its reply, reconnects and resends: answered, not applied again.
    await page.disconnect()
    page, _ = await opened(player, table.pk)
    await send(page, {"type": "stake", "amount": 7, "id": "page-1"})
    resent = await reply_to(page, "page-1")
    assert resent["replayed"] is True
    assert resent["table"]["stake"] == (9 if applied else 7)
    assert await database_sync_to_async(ClientMessage.objects.count)() == 1 + applied
    await page.disconnect()


# --- a flood on a live server ---------------------------------------------------------------

SETUP = """
import json
from django.test import Client
from accounts.models import User
from games import services
out = {}
for name in ("mallory", "ada"):
    user = User.objects.create_user(username=name, password="a long pass phrase 1")
    client = Client()
    client.force_login(user)
    out[name] = {"table": services.table_start(user=user, mode="solo").pk,
                 "cookie": "sessionid=" + client.cookies["sessionid"].value}
print(json.dumps(out))
"""
COUNT_IDS = """
import json
from games.models import ClientMessage
print(json.dumps(ClientMessage.objects.filter(seat__user__username="mallory").count()))
"""
FLOOD = 400


def _shell(env: dict[str, str], code: str) -> Any:
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=REPO, env=env, capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.own_environment  # its own embedded site: the same on both backends
def test_a_flood_on_a_live_server_is_closed_and_another_table_is_still_answered(
    tmp_path: Path,
) -> None:
    env = embedded_env(tmp_path / "var")
    migrate(env)
    people = _shell(env, SETUP)
    with live_site(env, log_path=tmp_path / "daphne.log") as base:
        ws = base.replace("http", "ws", 1)

        def socket(name: str) -> WebSocket:
            who = people[name]
            conn = WebSocket(f"{ws}/ws/tables/{who['table']}/", origin=base, cookie=who["cookie"])
            assert conn.recv()["type"] == "state"
            return conn

        mallory, ada = socket("mallory"), socket("ada")
        for n in range(FLOOD):  # every one an action: each a database write if handled
            try:
                mallory.send({"type": "stake", "amount": 1 + n % 50, "id": f"m{n}"})
            except Closed:
                break
        # Meanwhile another player's table answers every message.
        for n in range(10):
            ada.send({"type": "stake", "amount": 10 + n, "id": f"a{n}"})
            assert ada.reply_to(f"a{n}")["table"]["stake"] == 10 + n
        states, errors, code = 0, [], None
        for _ in range(FLOOD + 1):
            try:
                frame = mallory.recv(timeout=10)
            except Closed as closed:
                code = closed.code
                break
            states += frame["type"] == "state"
            errors += [frame["error"]] if frame["type"] == "error" else []
        mallory.close()
        ada.close()
    assert code == 4429
    assert errors == ["too_many_messages"]
    # Handled: the burst (40) and what the bucket refilled meanwhile, far from all.
    assert states < FLOOD // 4
    assert states <= _shell(env, COUNT_IDS) <= states + 1  # one may be in flight at the close
