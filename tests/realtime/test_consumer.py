"""The table socket through the real ASGI stack: auth, a whole solo deal, error
frames that change nothing, resume, and the no-leak rule on every frame."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games import services
from games.models import Deal
from games.realtime.messages import MESSAGES
from tests.sockets import assert_no_leak, db_snapshot, hidden_cards, join, open_seat
from tests.support import STRONG, WEAK, deck_with, house_front

pytestmark = pytest.mark.django_db(transaction=True)

Rig = Callable[..., None]


# --- connecting -------------------------------------------------------------------------


async def test_an_anonymous_socket_is_closed_with_4401(player: User) -> None:
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    comm = await open_seat(None, table.pk)
    await comm.connect()
    closing = await comm.receive_output(timeout=5)
    assert closing == {"type": "websocket.close", "code": 4401}


async def test_a_socket_without_a_seat_is_closed_with_4403(player: User, friend: User) -> None:
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    for table_id in (table.pk, table.pk + 1000):
        comm = await open_seat(friend, table_id)
        await comm.connect()
        closing = await comm.receive_output(timeout=5)
        assert closing == {"type": "websocket.close", "code": 4403}


async def test_a_foreign_origin_is_refused(player: User) -> None:
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    comm = await open_seat(player, table.pk, origin=b"http://evil.example")
    connected, _ = await comm.connect()
    assert not connected


# --- a whole solo deal --------------------------------------------------------------------


async def test_a_whole_solo_deal_over_the_socket(player: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK))
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    seat, hello = await join(player, table.pk)
    assert hello["type"] == "state"
    assert hello["deal"] is None
    assert hello["seats"]["you"]["stack"] == 1000
    assert hello["seats"]["other"]["name"] == "Dealer"

    staked = await seat.send({"type": "stake", "amount": 20, "id": "s1"})
    assert (staked["type"], staked["id"], staked["table"]["stake"]) == ("state", "s1", 20)

    dealt = await seat.send({"type": "deal", "id": 2})
    assert dealt["id"] == 2
    assert dealt["table"]["status"] == "playing"
    assert sorted(dealt["deal"]["you"]["cards"]) == sorted(STRONG.split())
    assert dealt["deal"]["other"] == {"locked": True}
    assert dealt["deal"]["revealed"] is False
    assert len(dealt["deal"]["commitment"]) == 64

    hidden = await database_sync_to_async(hidden_cards)(table.pk, 0)
    secret = (await database_sync_to_async(Deal.objects.get)(table=table)).secret
    assert_no_leak(seat.frames, hidden, secret)

    revealed = await seat.send({"type": "lock", "front": house_front(STRONG), "deal": 1})
    deal = revealed["deal"]
    assert deal["revealed"] is True
    assert sorted(deal["other"]["cards"]) == sorted(WEAK.split())
    assert len(deal["deck"]) == 53
    assert deal["secret"] == secret
    assert deal["results"]["you"]["result"] == "win"
    assert deal["results"]["other"]["result"] == "loss"
    assert deal["results"]["you"]["house_way"]["row"] == "three-pair"
    assert revealed["seats"]["you"] == {
        "seat": 0, "name": "ada", "dealer": False, "stack": 1020, "with_5": "1019.00"
    }
    assert revealed["seats"]["other"]["stack"] == 980
    assert revealed["table"]["status"] == "betting"
    assert revealed["table"]["last_stake"] == 20

    luck = await seat.send({"type": "luck", "deal": 1, "wins": 90, "pushes": 10, "losses": 20})
    assert luck["deal"]["results"]["you"]["luck"].startswith("Luck ")

    again = await seat.send({"type": "rebet", "amount": 20})
    assert again["deal"]["number"] == 2
    assert again["deal"]["stake"] == 20
    assert await seat.nothing_more()
    await seat.close()


async def test_a_foul_is_refused_until_locked_anyway(player: User, rig: Rig) -> None:
    rig(deck_with(WEAK, STRONG))
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    seat, _ = await join(player, table.pk)
    await seat.send({"type": "stake", "amount": 5})
    await seat.send({"type": "deal"})
    before = await database_sync_to_async(db_snapshot)(table.pk)
    refused = await seat.send({"type": "lock", "front": ["Js", "9h"], "id": "L"})
    assert refused["type"] == "error"
    assert refused["error"] == "foul_unconfirmed"
    assert refused["id"] == "L"
    assert "Your front" in refused["detail"]
    assert await database_sync_to_async(db_snapshot)(table.pk) == before
    hidden = await database_sync_to_async(hidden_cards)(table.pk, 0)
    secret = (await database_sync_to_async(Deal.objects.get)(table=table)).secret
    assert_no_leak(seat.frames, hidden, secret)
    locked = await seat.send({"type": "lock", "front": ["Js", "9h"], "confirm_foul": True})
    assert locked["deal"]["results"]["you"]["foul"] is True
    assert locked["deal"]["results"]["you"]["result"] == "loss"
    await seat.close()


# --- error frames ------------------------------------------------------------------------------


BAD_FRAMES: list[tuple[str, str]] = [
    ("{not json", "bad_message"),
    ("[1, 2]", "bad_message"),
    ('"deal"', "bad_message"),
    ("{}", "bad_message"),
    ('{"type": 7}', "bad_message"),
    ('{"type": "teleport"}', "unknown_type"),
    ('{"type": "stake"}', "bad_message"),
    ('{"type": "stake", "amount": "20"}', "bad_message"),
    ('{"type": "stake", "amount": 20.5}', "bad_message"),
    ('{"type": "stake", "amount": true}', "bad_message"),
    ('{"type": "stake", "amount": 20, "dealer": "me"}', "bad_message"),
    ('{"type": "lock", "front": "As Ah"}', "bad_message"),
    ('{"type": "lock", "front": ["As"]}', "bad_message"),
    ('{"type": "lock", "front": ["As", "Ah"], "confirm_foul": "yes"}', "bad_message"),
    ('{"type": "deal", "id": {"x": 1}}', "bad_message"),
    ('{"type": "luck", "deal": 1, "wins": 120, "pushes": 0}', "bad_message"),
    ('{"type": "deal", "pad": "' + "x" * 3000 + '"}', "bad_message"),
]


async def test_malformed_and_unknown_messages_get_an_error_frame_and_change_nothing(
    player: User,
) -> None:
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    await database_sync_to_async(services.stake_propose)(user=player, table_id=table.pk, amount=9)
    seat, _ = await join(player, table.pk)
    before = await database_sync_to_async(db_snapshot)(table.pk)
    for text, code in BAD_FRAMES:
        frame = await seat.send_raw(text)
        assert frame["type"] == "error", text
        assert frame["error"] == code, text
        assert frame["detail"].endswith("."), text
    frame = await seat.send_raw(data=b"\x00\x01")
    assert frame["error"] == "bad_message"
    assert await database_sync_to_async(db_snapshot)(table.pk) == before
    # The socket is still open and answers.
    assert (await seat.send({"type": "ping", "id": 9})) == {"type": "pong", "id": 9}
    await seat.close()


async def test_a_refused_action_gets_the_services_sentence(player: User) -> None:
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    seat, _ = await join(player, table.pk)
    frame = await seat.send({"type": "deal", "id": "d"})
    assert frame == {
        "type": "error", "error": "stake_not_agreed", "detail": "Agree a stake before dealing.",
        "id": "d",
    }
    frame = await seat.send({"type": "stake", "amount": 5000})
    assert frame["error"] == "stake_too_high"
    assert "1000" in frame["detail"]
    await seat.close()


# --- resume -------------------------------------------------------------------------------------


async def test_a_player_who_comes_back_finds_the_same_deal(player: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK))
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    seat, _ = await join(player, table.pk)
    await seat.send({"type": "stake", "amount": 10})
    dealt = await seat.send({"type": "deal"})
    await seat.close()
    again, resumed = await join(player, table.pk)
    assert resumed["deal"] == dealt["deal"]
    assert resumed["table"] == dealt["table"]
    asked = await again.send({"type": "state", "id": "r"})
    assert asked["deal"] == dealt["deal"]
    assert asked["id"] == "r"
    await again.close()


# --- two seats ------------------------------------------------------------------------------------


async def test_friends_each_get_their_own_view_and_nothing_hidden_crosses(
    player: User, friend: User, rig: Rig
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = await database_sync_to_async(services.table_start)(user=player, mode="friend")
    await database_sync_to_async(services.table_join)(user=friend, table_id=table.pk)
    ada, hello = await join(player, table.pk)
    assert hello["seats"]["other"]["connected"] is False
    grace, hello = await join(friend, table.pk)
    assert hello["seats"]["other"]["connected"] is True
    # Grace's arrival reaches Ada as a fresh state (presence).
    assert (await ada.receive())["seats"]["other"]["connected"] is True

    await ada.send({"type": "stake", "amount": 25})
    pushed = await grace.receive()
    proposal = pushed["table"]["proposal"]
    assert proposal == {"amount": 25, "by": "other", "id": pushed["table"]["version"]}
    accepted = await grace.send({"type": "accept_stake", "amount": 25, "proposal": proposal["id"]})
    assert accepted["table"]["stake"] == 25
    assert (await ada.receive())["table"]["stake"] == 25

    dealt = await ada.send({"type": "deal"})
    seen_by_grace = await grace.receive()
    assert sorted(dealt["deal"]["you"]["cards"]) == sorted(STRONG.split())
    assert sorted(seen_by_grace["deal"]["you"]["cards"]) == sorted(WEAK.split())

    await ada.send({"type": "lock", "front": ["As", "Ah"]})
    told = await grace.receive()
    assert told["deal"]["other"] == {"locked": True}

    deal = await database_sync_to_async(Deal.objects.get)(table=table)
    hidden_0 = await database_sync_to_async(hidden_cards)(table.pk, 0)
    hidden_1 = await database_sync_to_async(hidden_cards)(table.pk, 1)
    assert_no_leak(ada.frames, hidden_0, deal.secret)
    assert_no_leak(grace.frames, hidden_1, deal.secret)

    final = await grace.send({"type": "lock", "front": house_front(WEAK)})
    assert final["deal"]["results"]["you"]["result"] == "loss"
    ada_final = await ada.receive()
    assert ada_final["deal"]["results"]["you"]["result"] == "win"
    assert sorted(ada_final["deal"]["other"]["cards"]) == sorted(WEAK.split())
    assert ada_final["seats"]["you"]["stack"] == 1025
    assert await ada.nothing_more()
    assert await grace.nothing_more()
    await ada.close()
    await grace.close()


async def test_no_message_type_shows_the_dealers_cards_or_the_deck_before_the_reveal(
    player: User, rig: Rig
) -> None:
    rig(deck_with(WEAK, STRONG))
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    seat, _ = await join(player, table.pk)
    await seat.send({"type": "stake", "amount": 5})
    await seat.send({"type": "deal"})
    every_type = [
        {"type": "state"},
        {"type": "ping"},
        {"type": "stake", "amount": 5},
        {"type": "accept_stake", "amount": 5, "proposal": 1},
        {"type": "deal"},
        {"type": "rebet", "amount": 5},
        {"type": "lock", "front": ["Js", "9h"]},
        {"type": "lock", "front": ["As", "Ah"]},
        {"type": "lock", "front": ["Js", "9h"], "back": ["As", "Ah", "Kd", "Kc", "Qs"]},
        {"type": "luck", "deal": 1, "wins": 60, "pushes": 0, "losses": 60},
        {"type": "invite_new"},
        {"type": "invite_revoke"},
        {"type": "teleport"},
    ]
    assert {m["type"] for m in every_type} >= set(MESSAGES)
    for message in every_type:
        await seat.send(message)
    hidden = await database_sync_to_async(hidden_cards)(table.pk, 0)
    secret = (await database_sync_to_async(Deal.objects.get)(table=table)).secret
    assert len(seat.frames) == len(every_type) + 3
    assert_no_leak(seat.frames, hidden, secret)
    await seat.close()
