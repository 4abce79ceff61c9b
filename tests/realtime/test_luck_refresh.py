"""A luck check's refresh (``broadcast.luck_checked``) says what the check
changed of the other seat's view; a socket whose last view is of the check's
version puts it in that view without reading it again, and any other socket
reads its view as for a bare refresh. Either way the seat ends up with the
view a fresh read gives."""

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
from games.realtime.consumer import TableConsumer
from tests.background.test_luck_verify import FORGED, honest, sockets

Rig = Callable[..., None]


@pytest.fixture
def reads() -> Iterator[mock.MagicMock]:
    """Counts the views the sockets read from the database."""
    with mock.patch.object(
        TableConsumer, "read_state", autospec=True, side_effect=TableConsumer.read_state
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
async def test_a_check_is_put_in_the_view_the_socket_last_sent_without_reading_it(
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
    assert reads.call_count == 0
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
    with mock.patch.object(TableConsumer, "push_views", autospec=True):
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
    await get_channel_layer().group_send(
        f"{table.group_name}.{seat}", {**broadcast.refresh_event(), "luck_checked": told}
    )


@pytest.mark.django_db(transaction=True)
async def test_a_check_older_than_the_last_view_sends_nothing_and_another_deals_reads(
    player: User, friend: User, rig: Rig, reads: mock.MagicMock
) -> None:
    table, ada, grace = await sockets(player, friend, rig)
    version = (await database_sync_to_async(fresh)(table, 0))["table"]["version"]
    reads.reset_mock()
    told = {"deal": 1, "version": version - 1, "luck": "Luck +9.9", "luck_check": "passed"}
    await refresh(table, 0, told)
    assert await ada.nothing_more()
    # Of the version Ada last sent, but of another deal than her view's.
    await refresh(table, 0, {**told, "deal": 2, "version": version})
    again = await ada.receive()
    assert again == await database_sync_to_async(fresh)(table, 0)
    assert reads.call_count == 1
    assert "Luck +9.9" not in json.dumps(again)
    await ada.close()
    await grace.close()


@pytest.mark.django_db
def test_two_checks_for_one_seats_view_in_a_batch_send_it_a_bare_refresh(
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
            checks=[(table, 0, told), (table, 0, {**told, "deal": 2}), (table, 1, told)]
        )
    assert sorted(sent, key=lambda s: s[0]) == [
        (f"{table.group_name}.0", broadcast.refresh_event()),
        (f"{table.group_name}.1", {**broadcast.refresh_event(), "luck_checked": told}),
    ]
