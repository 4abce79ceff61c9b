"""games/reports.py: the SQL that counts departures from the house way in the
report's buckets is the engine's rule (``engine.left_house_way``), on many
hands: every setting of a seven-card hand stored in each order, jokers too."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from games import engine, reports, services
from games.models import Hand
from tests.support import STRONG, WEAK, deck_with

pytestmark = pytest.mark.django_db
HANDS = 25  # × every one of its 21 settings, each front stored in both orders


def _random_hands(count: int) -> list[list[str]]:
    draw = random.Random(17)
    hands = [["JK", "As", "Ah", "Kd", "7c", "7s", "2d"]]  # a joker and pairs
    while len(hands) < count:
        hands.append(draw.sample(engine.DECK, 7))
    return hands


def test_the_buckets_departures_are_the_engines_left_house_way(
    player: Any, rig: Callable[..., None]
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = services.table_start(user=player, mode="solo")
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(
        user=player, table_id=table.pk, front=list(engine.house_way(STRONG).setting.front)
    )
    hand = Hand.objects.get(seat__user=player)
    checked = departures = 0
    for cards in _random_hands(HANDS):
        way = engine.house_way(cards).setting
        house_front, house_back = " ".join(way.front), " ".join(way.back)
        for setting in engine.all_settings(cards):
            for front in (setting.front, setting.front[::-1]):
                Hand.objects.filter(pk=hand.pk).update(
                    cards=" ".join(cards), front=" ".join(front), back=" ".join(setting.back),
                    house_front=house_front, house_back=house_back,
                )
                (bucket,) = reports.buckets_grouped(player.pk)
                expected = engine.left_house_way(front, setting.back, way.front, way.back)
                assert bucket["departures"] == int(expected), (cards, front, way.front)
                checked += 1
                departures += expected
    assert checked == HANDS * 21 * 2
    assert 0 < departures < checked  # both answers were met, the house way itself 2 × 25 times
    assert checked - departures == HANDS * 2
