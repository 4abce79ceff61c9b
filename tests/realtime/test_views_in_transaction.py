"""The views a socket builds inside its action's transaction, from the table,
seats, deal and hands the action holds and changed in memory, are exactly the
views a fresh read gives once the change has committed."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import count
from typing import Any

import pytest

from accounts.models import User
from games import selectors
from games.models import Table
from games.realtime.apply import message_apply
from games.realtime.messages import Message
from tests.support import (
    STRONG,
    WEAK,
    deck_with,
    friend_table,
    friends_mid_deal,
    house_front,
    seen,
)

pytestmark = pytest.mark.django_db

Rig = Callable[..., None]
ids = count(1)


def apply(user: User, table: Table, kind: str, **fields: Any) -> tuple[str, str]:
    """Apply a message as the socket does; (views read in the transaction,
    views read after the commit), as JSON."""
    applied = message_apply(user=user, table_id=table.pk, message=Message(kind, fields, next(ids)))
    assert not applied.replayed
    fresh = selectors.table_states(table_id=table.pk)
    return json.dumps(applied.views, sort_keys=True), json.dumps(fresh, sort_keys=True)


def test_every_step_of_a_deal_pushes_what_a_fresh_read_shows(
    player: User, friend: User, rig: Rig
) -> None:
    rig(deck_with(STRONG, WEAK), deck_with(WEAK, STRONG))
    table = friend_table(player, friend)
    for number, (first, second) in enumerate(((STRONG, WEAK), (WEAK, STRONG)), start=1):
        steps: list[tuple[User, str, dict[str, Any]]] = [
            (player, "stake", {"amount": 7}),
            (friend, "accept_stake", {"amount": 7}),
            (player, "deal", {}),
            (player, "lock", {"front": house_front(first), "deal": number}),
            (friend, "lock", {"front": house_front(second), "deal": number}),
            (friend, "luck", {"deal": number, "wins": 70, "pushes": 10, "losses": 40}),
        ]
        for user, kind, fields in steps:
            if kind == "accept_stake":  # the proposal the friend is shown
                fields = {**fields, "proposal": seen(friend, table.pk)["proposal"]["id"]}
            held, fresh = apply(user, table, kind, **fields)
            assert held == fresh, (number, kind)
    # The first deal's estimate, sent after the second deal: the views show
    # the latest deal, unchanged.
    held, fresh = apply(player, table, "luck", deal=1, wins=60, pushes=0, losses=60)
    assert held == fresh
    assert selectors.table_state(table_id=table.pk, seat_number=0)["session"]["luck_count"] == 1


def test_a_confirmed_foul_is_pushed_as_stored(player: User, friend: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK))
    table = friends_mid_deal(player, friend, stake=3)
    held, fresh = apply(player, table, "lock", front=house_front(STRONG))
    assert held == fresh
    # Jack-nine in front of a seven-high back: a foul, locked anyway.
    held, fresh = apply(friend, table, "lock", front=["Js", "9h"], confirm_foul=True)
    assert held == fresh
    grace = json.loads(fresh)[1][1]["deal"]["results"]["you"]
    assert (grace["foul"], grace["result"]) == (True, "loss")
