"""A table socket lives only as long as the session it signed in with: a
sign-out in another tab, a password change in another browser, a session an
administrator deleted, an account made inactive, or a session that ends with
no signal at all (expiry, a raw delete) closes it with 4401, and it cannot
act after."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.models import Session
from django.db import OperationalError, connection
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import services
from games.engine.errors import SessionEnded
from games.models import Table
from games.realtime import session
from games.realtime.table_socket import TableSocket
from paigow_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a long pass phrase 1"  # tests.conftest.make_user's


def _login(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


async def signed_in(user: User) -> Client:
    """A browser with its own session for ``user``."""
    client: Client = await database_sync_to_async(_login)(user)
    return client


async def open_socket(client: Client, table_id: int) -> WebsocketCommunicator:
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    comm = WebsocketCommunicator(
        application,
        f"/ws/tables/{table_id}/",
        headers=[(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie)],
    )
    connected, _ = await comm.connect()
    assert connected
    first = json.loads(await comm.receive_from(timeout=5))
    assert first["type"] == "state"
    return comm


async def closed_with(comm: WebsocketCommunicator, seconds: float = 5) -> int:
    """The close code the socket gets next (frames before it are skipped, at most 20)."""
    for _ in range(20):
        output = await comm.receive_output(timeout=seconds)
        if output["type"] == "websocket.close":
            return int(output["code"])
    raise AssertionError("no close after 20 frames")


async def solo_table(user: User) -> Table:
    table: Table = await database_sync_to_async(services.table_start)(user=user, mode="solo")
    return table


def session_key(client: Client) -> str:
    return str(client.cookies["sessionid"].value)


async def test_a_sign_out_in_another_tab_closes_the_socket_with_4401(player: User) -> None:
    tab, elsewhere = await signed_in(player), await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(tab, table.pk)
    # A sign-out in another browser ends only that browser's session.
    await database_sync_to_async(elsewhere.post)("/accounts/sign-out/")
    await comm.send_to(text_data=json.dumps({"type": "stake", "amount": 5, "id": "s"}))
    reply = json.loads(await comm.receive_from(timeout=5))
    assert reply["type"] == "state"
    assert reply["table"]["stake"] == 5
    # Another tab of this browser: the same cookie, the same session.
    await database_sync_to_async(tab.post)("/accounts/sign-out/")
    assert await closed_with(comm) == 4401
    await comm.disconnect()


async def test_a_password_change_elsewhere_closes_the_socket(player: User) -> None:
    here, elsewhere = await signed_in(player), await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(here, table.pk)
    changed = await database_sync_to_async(elsewhere.post)(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "another long phrase 42",
            "new_password2": "another long phrase 42",
        },
    )
    assert changed.status_code == 302
    assert await closed_with(comm) == 4401
    await comm.disconnect()
    # The old session no longer signs in a socket either.
    again = WebsocketCommunicator(
        application,
        f"/ws/tables/{table.pk}/",
        headers=[
            (b"origin", b"http://testserver"),
            (b"host", b"testserver"),
            (b"cookie", f"sessionid={session_key(here)}".encode()),
        ],
    )
    await again.connect()
    assert (await again.receive_output(timeout=5))["code"] == 4401


async def test_a_session_the_admin_deletes_closes_the_socket(player: User) -> None:
    browser = await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(browser, table.pk)
    key = session_key(browser)
    await database_sync_to_async(lambda: Session.objects.filter(session_key=key).delete())()
    assert await closed_with(comm) == 4401
    await comm.disconnect()


async def test_an_account_made_inactive_closes_the_socket(player: User) -> None:
    browser = await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(browser, table.pk)

    def deactivate() -> None:
        player.is_active = False
        player.save()

    await database_sync_to_async(deactivate)()
    assert await closed_with(comm) == 4401
    await comm.disconnect()


def _end_silently(key: str) -> None:
    """End the session with no signal (as its expiry, or a raw DELETE, would)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {connection.ops.quote_name(Session._meta.db_table)}"
            " WHERE session_key = %s",
            [key],
        )


async def test_the_socket_cannot_act_once_its_session_is_gone(player: User) -> None:
    browser = await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(browser, table.pk)
    await database_sync_to_async(_end_silently)(session_key(browser))
    await comm.send_to(text_data=json.dumps({"type": "stake", "amount": 7, "id": "late"}))
    reply = json.loads(await comm.receive_from(timeout=5))
    assert reply["type"] == "error"
    assert reply["error"] == "session_ended"
    assert reply["id"] == "late"
    assert await closed_with(comm) == 4401
    stake = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).stake)()
    assert stake is None  # nothing was applied
    await comm.disconnect()


async def test_a_state_request_after_the_session_ended_reads_nothing(player: User) -> None:
    browser = await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(browser, table.pk)
    await database_sync_to_async(_end_silently)(session_key(browser))
    await comm.send_to(text_data=json.dumps({"type": "state", "id": 1}))
    reply = json.loads(await comm.receive_from(timeout=5))
    assert reply == {
        "type": "error", "error": "session_ended", "id": 1,
        "detail": "You were signed out. Sign in again to play.",
    }
    assert await closed_with(comm) == 4401
    await comm.disconnect()


async def test_an_idle_socket_is_closed_by_its_heartbeat_when_the_session_expires(
    player: User, settings: Any
) -> None:
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.2
    browser = await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(browser, table.pk)
    key = session_key(browser)
    await database_sync_to_async(
        lambda: Session.objects.filter(session_key=key).update(
            expire_date=timezone.now() - timedelta(seconds=1)
        )
    )()
    assert await closed_with(comm) == 4401  # no message sent: the heartbeat noticed
    await comm.disconnect()


async def test_a_session_check_that_fails_on_the_database_is_tried_again(
    player: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The change is told while its request may still write its session row, and
    # a busy database may refuse the read once: that is no reason to close.
    here = await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(here, table.pk)
    tries: list[int] = []

    def locked_once(self: TableSocket) -> None:
        tries.append(1)
        if len(tries) == 1:
            raise OperationalError("database table is locked: django_session")
        raise SessionEnded()

    monkeypatch.setattr(TableSocket, "check_session", locked_once)
    layer = get_channel_layer()
    assert layer is not None
    await layer.group_send(session.user_group(player.pk), {"type": "session.check"})
    assert await closed_with(comm) == 4401
    assert len(tries) == 2


def test_a_new_password_or_a_retired_secret_key_ends_a_session(
    player: User, settings: Any
) -> None:
    client = _login(player)
    key = session_key(client)
    assert all(session.session_holds(session_key=key, user_id=player.pk) for _ in range(5))
    # A new password is a new value: checked afresh, and refused.
    player.set_password("another password 123")
    User.objects.filter(pk=player.pk).update(password=player.password)
    assert session.session_holds(session_key=key, user_id=player.pk) is False
    # A session signed under a new key holds; once that key is gone again it
    # does not.
    old = settings.SECRET_KEY
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "k" * 60, [old]
    client = _login(player)
    fresh = session_key(client)
    assert session.session_holds(session_key=fresh, user_id=player.pk) is True
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = old, []
    assert session.session_holds(session_key=fresh, user_id=player.pk) is False


class Gate(ModelBackend):
    """A backend of the site's own whose answer can change with no change to
    the session row or the password."""

    open = True

    def get_user(self, user_id: int) -> Any:
        return super().get_user(user_id) if Gate.open else None


def test_the_user_read_with_the_session_is_checked_and_another_backend_is_asked_each_time(
    player: User, settings: Any
) -> None:
    key = session_key(_login(player))
    assert session.session_holds(session_key=key, user_id=player.pk) is True
    User.objects.filter(pk=player.pk).update(is_active=False)
    assert session.session_holds(session_key=key, user_id=player.pk) is False
    User.objects.filter(pk=player.pk).update(is_active=True)
    assert session.session_holds(session_key=key, user_id=player.pk) is True
    # Not another user's.
    assert session.session_holds(session_key=key, user_id=player.pk + 1) is False

    gate = f"{__name__}.Gate"
    settings.AUTHENTICATION_BACKENDS = [gate]
    client = Client()
    client.force_login(player, backend=gate)
    gated = session_key(client)
    assert session.session_holds(session_key=gated, user_id=player.pk) is True
    Gate.open = False
    try:
        assert session.session_holds(session_key=gated, user_id=player.pk) is False
    finally:
        Gate.open = True
    assert session.session_holds(session_key=gated, user_id=player.pk) is True
    # Django's backend is not among the site's any more: its sessions do not hold.
    assert session.session_holds(session_key=key, user_id=player.pk) is False
