"""A table socket told that its process's channel layer subscribed again
after losing Redis (``table.resync``, paigow_site.pubsub) reads and sends
its view afresh, so a change whose push was lost meanwhile still reaches it;
and a session that ended meanwhile closes it."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db.models import F

from accounts.models import User
from games.models import Table
from tests.realtime.test_session import (
    _end_silently,
    closed_with,
    open_socket,
    session_key,
    signed_in,
    solo_table,
)

pytestmark = pytest.mark.django_db(transaction=True)


def change_without_a_push(table_id: int) -> int:
    """A committed change nobody was told of (its push lost with Redis)."""
    Table.objects.filter(pk=table_id).update(stake=7, version=F("version") + 1)
    return int(Table.objects.get(pk=table_id).version)


async def test_a_resync_sends_the_view_a_lost_push_would_have(player: User) -> None:
    browser = await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(browser, table.pk)
    version = await database_sync_to_async(change_without_a_push)(table.pk)
    assert await comm.receive_nothing(timeout=0.3)
    await get_channel_layer().group_send(f"{table.group_name}.0", {"type": "table.resync"})
    frame = json.loads(await comm.receive_from(timeout=5))
    assert frame["type"] == "state"
    assert frame["table"]["version"] == version
    assert frame["table"]["stake"] == 7
    await comm.disconnect()


async def test_a_resync_after_the_session_ended_closes_the_socket(player: User) -> None:
    browser = await signed_in(player)
    table = await solo_table(player)
    comm = await open_socket(browser, table.pk)
    await database_sync_to_async(_end_silently)(session_key(browser))
    await get_channel_layer().group_send(f"{table.group_name}.0", {"type": "table.resync"})
    assert await closed_with(comm) == 4401
    await comm.disconnect()
