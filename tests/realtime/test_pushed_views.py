"""After a socket's change, every seat's view is read once and pushed to that
seat's own channel-layer group: only that seat's view travels there, in
table-version order, to every tab of the seat."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from accounts.models import User
from games import services
from games.models import Deal, Hand, Table
from tests.sockets import Seat_, assert_no_leak, hidden_cards, join
from tests.support import STRONG, WEAK, deck_with, house_front

pytestmark = pytest.mark.django_db(transaction=True)

Rig = Callable[..., None]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Every group message this test's channel layer carries, as (group, message)."""
    layer = get_channel_layer()
    assert layer is not None
    record: list[tuple[str, dict[str, Any]]] = []
    group_send = layer.group_send

    async def recording(group: str, message: dict[str, Any]) -> None:
        record.append((group, json.loads(json.dumps(message))))
        await group_send(group, message)

    monkeypatch.setattr(layer, "group_send", recording)
    return record


async def friends_at_a_table(player: User, friend: User) -> Table:
    table = await database_sync_to_async(services.table_start)(user=player, mode="friend")
    await database_sync_to_async(services.table_join)(user=friend, table_id=table.pk)
    return table


async def both_seated(player: User, friend: User) -> tuple[Table, Seat_, Seat_, dict[str, Any]]:
    """A friend table with both players' sockets open and Grace's arrival
    read by Ada; and Ada's first frame."""
    table = await friends_at_a_table(player, friend)
    ada, first = await join(player, table.pk)
    grace, _ = await join(friend, table.pk)
    await ada.receive()
    return table, ada, grace, first


@pytest.mark.parametrize("with_ids", [True, False], ids=["with ids", "without ids"])
async def test_each_seat_group_carries_only_that_seats_view(
    player: User, friend: User, rig: Rig, sent: list[tuple[str, dict[str, Any]]], with_ids: bool
) -> None:
    """With an id the views are read in the action's transaction; without,
    after it: the same pushes either way."""
    rig(deck_with(STRONG, WEAK))
    table, ada, grace, _ = await both_seated(player, friend)
    steps = [
        (ada, grace, {"type": "stake", "amount": 5}),
        (grace, ada, {"type": "accept_stake", "amount": 5}),
        (ada, grace, {"type": "deal"}),
        (ada, grace, {"type": "lock", "front": ["As", "Ah"]}),
    ]
    pushed: dict[str, Any] = {}
    for number, (socket, other, message) in enumerate(steps):
        if message["type"] == "accept_stake":  # the proposal the accepting seat was pushed
            message = {**message, "proposal": pushed["table"]["proposal"]["id"]}
        answer = await socket.send({**message, "id": number} if with_ids else message)
        assert answer.get("id") == (number if with_ids else None)
        pushed = await other.receive()
        assert pushed["table"]["version"] == answer["table"]["version"]

    deal = await database_sync_to_async(Deal.objects.get)(table=table)
    hidden = {
        n: await database_sync_to_async(hidden_cards)(table.pk, n) for n in (0, 1)
    }
    pushed = {0: [], 1: []}  # type: dict[int, list[str]]
    for group, message in sent:
        if message["type"] == "table.refresh":  # the table's group: no game data
            assert group == table.group_name
            assert set(message) == {"type", "origin"}
            continue
        assert message["type"] == "table.state"
        number = int(group.removeprefix(f"{table.group_name}."))
        # The frame's text, written once by the acting socket, with the
        # version and presence the receiving socket keeps beside it.
        state = json.loads(message["text"])
        assert state.pop("type") == "state"
        assert (message["version"], message["connected"]) == (
            state["table"]["version"], state["seats"]["other"]["connected"]
        )
        assert state["seats"]["you"]["seat"] == number
        pushed[number].append(message["text"])
    # Each change goes to the other seat only: neither has a second tab.
    assert len(pushed[0]) == 1  # Grace's accept
    assert len(pushed[1]) == 3  # Ada's stake, deal and lock
    for number in (0, 1):
        assert_no_leak(pushed[number], hidden[number], deal.secret)

    await grace.send({"type": "lock", "front": house_front(WEAK)})
    revealed = await ada.receive()
    assert revealed["deal"]["results"]["you"]["result"] == "win"
    await ada.close()
    await grace.close()


def pushed_view(state: dict[str, Any], shape: str) -> dict[str, Any]:
    """A seat group's message carrying ``state``: as this release writes it
    (the frame's text), or as the release before did (the view itself), which
    a process still running it sends during a rolling deploy."""
    if shape == "state":
        return {"type": "table.state", "state": state, "origin": None}
    return {
        "type": "table.state", "text": json.dumps({"type": "state", **state}),
        "version": state["table"]["version"],
        "connected": state["seats"]["other"]["connected"], "origin": None,
    }


@pytest.mark.parametrize("shape", ["text", "state"])
async def test_a_view_older_than_the_last_one_sent_is_dropped(
    player: User, friend: User, shape: str
) -> None:
    table, ada, grace, _ = await both_seated(player, friend)
    await ada.send({"type": "stake", "amount": 5})
    newer = await grace.receive()
    version = newer["table"]["version"]
    older = {**newer, "table": {**newer["table"], "version": version - 1, "stake": 99}}
    older.pop("type")
    newer.pop("type")
    layer = get_channel_layer()
    for state in (older, newer):  # arriving late, then again
        await layer.group_send(f"{table.group_name}.1", pushed_view(state, shape))
    assert await grace.nothing_more()
    newest = {**older, "table": {**newer["table"], "version": version + 1}}
    await layer.group_send(f"{table.group_name}.1", pushed_view(newest, shape))
    assert (await grace.receive())["table"]["version"] == version + 1
    await ada.close()
    await grace.close()


async def test_a_change_reaches_the_other_tab_of_the_same_seat(
    player: User, friend: User
) -> None:
    table = await friends_at_a_table(player, friend)
    phone, _ = await join(player, table.pk)
    laptop, _ = await join(player, table.pk)
    grace, _ = await join(friend, table.pk)
    for socket in (phone, laptop):  # the arrivals after each
        while not await socket.nothing_more():
            await socket.receive()
    answer = await phone.send({"type": "stake", "amount": 7})
    proposal = answer["table"]["proposal"]
    assert proposal == {"amount": 7, "by": "you", "id": answer["table"]["version"]}
    mirrored = await laptop.receive()
    assert mirrored["table"] == answer["table"]
    assert "id" not in mirrored
    assert (await grace.receive())["table"]["proposal"] == {**proposal, "by": "other"}
    assert await phone.nothing_more()
    for socket in (phone, laptop, grace):
        await socket.close()


async def test_every_change_a_seat_sees_moves_the_version_on(
    player: User, friend: User
) -> None:
    table, ada, grace, first = await both_seated(player, friend)
    versions = [first["table"]["version"]]
    pushed: dict[str, Any] = {}
    for socket, other, message in (
        (ada, grace, {"type": "stake", "amount": 5}),
        (grace, ada, {"type": "accept_stake", "amount": 5}),
        (ada, grace, {"type": "deal"}),
    ):
        if message["type"] == "accept_stake":  # the proposal the accepting seat was pushed
            message = {**message, "proposal": pushed["table"]["proposal"]["id"]}
        answer = await socket.send(message)
        pushed = await other.receive()
        assert pushed["table"]["version"] == answer["table"]["version"]
        versions.append(answer["table"]["version"])
    hand = await database_sync_to_async(Hand.objects.get)(deal__table=table, seat_number=0)
    answer = await ada.send({"type": "lock", "front": house_front(hand.cards)})
    versions.append(answer["table"]["version"])
    assert (await grace.receive())["deal"]["other"] == {"locked": True}
    assert versions == sorted(set(versions)), versions
    await ada.close()
    await grace.close()
