"""Text the database and the replies cannot encode is refused up front: a
lone surrogate (JSON's "\\ud800" escape, which json.loads accepts) in any
string of a frame is a bad_message, not a server error, and changes nothing."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games import services
from games.models import ClientMessage
from tests.sockets import join

pytestmark = pytest.mark.django_db(transaction=True)

BROKEN = [
    '{"type":"ping","id":"\\ud800"}',
    '{"type":"stake","amount":5,"id":"\\udfff"}',
    '{"type":"stake","amount":5,"id":"ok-\\ud83d"}',  # half of a pair
    '{"type":"lock","front":["\\ud800","As"],"id":"l"}',
    '{"type":"ping","\\ud800":1}',
    '{"type":"\\ud800"}',
]


@pytest.mark.parametrize("text", BROKEN)
async def test_a_lone_surrogate_anywhere_is_a_bad_message(player: User, text: str) -> None:
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    seat, _ = await join(player, table.pk)
    reply = await seat.send_raw(text)
    assert reply["type"] == "error", reply
    assert reply["error"] == "bad_message", reply
    assert "valid Unicode" in reply["detail"]
    assert reply.get("id") in (None, "l")  # a broken id is never echoed
    assert await seat.nothing_more()
    assert not await database_sync_to_async(ClientMessage.objects.exists)()
    # A whole pair is text: a stored id, echoed as it came.
    reply = await seat.send_raw('{"type":"stake","amount":5,"id":"\\ud83c\\udca1"}')
    assert reply["type"] == "state"
    assert reply["id"] == "\U0001f0a1"
    stored = await database_sync_to_async(lambda: ClientMessage.objects.get().client_id)()
    assert stored == json.dumps("\U0001f0a1", ensure_ascii=False)
    await seat.close()
