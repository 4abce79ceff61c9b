"""The session line of every state frame (rules §8) comes from totals the
services keep on the seat; they must say what the hands themselves say."""

from __future__ import annotations

import importlib
import random
from decimal import Decimal
from fractions import Fraction
from math import floor
from typing import Any

import pytest
from django.apps import apps

from accounts.models import User
from games import selectors, services
from games.models import Deal, Hand, Seat
from tests.support import accept_seen, friend_table, house_front

pytestmark = pytest.mark.django_db


def from_the_hands(table_id: int, seat_number: int) -> dict[str, Any]:
    """The session recomputed from the stored hands, the way the frames did
    before the totals: every revealed hand, every completed estimate."""
    hands = Hand.objects.filter(
        deal__table_id=table_id, seat_number=seat_number, deal__status=Deal.Status.REVEALED
    )
    lucks = [
        1 + Fraction(9 * (2 * h.luck_wins + h.luck_pushes), 2 * 120)
        for h in hands
        if h.luck_wins is not None
    ]
    skills = [h.skill for h in hands if h.skill is not None]
    total = sum(skills, Decimal(0))
    average = None
    if lucks:
        tenths = floor(sum(lucks, Fraction(0)) / len(lucks) * 10 + Fraction(1, 2))
        average = f"{tenths // 10}.{tenths % 10}"
    return {
        "hands": len(skills),
        "luck_count": len(lucks),
        "luck_average": average,
        "skill_total": float(total),
        "skill_mean": None if not skills else float(total / len(skills)),
    }


def play(player: User, friend: User, deals: int, seed: int) -> int:
    """Friend deals with random settings (fouls included) and luck estimates
    sent for some hands only."""
    chance = random.Random(seed)
    table = friend_table(player, friend)
    for _ in range(deals):
        services.stake_propose(user=player, table_id=table.pk, amount=chance.randint(1, 20))
        accept_seen(friend, table.pk)
        deal = services.deal_start(user=player, table_id=table.pk)
        for user, seat in ((player, 0), (friend, 1)):
            cards = Hand.objects.get(deal=deal, seat_number=seat).card_list
            front = (
                house_front(" ".join(cards)) if chance.random() < 0.7 else chance.sample(cards, 2)
            )
            services.setting_lock(
                user=user, table_id=table.pk, front=front, confirm_foul=True,
                deal_number=deal.number,
            )
        for user in (player, friend):
            if chance.random() < 0.6:
                wins = chance.randint(0, 120)
                pushes = chance.randint(0, 120 - wins)
                services.luck_record(
                    user=user, table_id=table.pk, deal_number=deal.number,
                    wins=wins, pushes=pushes, losses=120 - wins - pushes,
                )
    return table.pk


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_session_in_a_frame_matches_the_hands(
    player: User, friend: User, seed: int
) -> None:
    table_id = play(player, friend, deals=12, seed=seed)
    for seat in (0, 1):
        state = selectors.table_state(table_id=table_id, seat_number=seat)
        assert state["session"] == from_the_hands(table_id, seat)
    assert state["session"]["hands"] == 12


def test_the_migration_fills_in_totals_for_sessions_played_before_it(
    player: User, friend: User
) -> None:
    table_id = play(player, friend, deals=6, seed=9)
    expected = [from_the_hands(table_id, seat) for seat in (0, 1)]
    Seat.objects.filter(table_id=table_id).update(
        session_hands=0, session_skill=0, session_lucks=0, session_luck_points=0
    )
    migration = importlib.import_module("games.migrations.0007_seat_session_totals")
    migration.backfill(apps, None)
    for seat in (0, 1):
        assert selectors.table_state(table_id=table_id, seat_number=seat)["session"] == (
            expected[seat]
        )
