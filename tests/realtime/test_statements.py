"""How many statements each socket message of a deal runs, on each backend.

The statements a message runs are most of a web process's CPU under load
(docs/benchmarks.md, "Server under load"): a change that adds one to every
message should be a choice, made here, not an accident."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games.engine.errors import NotSeated, SessionEnded
from games.models import ClientMessage, Seat, Table
from games.realtime.apply import message_apply
from games.realtime.messages import Message
from games.realtime.session import SignedIn
from tests.support import STRONG, WEAK, deck_with, friend_table, house_front, seen

pytestmark = pytest.mark.django_db

ids = count(1)

# Each message's statements inside ``message_apply`` (BEGIN and COMMIT not
# counted): the reads (on PostgreSQL the table lock, the seats, the latest
# deal, the session and the id's record in one round trip, ``reads.read_all``;
# elsewhere one each), the id's INSERT, the action's own inserts and its
# saves (on PostgreSQL in one statement, ``services.updates``).
BUDGET = {
    "postgresql": {"stake": 3, "accept_stake": 3, "deal": 5, "lock": 3, "reveal": 3, "luck": 3},
    "sqlite": {"stake": 6, "accept_stake": 6, "deal": 8, "lock": 7, "reveal": 15, "luck": 8},
}


def statements(
    user: User,
    table_id: int,
    kind: str,
    signed_in: SignedIn | None = None,
    seat_id: int | None = None,
    **fields: Any,
) -> int:
    with CaptureQueriesContext(connection) as captured:
        applied = message_apply(
            user=user, table_id=table_id, message=Message(kind, fields, next(ids)),
            signed_in=signed_in, seat_id=seat_id,
        )
    assert not applied.replayed
    return sum(
        q["sql"].split()[0].upper() not in ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")
        for q in captured.captured_queries
    )


def test_each_message_of_a_deal_runs_the_statements_it_is_allowed(
    player: User, friend: User, rig: Callable[..., None]
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = friend_table(player, friend)
    ran = {"stake": statements(player, table.pk, "stake", amount=7)}
    proposal = seen(friend, table.pk)["proposal"]["id"]
    ran["accept_stake"] = statements(friend, table.pk, "accept_stake", amount=7,
                                     proposal=proposal)
    ran["deal"] = statements(player, table.pk, "deal")
    ran["lock"] = statements(player, table.pk, "lock", front=house_front(STRONG), deal=1)
    ran["reveal"] = statements(friend, table.pk, "lock", front=house_front(WEAK), deal=1)
    ran["luck"] = statements(friend, table.pk, "luck", deal=1, wins=70, pushes=10, losses=40)
    assert ran == BUDGET[connection.vendor]


def signed_in(user: User) -> SignedIn:
    client = Client()
    client.force_login(user)
    return SignedIn(client.cookies["sessionid"].value, user.pk)


def test_a_sockets_session_check_adds_no_round_trip_on_postgresql(
    player: User, friend: User, rig: Callable[..., None]
) -> None:
    # The check is read in the round trip that locks the table and reads the
    # seats: a round trip of its own would be one more for every message of
    # every socket. SQLite sends each read on its own: one statement more.
    rig(deck_with(STRONG, WEAK))
    table = friend_table(player, friend)
    host, guest = signed_in(player), signed_in(friend)
    ran = {"stake": statements(player, table.pk, "stake", host, amount=7)}
    proposal = seen(friend, table.pk)["proposal"]["id"]
    ran["accept_stake"] = statements(friend, table.pk, "accept_stake", guest, amount=7,
                                     proposal=proposal)
    ran["deal"] = statements(player, table.pk, "deal", host)
    more = 0 if connection.vendor == "postgresql" else 1
    assert ran == {k: BUDGET[connection.vendor][k] + more for k in ran}


def test_a_sockets_message_reads_its_id_in_the_round_trip_that_reads_the_seats(
    player: User, friend: User, rig: Callable[..., None]
) -> None:
    # On PostgreSQL what the id was recorded for is read with the lock and
    # the seats' and deal's reads, in one round trip (and the session with
    # them): one statement fewer than the budget for every message of every
    # socket. SQLite sends the session's read on its own.
    rig(deck_with(STRONG, WEAK))
    table = friend_table(player, friend)
    host, guest = signed_in(player), signed_in(friend)
    seat = {s.user_id: s.pk for s in Seat.objects.filter(table=table)}
    ran = {"stake": statements(player, table.pk, "stake", host, seat[player.pk], amount=7)}
    proposal = seen(friend, table.pk)["proposal"]["id"]
    ran["accept_stake"] = statements(
        friend, table.pk, "accept_stake", guest, seat[friend.pk], amount=7, proposal=proposal
    )
    ran["deal"] = statements(player, table.pk, "deal", host, seat[player.pk])
    ran["lock"] = statements(player, table.pk, "lock", host, seat[player.pk],
                             front=house_front(STRONG), deal=1)
    change = -1 if connection.vendor == "postgresql" else 1
    assert ran == {k: BUDGET[connection.vendor][k] + change for k in ran}
    assert ClientMessage.objects.filter(seat__table=table).count() == 4


def test_a_message_claimed_for_a_seat_that_is_not_the_users_changes_nothing(
    player: User, friend: User
) -> None:
    table = friend_table(player, friend)
    theirs = Seat.objects.get(table=table, user=friend).pk
    with pytest.raises(NotSeated):
        message_apply(
            user=player, table_id=table.pk, message=Message("stake", {"amount": 7}, 1),
            signed_in=signed_in(player), seat_id=theirs,
        )
    assert Table.objects.get(pk=table.pk).stake_proposal is None
    assert not ClientMessage.objects.filter(seat__table=table).exists()


def test_a_resent_message_claimed_with_the_seats_read_is_answered_once(
    player: User, friend: User
) -> None:
    table = friend_table(player, friend)
    host, mine = signed_in(player), Seat.objects.get(table=table, user=player).pk
    message = Message("stake", {"amount": 7}, "resent")
    first = message_apply(
        user=player, table_id=table.pk, message=message, signed_in=host, seat_id=mine
    )
    again = message_apply(
        user=player, table_id=table.pk, message=message, signed_in=host, seat_id=mine
    )
    assert not first.replayed
    assert again.replayed
    assert ClientMessage.objects.filter(seat_id=mine).count() == 1


def test_a_message_on_an_ended_session_changes_nothing(player: User, friend: User) -> None:
    table = friend_table(player, friend)
    host = signed_in(player)
    Session.objects.filter(session_key=host.session_key).delete()
    with pytest.raises(SessionEnded):
        message_apply(
            user=player, table_id=table.pk, message=Message("stake", {"amount": 7}, 1),
            signed_in=host, seat_id=Seat.objects.get(table=table, user=player).pk,
        )
    assert Table.objects.get(pk=table.pk).stake_proposal is None
    assert not ClientMessage.objects.filter(seat__table=table).exists()


def test_an_ended_session_is_told_before_a_missing_table(player: User) -> None:
    with pytest.raises(SessionEnded):
        message_apply(
            user=player, table_id=10**9, message=Message("stake", {"amount": 7}, 1),
            signed_in=SignedIn("no-such-session", player.pk),
        )
