"""Chips are conserved at a friend table: after any sequence of deals the two
stacks sum to 2,000 and each stack is 1,000 plus its ledger entries."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from django.db.models import Sum

from accounts.models import User
from games import engine, services
from games.engine import errors as exceptions
from games.models import LedgerEntry, Seat, Table
from tests.support import accept_seen

pytestmark = pytest.mark.django_db


def play(rng: random.Random, player: User, friend: User, deals: int) -> Table:
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    users = (player, friend)
    for _ in range(deals):
        table.refresh_from_db()
        if table.status == Table.Status.FINISHED:
            break
        stacks = [s.stack for s in Seat.objects.filter(table=table).order_by("number")]
        first = rng.randrange(2)
        amount = rng.randint(1, min(stacks))
        if rng.random() < 0.2:  # a counter-proposal first
            services.stake_propose(user=users[first], table_id=table.pk, amount=amount)
            first = 1 - first
            amount = rng.randint(1, min(stacks))
        services.stake_propose(user=users[first], table_id=table.pk, amount=amount)
        accept_seen(users[1 - first], table.pk)
        services.deal_start(user=users[rng.randrange(2)], table_id=table.pk)
        for seat_number in rng.sample((0, 1), 2):
            hand = Seat.objects.get(table=table, number=seat_number).hands.order_by("-id")[0]
            cards = list(hand.card_list)
            front = rng.sample(cards, 2) if rng.random() < 0.5 else list(
                engine.house_way(cards).setting.front
            )
            try:
                services.setting_lock(user=users[seat_number], table_id=table.pk, front=front)
            except exceptions.FoulNotConfirmed:
                services.setting_lock(
                    user=users[seat_number], table_id=table.pk, front=front, confirm_foul=True
                )
        assert_conserved(table)
    return table


def assert_conserved(table: Table) -> None:
    seats = list(Seat.objects.filter(table=table))
    assert sum(seat.stack for seat in seats) == 2000
    for seat in seats:
        entries = LedgerEntry.objects.filter(seat=seat, ledger="actual").aggregate(s=Sum("amount"))
        assert Decimal(seat.stack) == 1000 + (entries["s"] or 0)
        assert seat.stack >= 0


@pytest.mark.parametrize("seed", range(4))
def test_any_sequence_of_deals_conserves_chips(player: User, friend: User, seed: int) -> None:
    rng = random.Random(seed)
    table = play(rng, player, friend, deals=25)
    assert table.deals_count >= 1
    assert_conserved(table)
