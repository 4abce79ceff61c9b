"""Closing a waiting table and leaving one between deals
(``services.table_close``): the table finishes for both seats with the status
the idle upkeep uses, its open invite stops working, no chip moves, a deal in
progress is never cut off, and a second close changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from games import selectors, services
from games.engine import errors as exceptions
from games.models import Deal, Invite, LedgerEntry, Seat, Table
from tests.services.test_races import race
from tests.support import STRONG, WEAK, accept_seen, deck_with, friend_table, house_front

pytestmark = pytest.mark.django_db


def chips(table: Table) -> list[tuple[int, str]]:
    return [(s.stack, str(s.balance_with_commission)) for s in Seat.objects.filter(table=table)]


def test_the_host_closes_a_table_still_waiting_and_its_invite_stops_working(
    player: User, friend: User
) -> None:
    table = services.table_start(user=player, mode="friend")
    token = selectors.open_invite(table=table).token  # type: ignore[union-attr]
    version = table.version
    closed = services.table_close(user=player, table_id=table.pk)
    table.refresh_from_db()
    assert closed.status == table.status == Table.Status.FINISHED
    assert table.version == version + 1  # the sockets' views are ordered by it
    assert Invite.objects.get(token=token).revoked_at is not None
    assert list(selectors.tables_open_for(user=player)) == []
    with pytest.raises(exceptions.InviteRevoked):
        services.invite_accept(user=friend, token=token)


def test_leaving_between_deals_finishes_the_table_for_both_and_moves_no_chip(
    player: User, friend: User, joined_table: Table, rig: Callable[..., None]
) -> None:
    table = joined_table
    rig(deck_with(STRONG, WEAK))
    services.stake_propose(user=player, table_id=table.pk, amount=40)
    accept_seen(friend, table.pk)
    services.deal_start(user=player, table_id=table.pk)
    for user, cards in ((player, STRONG), (friend, WEAK)):
        services.setting_lock(user=user, table_id=table.pk, front=house_front(cards))
    services.stake_propose(user=friend, table_id=table.pk, amount=25)  # the next one, dropped
    before, entries = chips(table), LedgerEntry.objects.count()

    services.table_close(user=friend, table_id=table.pk)

    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert (table.stake, table.stake_proposed, table.stake_proposed_by) == (None, None, None)
    assert chips(table) == before
    assert LedgerEntry.objects.count() == entries
    for user in (player, friend):
        assert list(selectors.tables_open_for(user=user)) == []
        seat = selectors.seat_for(user=user, table_id=table.pk)
        assert selectors.table_state(table_id=table.pk, seat_number=seat.number)[
            "table"]["status"] == "finished"
    with pytest.raises(exceptions.TableFinished, match=r"^This table was closed\. Open a new"):
        services.stake_propose(user=player, table_id=table.pk, amount=10)


def test_a_deal_in_progress_is_never_cut_off(
    player: User, rig: Callable[..., None]
) -> None:
    table = services.table_start(user=player, mode="solo")
    rig(deck_with(STRONG, WEAK))
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    services.deal_start(user=player, table_id=table.pk)
    with pytest.raises(exceptions.DealInProgress, match="Deal 1 is in progress: finish it first"):
        services.table_close(user=player, table_id=table.pk)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    services.table_close(user=player, table_id=table.pk)
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED


def test_a_second_close_changes_nothing(player: User, friend: User, joined_table: Table) -> None:
    services.table_close(user=player, table_id=joined_table.pk)
    version = Table.objects.get(pk=joined_table.pk).version
    services.table_close(user=friend, table_id=joined_table.pk)
    assert Table.objects.get(pk=joined_table.pk).version == version


def test_only_a_seated_player_closes_a_table(
    player: User, friend: User, make_user: Callable[[str], Any]
) -> None:
    table = services.table_start(user=player, mode="friend")
    for stranger in (friend, make_user("mallory")):
        with pytest.raises(exceptions.NotSeated):
            services.table_close(user=stranger, table_id=table.pk)
    with pytest.raises(exceptions.TableNotFound):
        services.table_close(user=player, table_id=table.pk + 1000)
    assert Table.objects.get(pk=table.pk).status == Table.Status.WAITING


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks need PostgreSQL (DATABASE_URL)"
)
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_a_close_and_a_deal_at_once_one_wins_and_no_deal_is_cut_off(
    player: User, friend: User, rig: Callable[..., None], attempt: int
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=30)
    accept_seen(friend, table.pk)
    outcomes = race(
        lambda: services.table_close(user=player, table_id=table.pk),
        lambda: services.deal_start(user=friend, table_id=table.pk),
    )
    table.refresh_from_db()
    if table.status == Table.Status.FINISHED:  # the close came first
        assert isinstance(outcomes[1], exceptions.TableFinished), outcomes
        assert not Deal.objects.filter(table=table).exists()
    else:  # the deal came first: it stands, and the close said so
        assert table.status == Table.Status.PLAYING
        assert isinstance(outcomes[0], exceptions.DealInProgress), outcomes
