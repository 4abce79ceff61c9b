"""Fixtures for the API tests: players, rigged decks and deals played through
the real services (so every stored figure is the one the reveal wrote)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games import engine, services
from games.models import Deal, Table
from tests.games import conftest as games_fixtures
from tests.games.support import accept_seen, deck_with

# The games tests' fixtures, shared: users, rigged decks, fast hashing and the
# ledger invariants checked after every database test.
fast_passwords = games_fixtures.fast_passwords
ledger_invariants = games_fixtures.ledger_invariants
make_user = games_fixtures.make_user
player = games_fixtures.player
friend = games_fixtures.friend
rig = games_fixtures.rig


def house_front(cards: str) -> str:
    return " ".join(engine.house_way(cards).setting.front)


@pytest.fixture
def play_solo(rig: Callable[..., None]) -> Callable[..., Deal]:
    """play_solo(user, table, mine, dealer, front=None, stake=10, luck=None):
    one revealed solo deal; ``front`` defaults to the house way; ``luck`` is
    (wins, pushes, losses) recorded after the reveal, or None for pending."""

    def play(
        user: Any, table: Table, mine: str, dealer: str, *, front: str | None = None,
        stake: int = 10, luck: tuple[int, int, int] | None = None,
    ) -> Deal:
        rig(deck_with(mine, dealer))
        services.stake_propose(user=user, table_id=table.pk, amount=stake)
        deal = services.deal_start(user=user, table_id=table.pk)
        services.setting_lock(
            user=user, table_id=table.pk, front=(front or house_front(mine)).split()
        )
        if luck is not None:
            wins, pushes, losses = luck
            services.luck_record(
                user=user, table_id=table.pk, deal_number=deal.number,
                wins=wins, pushes=pushes, losses=losses,
            )
        deal.refresh_from_db()
        return deal

    return play


@pytest.fixture
def friend_table(player: Any, friend: Any) -> Table:
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    return table


def deal_friend(
    rig: Callable[..., None], table: Table, first: Any, second: Any, mine: str, theirs: str,
    *, stake: int = 10,
) -> Deal:
    """Deal at a friend table; nobody has locked yet."""
    rig(deck_with(mine, theirs))
    services.stake_propose(user=first, table_id=table.pk, amount=stake)
    accept_seen(second, table.pk)
    return services.deal_start(user=first, table_id=table.pk)
