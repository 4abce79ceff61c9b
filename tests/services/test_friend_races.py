"""Races at a friend table on PostgreSQL: both sides lock at the same instant,
both accept at once, two people open the same invite at once, a link is used
while it is withdrawn. One outcome each time, and the invariants hold (the
autouse check runs after each test)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection

from accounts.models import User
from games import selectors, services
from games.engine import errors as exceptions
from games.models import Deal, Hand, Invite, LedgerEntry, Seat, Table
from tests.services.test_races import race
from tests.support import (
    STRONG,
    WEAK,
    accept_seen,
    deck_with,
    friend_table,
    house_front,
    rebet_seen,
    seen,
)

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks need PostgreSQL (DATABASE_URL)"
    ),
    pytest.mark.django_db(transaction=True),
]

Rig = Callable[..., None]


@pytest.mark.parametrize("attempt", range(3))
def test_both_lock_at_the_same_instant_one_settlement(
    player: User, friend: User, rig: Rig, attempt: int
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = friend_table(player, friend)
    services.stake_propose(user=friend, table_id=table.pk, amount=40)
    accept_seen(player, table.pk)
    services.deal_start(user=friend, table_id=table.pk)
    outcomes = race(
        lambda: services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG)),
        lambda: services.setting_lock(user=friend, table_id=table.pk, front=house_front(WEAK)),
    )
    assert all(isinstance(o, Hand) for o in outcomes), outcomes
    deal = Deal.objects.get(table=table)
    assert deal.status == Deal.Status.REVEALED
    assert LedgerEntry.objects.filter(deal=deal).count() == 4
    stacks = [s.stack for s in Seat.objects.filter(table=table).order_by("number")]
    assert stacks == [1040, 960]


@pytest.mark.parametrize("attempt", range(3))
def test_both_accept_at_once_agree_one_stake(
    player: User, friend: User, attempt: int
) -> None:
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=30)
    # The friend accepts from two tabs at once, both showing the proposal: one
    # accept, one refusal.
    shown = seen(friend, table.pk)
    outcomes = race(
        lambda: accept_seen(friend, table.pk, shown),
        lambda: accept_seen(friend, table.pk, shown),
    )
    assert sum(isinstance(o, Table) for o in outcomes) == 1, outcomes
    assert sum(isinstance(o, exceptions.NoStakeProposal) for o in outcomes) == 1, outcomes
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed) == (30, None)


@pytest.mark.parametrize("attempt", range(3))
def test_both_rebet_at_once_agree_the_last_stake(
    player: User, friend: User, rig: Rig, attempt: int
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=25)
    accept_seen(friend, table.pk)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(WEAK))
    # Each "Rebet" proposes the last stake or accepts the other's: one proposes,
    # the other accepts, whichever runs first (both pages show no proposal).
    shown = (seen(player, table.pk), seen(friend, table.pk))
    outcomes = race(
        lambda: rebet_seen(player, table.pk, shown[0]),
        lambda: rebet_seen(friend, table.pk, shown[1]),
    )
    assert all(isinstance(o, Table) for o in outcomes), outcomes
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed, table.stake_proposed_by) == (25, None, None)
    outcomes = race(
        lambda: services.deal_start(user=player, table_id=table.pk),
        lambda: services.deal_start(user=friend, table_id=table.pk),
    )
    assert sum(isinstance(o, Deal) for o in outcomes) == 1, outcomes
    assert Deal.objects.filter(table=table).count() == 2


@pytest.mark.parametrize("attempt", range(3))
def test_two_people_open_the_same_invite_at_once_one_sits_down(
    player: User, friend: User, make_user: Callable[[str], User], attempt: int
) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = selectors.open_invite(table=table)
    assert invite is not None
    eve = make_user("eve")
    outcomes = race(
        lambda: services.invite_accept(user=friend, token=invite.token),
        lambda: services.invite_accept(user=eve, token=invite.token),
    )
    seated = [o for o in outcomes if isinstance(o, Table)]
    full = [o for o in outcomes if isinstance(o, exceptions.TableFull)]
    assert (len(seated), len(full)) == (1, 1), outcomes
    seat = Seat.objects.get(table=table, number=1)
    invite.refresh_from_db()
    assert seat.user is not None
    assert invite.used_by == seat.user
    assert Seat.objects.filter(table=table, user__isnull=False).count() == 2


@pytest.mark.parametrize("attempt", range(3))
def test_a_link_used_while_it_is_withdrawn_has_one_outcome(
    player: User, friend: User, attempt: int
) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = selectors.open_invite(table=table)
    assert invite is not None
    accepted, revoked = race(
        lambda: services.invite_accept(user=friend, token=invite.token),
        lambda: services.invite_revoke(user=player, table_id=table.pk),
    )
    invite.refresh_from_db()
    seat = Seat.objects.get(table=table, number=1)
    if isinstance(accepted, Table):  # the friend was first: nothing left to withdraw
        assert isinstance(revoked, exceptions.TableFull), revoked
        assert seat.user == friend
        assert invite.used_at
        assert not invite.revoked_at
    else:
        assert isinstance(accepted, exceptions.InviteRevoked), accepted
        assert isinstance(revoked, Invite)
        assert seat.user is None
        assert invite.revoked_at
        assert not invite.used_at


@pytest.mark.parametrize("attempt", range(2))
def test_two_new_links_at_once_leave_one_open(player: User, attempt: int) -> None:
    table = services.table_start(user=player, mode="friend")
    outcomes = race(
        lambda: services.invite_create(user=player, table_id=table.pk),
        lambda: services.invite_create(user=player, table_id=table.pk),
    )
    assert all(isinstance(o, Invite) for o in outcomes), outcomes
    open_ = Invite.objects.filter(table=table, used_at__isnull=True, revoked_at__isnull=True)
    assert open_.count() == 1
