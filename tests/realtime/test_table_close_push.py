"""A table closed from its page (``views.table_close``): the other seat's open
socket is told at once, and its view says the table is finished."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from accounts.models import User
from tests.sockets import join
from tests.support import friend_table

pytestmark = pytest.mark.django_db(transaction=True)


async def test_the_friends_socket_learns_the_table_was_closed(
    player: User, friend: User
) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    grace, hello = await join(friend, table.pk)
    assert hello["table"]["status"] == "betting"

    def leave() -> int:
        client = Client()
        client.force_login(player)
        return client.post(f"/tables/{table.pk}/close/").status_code

    assert await database_sync_to_async(leave)() == 302
    frame = await grace.receive()
    while frame["table"]["status"] != "finished":  # a presence view may come first
        frame = await grace.receive()
    assert frame["table"]["version"] > hello["table"]["version"]
    await grace.close()
