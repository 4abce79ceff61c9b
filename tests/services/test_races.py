"""Races on PostgreSQL: two threads, two connections, one table row lock.
Whatever the interleaving, a deal is settled exactly once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import User
from games import services
from games.engine import errors as exceptions
from games.models import Deal, Hand, LedgerEntry, Seat, Table
from tests.support import STRONG, WEAK, accept_seen, deck_with, house_front

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks need PostgreSQL (DATABASE_URL)"
    ),
    pytest.mark.django_db(transaction=True),
]

Rig = Callable[..., None]


def race(*actions: Callable[[], object]) -> list[object]:
    """Run the actions at the same moment, each on its own connection; return
    each one's result or the exception it raised."""
    barrier = threading.Barrier(len(actions))
    outcomes: list[object] = [None] * len(actions)

    def run(index: int, action: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes[index] = action()
        except Exception as exc:  # noqa: BLE001 - the outcome is what we inspect
            outcomes[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes


def friend_table_dealt(player: User, friend: User, rig: Rig) -> Table:
    rig(deck_with(STRONG, WEAK))
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    services.stake_propose(user=player, table_id=table.pk, amount=40)
    accept_seen(friend, table.pk)
    services.deal_start(user=player, table_id=table.pk)
    return table


def settled_once(table: Table) -> Deal:
    deal = Deal.objects.get(table=table)
    assert deal.status == Deal.Status.REVEALED
    assert LedgerEntry.objects.filter(deal=deal).count() == 4
    return deal


@pytest.mark.parametrize("attempt", range(3))
def test_both_friends_locking_at_once_settles_exactly_once(
    player: User, friend: User, rig: Rig, attempt: int
) -> None:
    table = friend_table_dealt(player, friend, rig)
    outcomes = race(
        lambda: services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG)),
        lambda: services.setting_lock(user=friend, table_id=table.pk, front=house_front(WEAK)),
    )
    assert all(isinstance(outcome, Hand) for outcome in outcomes), outcomes
    settled_once(table)
    stacks = list(Seat.objects.filter(table=table).order_by("number").values_list("stack"))
    assert stacks == [(1040,), (960,)]


def test_one_player_locking_twice_at_once_locks_and_settles_once(
    player: User, rig: Rig
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = services.table_start(user=player, mode="solo")
    services.stake_propose(user=player, table_id=table.pk, amount=40)
    services.deal_start(user=player, table_id=table.pk)
    outcomes = race(
        lambda: services.setting_lock(user=player, table_id=table.pk, front=["As", "Ah"]),
        lambda: services.setting_lock(user=player, table_id=table.pk, front=["Kd", "Kc"]),
    )
    locked = [o for o in outcomes if isinstance(o, Hand)]
    refused = [o for o in outcomes if isinstance(o, exceptions.AlreadyRevealed)]
    assert (len(locked), len(refused)) == (1, 1), outcomes
    settled_once(table)


def test_two_reveals_at_once_settle_exactly_once(player: User, friend: User, rig: Rig) -> None:
    table = friend_table_dealt(player, friend, rig)
    # Both sides locked but not yet revealed (as if the revealing step were separate).
    deal = Deal.objects.get(table=table)
    for hand in Hand.objects.filter(deal=deal):
        way = house_front(hand.cards)
        hand.front = " ".join(way)
        hand.back = " ".join(c for c in hand.card_list if c not in way)
        hand.locked_at = timezone.now()
        hand.save()
    outcomes = race(
        lambda: services.deal_reveal(table_id=table.pk),
        lambda: services.deal_reveal(table_id=table.pk),
    )
    revealed = [o for o in outcomes if isinstance(o, Deal)]
    refused = [o for o in outcomes if isinstance(o, exceptions.AlreadyRevealed)]
    assert (len(revealed), len(refused)) == (1, 1), outcomes
    settled_once(table)
    seat = Seat.objects.get(table=table, number=0)
    assert (seat.stack, seat.balance_with_commission) == (1040, Decimal("1038.00"))


def test_two_deals_at_once_make_one_deal(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    outcomes = race(
        lambda: services.deal_start(user=player, table_id=table.pk),
        lambda: services.deal_start(user=player, table_id=table.pk),
    )
    assert sum(isinstance(o, Deal) for o in outcomes) == 1, outcomes
    assert sum(isinstance(o, exceptions.GameError) for o in outcomes) == 1, outcomes
    assert Deal.objects.filter(table=table).count() == 1
