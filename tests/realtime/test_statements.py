"""How many statements each socket message of a deal runs, on each backend.

The statements a message runs are most of a web process's CPU under load
(docs/benchmarks.md, "Server under load"): a change that adds one to every
message should be a choice, made here, not an accident."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games.realtime.apply import message_apply
from games.realtime.messages import Message
from tests.support import STRONG, WEAK, deck_with, friend_table, house_front, seen

pytestmark = pytest.mark.django_db

ids = count(1)

# Each message's statements inside ``message_apply`` (BEGIN and COMMIT not
# counted): the table lock, the seats, the id's claim (on SQLite with its
# trim apart), the action's own writes, the latest deal with its hands.
BUDGET = {
    "postgresql": {"stake": 5, "accept_stake": 5, "deal": 6, "lock": 6, "reveal": 12, "luck": 7},
    "sqlite": {"stake": 6, "accept_stake": 6, "deal": 7, "lock": 7, "reveal": 13, "luck": 8},
}


def statements(user: User, table_id: int, kind: str, **fields: Any) -> int:
    with CaptureQueriesContext(connection) as captured:
        applied = message_apply(
            user=user, table_id=table_id, message=Message(kind, fields, next(ids))
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
