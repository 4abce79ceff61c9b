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
from games.engine.errors import SessionEnded
from games.models import ClientMessage, Table
from games.realtime.apply import message_apply
from games.realtime.messages import Message
from games.realtime.session import SignedIn
from tests.support import STRONG, WEAK, deck_with, friend_table, house_front, seen

pytestmark = pytest.mark.django_db

ids = count(1)

# Each message's round trips inside ``message_apply`` (BEGIN and COMMIT not
# counted): the table lock, the seats, the id's claim (on SQLite with its
# trim apart), the action's own writes (on PostgreSQL a lock's and a luck
# estimate's updates in one statement, ``sql.saves_together``), the latest
# deal with its hands (on PostgreSQL sent with the seats, ``sql.read_all``).
BUDGET = {
    "postgresql": {"stake": 4, "accept_stake": 4, "deal": 6, "lock": 4, "reveal": 5, "luck": 4},
    "sqlite": {"stake": 6, "accept_stake": 6, "deal": 7, "lock": 7, "reveal": 12, "luck": 8},
}


def statements(
    user: User, table_id: int, kind: str, signed_in: SignedIn | None = None, **fields: Any
) -> int:
    with CaptureQueriesContext(connection) as captured:
        applied = message_apply(
            user=user, table_id=table_id, message=Message(kind, fields, next(ids)),
            signed_in=signed_in,
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


def test_a_sockets_session_check_adds_no_statement_to_a_message(
    player: User, friend: User, rig: Callable[..., None]
) -> None:
    # The check is read in the table lock's own statement: a round trip of
    # its own would be one more for every message of every socket.
    rig(deck_with(STRONG, WEAK))
    table = friend_table(player, friend)
    host, guest = signed_in(player), signed_in(friend)
    ran = {"stake": statements(player, table.pk, "stake", host, amount=7)}
    proposal = seen(friend, table.pk)["proposal"]["id"]
    ran["accept_stake"] = statements(friend, table.pk, "accept_stake", guest, amount=7,
                                     proposal=proposal)
    ran["deal"] = statements(player, table.pk, "deal", host)
    assert ran == {k: BUDGET[connection.vendor][k] for k in ran}


def test_a_message_on_an_ended_session_changes_nothing(player: User, friend: User) -> None:
    table = friend_table(player, friend)
    host = signed_in(player)
    Session.objects.filter(session_key=host.session_key).delete()
    with pytest.raises(SessionEnded):
        message_apply(
            user=player, table_id=table.pk, message=Message("stake", {"amount": 7}, 1),
            signed_in=host,
        )
    assert Table.objects.get(pk=table.pk).stake_proposal is None
    assert not ClientMessage.objects.filter(seat__table=table).exists()


def test_an_ended_session_is_told_before_a_missing_table(player: User) -> None:
    with pytest.raises(SessionEnded):
        message_apply(
            user=player, table_id=10**9, message=Message("stake", {"amount": 7}, 1),
            signed_in=SignedIn("no-such-session", player.pk),
        )
