"""A luck check's refresh (``broadcast.luck_checked``) carries the table's
version under the check's lock: a socket reads its view (built by its one
author, ``engine.seat_view`` through the selectors) and sends it, unless it
has already sent a view of a newer version, which shows the check. The seat
ends up with the view a fresh read gives."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from accounts.models import User
from games import enqueue, selectors, services, tasks
from games.models import Hand, Table
from games.realtime import broadcast
from games.realtime.table_socket import TableSocket
from tests.background.test_luck_verify import FORGED, honest, sockets

Rig = Callable[..., None]


@pytest.fixture
def reads() -> Iterator[mock.MagicMock]:
    """Counts the views the sockets read from the database."""
    with mock.patch.object(
        TableSocket, "read_state", autospec=True, side_effect=TableSocket.read_state
    ) as read:
        yield read


def fresh(table: Table, seat: int) -> dict[str, Any]:
    return {"type": "state", **selectors.table_state(table_id=table.pk, seat_number=seat)}


def other_luck_check(frame: dict[str, Any]) -> object:
    return ((frame.get("deal") or {}).get("results") or {}).get("other", {}).get("luck_check")


async def grace_sends(grace: Any, counts: tuple[int, int, int]) -> None:
    """Grace's estimate, its check left to a worker (run by the test)."""
    wins, pushes, losses = counts
    with mock.patch.object(enqueue, "luck_verify_later"):
        await grace.answer(
            {"type": "luck", "deal": 1, "wins": wins, "pushes": pushes, "losses": losses, "id": "g"}
        )


async def checked(table: Table) -> str:
    hand = await database_sync_to_async(Hand.objects.get)(deal__table=table, seat_number=1)
    verdict: str = await database_sync_to_async(lambda: tasks.luck_verify.delay(hand.pk).get())()
    return verdict


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("counts", "verdict"), [(None, "passed"), (FORGED, "flagged")])
async def test_a_check_makes_the_socket_read_its_view_once_and_send_it(
    player: User, friend: User, rig: Rig, reads: mock.MagicMock, counts: Any, verdict: str
) -> None:
    table, ada, grace = await sockets(player, friend, rig)
    await grace_sends(grace, counts or honest())
    assert other_luck_check(await ada.receive()) == "checking"  # pushed
    reads.reset_mock()
    assert await checked(table) == verdict
    told = await ada.receive()
    assert told == await database_sync_to_async(fresh)(table, 0)
    assert other_luck_check(told) == ("passed" if verdict == "passed" else None)
    assert reads.call_count == 1
    assert await ada.nothing_more()
    assert await grace.nothing_more()
    await ada.close()
    await grace.close()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_whose_last_view_is_older_than_the_check_reads_its_view(
    player: User, friend: User, rig: Rig, reads: mock.MagicMock
) -> None:
    # Grace's estimate commits but its push to Ada is lost (as a push in
    # flight when the check's refresh overtakes it): Ada's last view is of an
    # older version than the check's.
    table, ada, grace = await sockets(player, friend, rig)
    with mock.patch.object(TableSocket, "push_views", autospec=True):
        await grace_sends(grace, honest())
    reads.reset_mock()
    assert await checked(table) == "passed"
    told = await ada.receive()
    assert told == await database_sync_to_async(fresh)(table, 0)
    assert other_luck_check(told) == "passed"
    assert reads.call_count == 1
    assert await ada.nothing_more()
    await ada.close()
    await grace.close()


async def refresh(table: Table, seat: int, told: dict[str, Any]) -> None:
    """What ``broadcast.luck_checked`` sends seat ``seat`` for one check."""
    await get_channel_layer().group_send(
        f"{table.group_name}.{seat}", {**broadcast.refresh_event(), "version": told["version"]}
    )


@pytest.mark.django_db(transaction=True)
async def test_a_check_older_than_the_last_view_sends_nothing_and_one_as_new_reads(
    player: User, friend: User, rig: Rig, reads: mock.MagicMock
) -> None:
    table, ada, grace = await sockets(player, friend, rig)
    version = (await database_sync_to_async(fresh)(table, 0))["table"]["version"]
    reads.reset_mock()
    told = {"deal": 1, "version": version - 1, "luck": "Luck +9.9", "luck_check": "passed"}
    await refresh(table, 0, told)
    assert await ada.nothing_more()
    # Of the version Ada last sent: her view may show the estimate as checking.
    await refresh(table, 0, {**told, "version": version})
    again = await ada.receive()
    assert again == await database_sync_to_async(fresh)(table, 0)
    assert reads.call_count == 1
    assert "Luck +9.9" not in json.dumps(again)
    await ada.close()
    await grace.close()


@pytest.mark.django_db
def test_two_checks_for_one_seats_view_in_a_batch_send_it_one_refresh(
    player: User, friend: User, django_capture_on_commit_callbacks: Any
) -> None:
    table = services.table_start(user=player, mode="friend")
    told = {"deal": 1, "version": 3, "luck": None, "luck_check": None}
    sent: list[tuple[str, dict[str, Any]]] = []

    class Layer:
        async def group_send(self, group: str, event: dict[str, Any]) -> None:
            sent.append((group, event))

    with (
        mock.patch("games.realtime.broadcast.get_channel_layer", return_value=Layer()),
        django_capture_on_commit_callbacks(execute=True),
    ):
        broadcast.luck_checked(
            checks=[
                (table, 0, {**told, "version": 4}),
                (table, 0, {**told, "deal": 2}),
                (table, 1, told),
            ]
        )
    assert sorted(sent, key=lambda s: s[0]) == [
        (f"{table.group_name}.0", {**broadcast.refresh_event(), "version": 4}),
        (f"{table.group_name}.1", {**broadcast.refresh_event(), "version": 3}),
    ]
