"""A luck estimate is checked off the room server (``games.luck_verify``,
queued when ``luck_record`` commits) against the deterministic draw (rules
§6): the other seat sees it only once it passed; a forged one is flagged for
the admin and its numbers never reach the other seat, on the table, the
replay or the API."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from django.db import transaction
from django.test import Client
from django.utils.html import escape

from accounts.models import User
from games import engine, enqueue, selectors, services, tasks
from games.models import Deal, Hand, LuckAudit, Table
from games.services import upkeep
from tests.api.test_permissions import body
from tests.sockets import join
from tests.support import SPLIT_A, SPLIT_B, deck_with, friends_mid_deal, house_front

Rig = Callable[..., None]
# Grace (seat 1) holds SPLIT_B; her honest estimate is the draw's.
TRUTH = engine.luck(SPLIT_B.split(), mode="friend", side="player", samples=120)
FORGED = (120, 0, 0)
FORGED_LABEL = engine.luck_from_counts(wins=120, pushes=0, losses=0).label()


def shows(text: str, label: str) -> bool:
    """Whether ``text`` holds ``label`` as it is, or as JSON writes it (the
    dash of its interval as ``\\u2013``: frames, API answers, json_script)."""
    return label in text or json.dumps(label)[1:-1] in text


def revealed(player: User, friend: User, rig: Rig) -> tuple[Table, Deal]:
    """A friend table whose first deal is revealed: Ada SPLIT_A, Grace SPLIT_B."""
    rig(deck_with(SPLIT_A, SPLIT_B))
    table = friends_mid_deal(player, friend, stake=5)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(SPLIT_A))
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(SPLIT_B))
    return table, Deal.objects.get(table=table, number=1)


def record(user: User, table: Table, counts: tuple[int, int, int]) -> Hand:
    wins, pushes, losses = counts
    return services.luck_record(
        user=user, table_id=table.pk, deal_number=1, wins=wins, pushes=pushes, losses=losses
    )


def honest() -> tuple[int, int, int]:
    return TRUTH.wins, TRUTH.pushes, TRUTH.losses


def seen_by(table: Table, seat: int) -> dict[str, Any]:
    """What seat ``seat`` is shown of the other seat's result."""
    other: dict[str, Any] = selectors.table_state(table_id=table.pk, seat_number=seat)["deal"][
        "results"
    ]["other"]
    return other


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def everything_ada_can_read(table: Table, deal: Deal, player: User) -> str:
    """Ada's table page, socket state, replay, history list, CSV and API."""
    ada = signed_in(player)
    pages = [
        f"/tables/{table.pk}/",
        f"/history/deals/{deal.pk}/",
        "/history/",
        "/history/export.csv",
        f"/history/sessions/{table.pk}/",
        f"/api/hands/{deal.pk}/",
        "/api/hands/",
        f"/api/tables/{table.pk}/",
    ]
    texts = [json.dumps(selectors.table_state(table_id=table.pk, seat_number=0))]
    for url in pages:
        response = ada.get(url)
        assert response.status_code == 200, url
        texts.append(body(response).decode())
    return "\n".join(texts)


@pytest.mark.django_db
def test_a_forged_estimate_is_flagged_and_never_shown_to_the_other_seat(
    player: User, friend: User, rig: Rig, django_capture_on_commit_callbacks: Any
) -> None:
    table, deal = revealed(player, friend, rig)
    assert TRUTH.wins != 120
    with django_capture_on_commit_callbacks(execute=True):
        hand = record(friend, table, FORGED)
    audit = LuckAudit.objects.get(hand=hand)
    assert not audit.ok
    assert (audit.stored_wins, audit.expected_wins) == (120, TRUTH.wins)
    assert "counts 120/0/0 are not the draw's" in audit.reason
    # To Ada it is as if Grace had sent nothing.
    assert (seen_by(table, 0)["luck"], seen_by(table, 0)["luck_check"]) == (None, None)
    assert not shows(everything_ada_can_read(table, deal, player), FORGED_LABEL)
    # Grace still sees what she sent.
    assert selectors.table_state(table_id=table.pk, seat_number=1)["deal"]["results"]["you"][
        "luck"
    ] == FORGED_LABEL
    assert upkeep.luck_audit_sample() == {"checked": 0, "flagged": 0}  # nothing left for it


@pytest.mark.django_db
def test_an_honest_estimate_is_shown_to_the_other_seat_once_it_passed(
    player: User, friend: User, rig: Rig, django_capture_on_commit_callbacks: Any
) -> None:
    table, deal = revealed(player, friend, rig)
    label = engine.luck_from_counts(wins=TRUTH.wins, pushes=TRUTH.pushes, losses=TRUTH.losses)
    assert label.label() != FORGED_LABEL
    with django_capture_on_commit_callbacks(execute=False) as queued:
        hand = record(friend, table, honest())
    # Recorded, not checked yet: Ada is told it is being checked, nothing more.
    assert (seen_by(table, 0)["luck"], seen_by(table, 0)["luck_check"]) == (None, "checking")
    assert not shows(everything_ada_can_read(table, deal, player), label.label())
    for callback in queued:
        callback()
    enqueue.wait()
    assert LuckAudit.objects.get(hand=hand).ok
    assert seen_by(table, 0)["luck"] == label.label()
    assert seen_by(table, 0)["luck_check"] == "passed"
    assert shows(everything_ada_can_read(table, deal, player), label.label())


@pytest.mark.django_db
def test_the_check_runs_once_however_often_it_is_delivered(
    player: User, friend: User, rig: Rig
) -> None:
    table, _ = revealed(player, friend, rig)
    hand = record(friend, table, honest())  # the test's transaction never commits: not queued
    ada = Hand.objects.get(deal__table=table, seat_number=0)
    # A hand with no estimate, or no hand at all, has nothing to check.
    assert tasks.luck_verify.delay(ada.pk).get() is None
    assert tasks.luck_verify.delay(987654321).get() is None
    assert not LuckAudit.objects.exists()
    assert tasks.luck_verify.delay(hand.pk).get() == "passed"
    assert tasks.luck_verify.delay(hand.pk).get() is None
    forged = record(player, table, FORGED)
    assert tasks.luck_verify.delay(forged.pk).get() == "flagged"
    assert tasks.luck_verify.delay(forged.pk).get() is None
    assert dict(LuckAudit.objects.values_list("hand_id", "ok")) == {hand.pk: True, forged.pk: False}
    assert upkeep.luck_audit_sample() == {"checked": 0, "flagged": 0}


class Published:
    """A channel layer that keeps what it is asked to publish."""

    def __init__(self) -> None:
        self.groups: list[str] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert message["type"] == "table.refresh"
        self.groups.append(group)


@pytest.mark.django_db
def test_one_batch_checks_each_hand_once_and_tells_the_other_seats_after_one_commit(
    player: User, friend: User, rig: Rig, django_capture_on_commit_callbacks: Any
) -> None:
    table, _ = revealed(player, friend, rig)
    grace = record(friend, table, honest())  # the test's transaction never commits: not queued
    ada = record(player, table, FORGED)
    layer = Published()
    with (
        mock.patch("games.realtime.broadcast.get_channel_layer", return_value=layer),
        django_capture_on_commit_callbacks(execute=True) as sent,
    ):
        verdicts = tasks.luck_verify_hands.delay([grace.pk, ada.pk, grace.pk, 987654321]).get()
    # Each hand once, in the order asked; a repeat and a missing hand have nothing.
    assert verdicts == ["passed", "flagged", None, None]
    assert dict(LuckAudit.objects.values_list("hand_id", "ok")) == {grace.pk: True, ada.pk: False}
    # Grace's check changes what Ada sees, Ada's what Grace sees: both seats,
    # from one callback after the one commit.
    assert len(sent) == 1
    assert sorted(layer.groups) == [f"{table.group_name}.0", f"{table.group_name}.1"]
    assert tasks.luck_verify_hands.delay([grace.pk, ada.pk]).get() == [None, None]


@pytest.mark.django_db
def test_the_check_is_queued_when_the_estimate_commits_and_not_when_it_rolls_back(
    player: User, friend: User, rig: Rig, django_capture_on_commit_callbacks: Any
) -> None:
    table, _ = revealed(player, friend, rig)

    def record_then_fail() -> None:
        with transaction.atomic():
            record(friend, table, honest())
            raise RuntimeError("the transaction fails after the estimate")

    with mock.patch.object(tasks.luck_verify_hands, "delay") as delay:
        with (
            django_capture_on_commit_callbacks(execute=True),
            pytest.raises(RuntimeError, match="fails after the estimate"),
        ):
            record_then_fail()
        assert delay.call_count == 0
        assert Hand.objects.get(deal__table=table, seat_number=1).luck_wins is None
        with django_capture_on_commit_callbacks(execute=False) as queued:
            hand = record(friend, table, honest())
        assert delay.call_count == 0  # not before the commit
        for callback in queued:
            callback()
        enqueue.wait()
    assert [c.args for c in delay.call_args_list] == [([hand.pk],)]
    assert not LuckAudit.objects.exists()


@pytest.mark.django_db
def test_a_flagged_estimate_is_listed_in_the_admin_with_its_reason(
    player: User, friend: User, rig: Rig, django_capture_on_commit_callbacks: Any,
    admin_client: Client,
) -> None:
    table, _ = revealed(player, friend, rig)
    with django_capture_on_commit_callbacks(execute=True):
        hand = record(friend, table, FORGED)
    reason = escape(LuckAudit.objects.get(hand=hand).reason)
    flagged = admin_client.get("/admin/games/luckaudit/?ok__exact=0")
    assert flagged.status_code == 200
    assert reason in flagged.content.decode()
    assert str(hand) in flagged.content.decode()
    passed = admin_client.get("/admin/games/luckaudit/?ok__exact=1")
    assert reason not in passed.content.decode()


# --- over the table sockets ---------------------------------------------------


async def sockets(player: User, friend: User, rig: Rig) -> tuple[Table, Any, Any]:
    """Both friends' sockets open on a revealed deal, their first frames read."""
    table, _ = await database_sync_to_async(revealed)(player, friend, rig)
    ada, _ = await join(player, table.pk)
    grace, _ = await join(friend, table.pk)
    await ada.receive()  # grace connected
    # A heartbeat that saw Grace connect before the connect's refresh came
    # sends Ada a view of its own too: let it come before the tests count.
    while not await ada.nothing_more():
        await ada.receive()
    return table, ada, grace


@pytest.mark.django_db(transaction=True)
async def test_over_the_socket_the_other_seat_gets_an_honest_estimate_once_checked(
    player: User, friend: User, rig: Rig
) -> None:
    _, ada, grace = await sockets(player, friend, rig)
    wins, pushes, losses = honest()
    answer = await grace.send(
        {"type": "luck", "deal": 1, "wins": wins, "pushes": pushes, "losses": losses, "id": "l1"}
    )
    label = answer["deal"]["results"]["you"]["luck"]
    assert label.startswith("Luck ")
    # Embedded, the check ran as the estimate committed: the refresh it sent
    # reached Ada first, and the view pushed before it (being checked) is older.
    told = (await ada.receive())["deal"]["results"]["other"]
    assert (told["luck"], told["luck_check"]) == (label, "passed")
    assert await ada.nothing_more()
    assert await grace.nothing_more()
    await ada.close()
    await grace.close()


@pytest.mark.django_db(transaction=True)
async def test_over_the_socket_a_forged_estimate_never_reaches_the_other_seat(
    player: User, friend: User, rig: Rig
) -> None:
    table, ada, grace = await sockets(player, friend, rig)
    with mock.patch.object(enqueue, "luck_verify_later"):  # as with a worker: checked later
        await grace.send({"type": "luck", "deal": 1, "wins": 120, "pushes": 0, "losses": 0})
        waiting = (await ada.receive())["deal"]["results"]["other"]
    assert (waiting["luck"], waiting["luck_check"]) == (None, "checking")
    hand = await database_sync_to_async(Hand.objects.get)(deal__table=table, seat_number=1)
    verdict = await database_sync_to_async(lambda: tasks.luck_verify.delay(hand.pk).get())()
    assert verdict == "flagged"
    # Only Ada's sockets are told (only her view changed), and never the numbers.
    told = (await ada.receive())["deal"]["results"]["other"]
    assert (told["luck"], told["luck_check"]) == (None, None)
    assert await ada.nothing_more()
    assert await grace.nothing_more()
    assert not shows("".join(ada.frames), FORGED_LABEL)
    assert shows(grace.frames[-1], FORGED_LABEL)
    await ada.close()
    await grace.close()
