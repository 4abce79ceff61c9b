"""A friend table over two sockets: a whole deal from the first proposal to
the next deal, what each side may see before and after the reveal, presence,
invites over the socket, resuming after a restart, and who may connect."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import engine, services
from games.models import Deal, Presence, Seat, Table
from tests.sockets import Seat_, assert_no_leak, hidden_cards, join, open_seat
from tests.support import SPLIT_A, SPLIT_B, STRONG, WEAK, deck_with, friend_table, house_front

pytestmark = pytest.mark.django_db(transaction=True)

Rig = Callable[..., None]


async def pair(player: User, friend: User) -> tuple[Table, Seat_, Seat_]:
    table = await database_sync_to_async(friend_table)(player, friend)
    ada, hello = await join(player, table.pk)
    assert hello["seats"]["other"]["connected"] is False
    grace, hello = await join(friend, table.pk)
    assert hello["seats"]["other"]["connected"] is True
    assert (await ada.receive())["seats"]["other"]["connected"] is True
    return table, ada, grace


def secret_of(table_id: int, number: int = 1) -> str:
    return Deal.objects.get(table_id=table_id, number=number).secret


# --- a whole deal -------------------------------------------------------------------------


async def test_a_whole_friend_deal_over_two_sockets(player: User, friend: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK), deck_with(SPLIT_A, SPLIT_B))
    table, ada, grace = await pair(player, friend)

    # Propose, counter, accept: each proposal reaches the other side live.
    mine = await ada.send({"type": "stake", "amount": 30, "id": "p"})
    first = mine["table"]["proposal"]["id"]
    assert mine["id"] == "p"
    assert mine["table"]["proposal"] == {"amount": 30, "by": "you", "id": first}
    seen = await grace.receive()
    assert seen["table"]["proposal"] == {"amount": 30, "by": "other", "id": first}
    assert "id" not in seen
    countered = await grace.send({"type": "stake", "amount": 50})
    counter = countered["table"]["proposal"]["id"]
    assert countered["table"]["proposal"] == {"amount": 50, "by": "you", "id": counter}
    assert counter != first
    shown = (await ada.receive())["table"]["proposal"]
    assert shown == {"amount": 50, "by": "other", "id": counter}
    refused = await grace.send({"type": "accept_stake", "amount": 50, "proposal": counter})
    assert refused["error"] == "stake_no_proposal"  # not one's own proposal
    agreed = await ada.send({"type": "accept_stake", "amount": 50, "proposal": counter})
    assert agreed["table"]["stake"] == 50
    assert agreed["table"]["proposal"] is None
    assert (await grace.receive())["table"]["stake"] == 50

    # Deal: each side gets its own seven cards and the same commitment.
    dealt_g = await grace.send({"type": "deal"})
    dealt_a = await ada.receive()
    assert sorted(dealt_a["deal"]["you"]["cards"]) == sorted(STRONG.split())
    assert sorted(dealt_g["deal"]["you"]["cards"]) == sorted(WEAK.split())
    commitment = dealt_a["deal"]["commitment"]
    assert dealt_g["deal"]["commitment"] == commitment
    assert len(commitment) == 64
    assert dealt_a["deal"]["other"] == {"locked": False}

    # Lock one: the other sees that it locked, nothing more; a lock can't change.
    locked = await ada.send({"type": "lock", "front": ["As", "Ah"], "deal": 1})
    assert locked["deal"]["you"]["locked"] is True
    assert (await grace.receive())["deal"]["other"] == {"locked": True}
    again = await ada.send({"type": "lock", "front": ["Kd", "Kc"]})
    assert again["error"] == "already_locked"
    assert await grace.nothing_more()

    secret = await database_sync_to_async(secret_of)(table.pk)
    assert_no_leak(ada.frames, await database_sync_to_async(hidden_cards)(table.pk, 0), secret)
    assert_no_leak(grace.frames, await database_sync_to_async(hidden_cards)(table.pk, 1), secret)

    # Lock two: one settlement, and both see everything.
    final_g = await grace.send({"type": "lock", "front": house_front(WEAK), "deal": 1})
    final_a = await ada.receive()
    for frame, me, them in ((final_a, STRONG, WEAK), (final_g, WEAK, STRONG)):
        deal = frame["deal"]
        assert deal["revealed"] is True
        assert sorted(deal["other"]["cards"]) == sorted(them.split())
        assert len(deal["other"]["front"]) == 2
        assert len(deal["other"]["back"]) == 5
        assert sorted(deal["you"]["front"] + deal["you"]["back"]) == sorted(me.split())
        assert set(deal["results"]) == {"you", "other"}
        for side in ("you", "other"):
            assert {"front_result", "back_result", "result"} <= set(deal["results"][side])
        assert engine.verify_shuffle(deal["deck"], deal["secret"], commitment)
        assert frame["table"]["status"] == "betting"
    assert final_a["deal"]["results"]["you"]["result"] == "win"
    assert final_g["deal"]["results"]["you"]["result"] == "loss"
    assert final_a["seats"]["you"]["stack"] == 1050
    assert final_a["seats"]["other"]["stack"] == 950
    assert final_a["seats"]["you"]["with_5"] == "1047.50"
    assert final_g["seats"]["you"] == {
        "seat": 1, "name": "grace", "dealer": False, "stack": 950, "with_5": "950.00"
    }
    assert final_g["seats"]["other"]["with_5"] == "1047.50"

    # The next deal: rebet proposes the last stake, the other's rebet accepts it.
    proposed = await grace.send({"type": "rebet", "amount": 50})
    again = proposed["table"]["proposal"]["id"]
    assert proposed["table"]["proposal"] == {"amount": 50, "by": "you", "id": again}
    assert (await ada.receive())["table"]["proposal"] == {"amount": 50, "by": "other", "id": again}
    accepted = await ada.send({"type": "rebet", "amount": 50, "proposal": again})
    assert accepted["table"]["stake"] == 50
    await grace.receive()
    second = await ada.send({"type": "deal"})
    assert second["deal"]["number"] == 2
    assert second["deal"]["revealed"] is False
    assert sorted(second["deal"]["you"]["cards"]) == sorted(SPLIT_A.split())
    assert sorted((await grace.receive())["deal"]["you"]["cards"]) == sorted(SPLIT_B.split())
    secret = await database_sync_to_async(secret_of)(table.pk, 2)
    assert secret not in "".join(ada.frames + grace.frames)
    assert await ada.nothing_more()
    assert await grace.nothing_more()
    await ada.close()
    await grace.close()


async def test_no_message_of_either_side_leaks_before_the_reveal(
    player: User, friend: User, rig: Rig
) -> None:
    rig(deck_with(STRONG, WEAK))
    table, ada, grace = await pair(player, friend)
    await ada.send({"type": "stake", "amount": 5})
    shown = (await grace.receive())["table"]["proposal"]
    await grace.send({"type": "accept_stake", "amount": 5, "proposal": shown["id"]})
    await ada.receive()
    await ada.send({"type": "deal"})
    await grace.receive()
    every_type: list[dict[str, Any]] = [
        {"type": "state"}, {"type": "ping"}, {"type": "stake", "amount": 5},
        {"type": "accept_stake", "amount": 5, "proposal": shown["id"]}, {"type": "deal"},
        {"type": "rebet", "amount": 5},
        {"type": "luck", "deal": 1, "wins": 60, "pushes": 0, "losses": 60},
        {"type": "invite_new"}, {"type": "invite_revoke"}, {"type": "teleport"},
    ]
    for message in every_type:
        await grace.send(message)
        await ada.send(message)
    # Locks with the other side's cards are refused without naming them further.
    assert (await grace.send({"type": "lock", "front": ["As", "Ah"]}))["error"] == (
        "setting_invalid"
    )
    assert (await ada.send({"type": "lock", "front": ["Js", "9h"]}))["error"] == (
        "setting_invalid"
    )
    await grace.send({"type": "lock", "front": ["Js", "9h"], "confirm_foul": False})
    await grace.send({"type": "lock", "front": house_front(WEAK)})  # grace locks
    told = await ada.receive()
    assert told["deal"]["other"] == {"locked": True}
    secret = await database_sync_to_async(secret_of)(table.pk)
    assert_no_leak(ada.frames, await database_sync_to_async(hidden_cards)(table.pk, 0), secret)
    assert_no_leak(grace.frames, await database_sync_to_async(hidden_cards)(table.pk, 1), secret)
    await ada.close()
    await grace.close()


def _guide_codes(frame: dict[str, Any]) -> set[str]:
    guide = frame["deal"]["you"]["guide"]
    seen = set(guide["house_way"]["front"] + guide["house_way"]["back"])
    for setting in guide["settings"]:
        seen.update(setting["front"])
    return seen


async def test_each_seat_gets_the_guide_of_its_own_seven_only(
    player: User, friend: User, rig: Rig
) -> None:
    rig(deck_with(STRONG, WEAK))
    _, ada, grace = await pair(player, friend)
    await ada.send({"type": "stake", "amount": 5})
    shown = (await grace.receive())["table"]["proposal"]
    await grace.send({"type": "accept_stake", "amount": 5, "proposal": shown["id"]})
    await ada.receive()
    dealt_a = await ada.send({"type": "deal"})
    dealt_g = await grace.receive()
    assert len(dealt_a["deal"]["you"]["guide"]["settings"]) == 21
    assert _guide_codes(dealt_a) <= set(STRONG.split())
    assert _guide_codes(dealt_g) <= set(WEAK.split())
    assert dealt_a["deal"]["you"]["guide"]["house_way"]["front"] == list(
        engine.house_way(STRONG).setting.front)

    locked_g = await grace.send({"type": "lock", "front": house_front(WEAK)})
    told_a = await ada.receive()
    assert [s.get("house_way") for s in locked_g["deal"]["you"]["guide"]["settings"]] == [True]
    assert told_a["deal"]["other"] == {"locked": True}
    assert len(told_a["deal"]["you"]["guide"]["settings"]) == 21

    final_a = await ada.send({"type": "lock", "front": house_front(STRONG)})
    final_g = await grace.receive()
    for frame, mine in ((final_a, STRONG), (final_g, WEAK)):
        assert "guide" not in frame["deal"]["other"]
        assert len(frame["deal"]["you"]["guide"]["settings"]) == 1
        assert _guide_codes(frame) <= set(mine.split())
    await ada.close()
    await grace.close()


# --- presence ----------------------------------------------------------------------------


async def test_each_side_sees_whether_the_other_is_connected(
    player: User, friend: User
) -> None:
    table, ada, grace = await pair(player, friend)
    await grace.close()
    left = await ada.receive()
    assert left["seats"]["other"]["connected"] is False
    grace, hello = await join(friend, table.pk)
    assert hello["seats"]["other"]["connected"] is True
    assert (await ada.receive())["seats"]["other"]["connected"] is True
    # A second tab keeps grace connected when the first one closes.
    tab, _ = await join(friend, table.pk)
    assert (await ada.receive())["seats"]["other"]["connected"] is True
    await grace.close()
    assert (await ada.receive())["seats"]["other"]["connected"] is True
    await tab.close()
    assert (await ada.receive())["seats"]["other"]["connected"] is False
    await ada.close()
    assert not await database_sync_to_async(Presence.objects.exists)()


def _ghost(table: Table, seat_number: int, seen: Any) -> Presence:
    """A presence row a process left behind when it died."""
    seat = Seat.objects.get(table=table, number=seat_number)
    return Presence.objects.create(seat=seat, channel_name="dead.process!x", last_seen=seen)


async def test_a_dead_processs_presence_ages_out_and_the_other_side_is_told(
    player: User, friend: User, settings: Any
) -> None:
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.05
    settings.PRESENCE_TTL_SECONDS = 60
    table = await database_sync_to_async(friend_table)(player, friend)
    ghost = await database_sync_to_async(_ghost)(table, 1, timezone.now())
    ada, hello = await join(player, table.pk)
    assert hello["seats"]["other"]["connected"] is True
    # Its heartbeat stopped long ago: it no longer counts, and ada hears so.
    old = timezone.now() - timedelta(seconds=61)
    await database_sync_to_async(Presence.objects.filter(pk=ghost.pk).update)(last_seen=old)
    aged = await ada.receive()
    assert aged["seats"]["other"]["connected"] is False
    # Ada's own heartbeat keeps her row fresh.
    mine = await database_sync_to_async(
        lambda: Presence.objects.get(seat__number=0, seat__table=table).last_seen
    )()
    assert timezone.now() - mine < timedelta(seconds=5)
    await ada.close()


async def test_a_restart_mid_deal_loses_nothing(player: User, friend: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK))
    table, ada, grace = await pair(player, friend)
    await ada.send({"type": "stake", "amount": 40})
    shown = (await grace.receive())["table"]["proposal"]
    await grace.send({"type": "accept_stake", "amount": 40, "proposal": shown["id"]})
    await ada.receive()
    dealt = await ada.send({"type": "deal"})
    await grace.receive()
    await ada.send({"type": "lock", "front": ["As", "Ah"]})
    before_g = await grace.receive()
    # Both processes die: their presence rows are left behind, then age out.
    await ada.close()
    await grace.close()
    await database_sync_to_async(_ghost)(table, 1, timezone.now() - timedelta(minutes=5))
    ada, resumed = await join(player, table.pk)
    assert resumed["deal"] == {**dealt["deal"], "you": resumed["deal"]["you"]}
    assert resumed["deal"]["you"]["locked"] is True
    assert resumed["seats"]["other"]["connected"] is False
    grace, resumed_g = await join(friend, table.pk)
    assert resumed_g["deal"] == before_g["deal"]
    await ada.receive()
    final = await grace.send({"type": "lock", "front": house_front(WEAK)})
    assert final["deal"]["revealed"] is True
    assert (await ada.receive())["seats"]["you"]["stack"] == 1040
    await ada.close()
    await grace.close()


# --- invites over the socket and the page -------------------------------------------------


async def test_the_host_makes_and_withdraws_links_over_the_socket(
    player: User, friend: User
) -> None:
    table = await database_sync_to_async(services.table_start)(user=player, mode="friend")
    ada, hello = await join(player, table.pk)
    assert hello["table"]["status"] == "waiting"
    first = hello["table"]["invite"]
    assert first["url"].startswith("http://testserver/invite/")
    made = await ada.send({"type": "invite_new", "id": 1})
    second = made["table"]["invite"]
    assert made["id"] == 1
    assert second["url"] != first["url"]
    withdrawn = await ada.send({"type": "invite_revoke"})
    assert withdrawn["table"]["invite"] is None
    refused = await ada.send({"type": "invite_revoke"})
    assert refused["error"] == "no_open_invite"
    made = await ada.send({"type": "invite_new"})
    url = made["table"]["invite"]["url"]

    def open_link(client: Client, link: str) -> int:
        # As the invite page's script does: the token after "#" is posted to the page.
        page, _, token = link.removeprefix("http://testserver").partition("#")
        return client.post(page, {"token": token}).status_code

    def use_link() -> int:
        client = Client()
        client.force_login(friend)
        for dead in (first["url"], second["url"]):
            assert open_link(client, dead) == 410
        return open_link(client, url)

    assert await database_sync_to_async(use_link)() == 302
    # The host's socket hears that the friend sat down (after the commit).
    joined = await ada.receive()
    assert joined["table"]["status"] == "betting"
    assert joined["table"]["invite"] is None
    assert joined["seats"]["other"]["name"] == "grace"
    assert joined["seats"]["other"]["connected"] is False
    grace, hello = await join(friend, table.pk)
    assert hello["table"]["invite"] is None
    assert (await ada.receive())["seats"]["other"]["connected"] is True
    # With ids: a view pushed in between (a heartbeat that saw the other seat
    # connect, next to the refresh that said so) is not the answer.
    refused = await grace.answer({"type": "invite_new", "id": "g1"})
    assert refused["error"] == "not_host"
    assert url.partition("#")[2] not in "".join(grace.frames)  # the token
    full = await ada.answer({"type": "invite_new", "id": "a1"})
    assert full["error"] == "table_full"
    await ada.close()
    await grace.close()


# --- who may connect ----------------------------------------------------------------------


async def test_a_stranger_or_a_signed_out_visitor_cannot_connect(
    player: User, friend: User, make_user: Callable[[str], User]
) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    stranger = await database_sync_to_async(make_user)("eve")
    for user, code in ((stranger, 4403), (None, 4401)):
        comm = await open_seat(user, table.pk)
        await comm.connect()
        assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": code}
    assert not await database_sync_to_async(
        Presence.objects.filter(seat__table=table).exists
    )()


# --- two processes ------------------------------------------------------------------------


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (channels-redis)")
async def test_a_refresh_from_another_process_reaches_the_table_over_redis(
    player: User, friend: User
) -> None:
    from django.utils.module_loading import import_string

    config = django_settings.CHANNEL_LAYERS["default"]
    assert config["BACKEND"] in (
        "paigow_site.pubsub.ConfirmedPubSubChannelLayer",
        "channels_redis.core.RedisChannelLayer",
    )
    table, ada, grace = await pair(player, friend)
    # A second process: its own connection to Redis, the same prefix.
    other = import_string(config["BACKEND"])(**config["CONFIG"])
    await database_sync_to_async(services.stake_propose)(user=player, table_id=table.pk, amount=7)
    await other.group_send(table.group_name, {"type": "table.refresh", "origin": None})
    for seat, by in ((ada, "you"), (grace, "other")):
        proposal = (await seat.receive())["table"]["proposal"]
        assert proposal == {"amount": 7, "by": by, "id": proposal["id"]}
    await other.flush()
    await ada.close()
    await grace.close()
