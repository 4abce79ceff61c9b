"""Helpers shared by the tests (not fixtures: those are in ``tests/conftest.py``):
rigged decks, tables played through the real services, and the ledger
invariants."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from accounts.models import User
from games import engine, selectors, services
from games.models import Deal, Hand, LedgerEntry, Seat, Table

# Hands dealt to seat 0 and seat 1 (in solo: the player and the dealer), with
# the outcome when both set by the house way.
STRONG = "As Ah Kd Kc Qs Qh 2d"  # three pair: aces in front, kings and queens in back
WEAK = "Js 9h 7d 5c 4s 3h 2c"  # jack high: 9-7 in front
SPLIT_A = "Ks Qd 9h 7c 5s 4d 2h"  # against SPLIT_B: wins the front, loses the back
SPLIT_B = "Js 9d 8s 6c 3h 3s 2c"
COPY_A = "As Kd 9h 7c 5s 4d 2h"  # against COPY_B: both parts copy
COPY_B = "Ah Ks 9d 7s 5c 4h 2c"


def deck_with(seat0: str, seat1: str) -> tuple[str, ...]:
    """A deck whose first fourteen cards deal ``seat0`` and ``seat1``."""
    first = engine.parse_cards(seat0, count=7)
    second = engine.parse_cards(seat1, count=7)
    rest = tuple(card for card in engine.DECK if card not in first + second)
    return first + second + rest


def house_front(cards: str) -> list[str]:
    return list(engine.house_way(cards).setting.front)


def _ledger_sum(seat: Seat, ledger: str) -> Decimal:
    """The seat's entries in one ledger, added exactly. (SQLite's SUM adds
    decimals as floats: 15.20 - 17.00 + ... came out as -0.500000000000004.)"""
    amounts = LedgerEntry.objects.filter(seat=seat, ledger=ledger).values_list("amount", flat=True)
    return sum(amounts, Decimal(0))


def assert_ledger_invariants() -> None:
    """Every stack is its start plus its ledger entries, in both ledgers; the
    two stacks of a table add up to twice the start (2,000: no chip is made or
    lost, friend or solo); every revealed deal is settled exactly once and no
    open deal is settled at all."""
    for table in Table.objects.all():
        stacks = list(Seat.objects.filter(table=table).values_list("stack", flat=True))
        assert len(stacks) == 2, (table, stacks)
        assert sum(stacks) == 2 * table.starting_stack, (table, stacks)
    for seat in Seat.objects.select_related("table"):
        start = Decimal(seat.table.starting_stack)
        actual, with_5 = (_ledger_sum(seat, ledger) for ledger in ("actual", "with_5"))
        assert Decimal(seat.stack) == start + actual, seat
        assert seat.balance_with_commission == start + with_5, seat
        last = LedgerEntry.objects.filter(seat=seat, ledger="actual").order_by("-deal__number")
        if last.exists():
            assert last.first().balance == seat.stack  # type: ignore[union-attr]
    for deal in Deal.objects.all():
        entries = LedgerEntry.objects.filter(deal=deal).count()
        hands = Hand.objects.filter(deal=deal)
        assert hands.count() == 2, deal
        if deal.revealed:
            assert entries == 4, deal
            assert all(h.result for h in hands), deal
            results = sorted(h.result for h in hands)
            assert results in (["loss", "win"], ["push", "push"]), deal
        else:
            assert entries == 0, deal
            assert not any(h.result for h in hands), deal


def friend_table(player: User, friend: User) -> Table:
    """A friend table whose invite the friend has accepted."""
    table = services.table_start(user=player, mode="friend")
    invite = selectors.open_invite(table=table)
    assert invite is not None
    services.invite_accept(user=friend, token=invite.token)
    return table


def seen(user: User, table_id: int) -> dict[str, Any]:
    """The ``table`` part of the state ``user``'s seat is shown now."""
    seat = selectors.seat_for(user=user, table_id=table_id)
    table: dict[str, Any] = selectors.table_state(table_id=table_id, seat_number=seat.number)[
        "table"
    ]
    return table


def accept_seen(user: User, table_id: int, table: dict[str, Any] | None = None) -> Table:
    """Accept the proposal ``user`` sees now (or in ``table``, a view read
    earlier), naming its amount and id as the page does."""
    proposal = (table or seen(user, table_id))["proposal"]
    assert proposal is not None, "there is no proposal to accept"
    return services.stake_accept(
        user=user, table_id=table_id, amount=proposal["amount"], proposal=proposal["id"]
    )


def rebet_seen(user: User, table_id: int, table: dict[str, Any] | None = None) -> Table:
    """Rebet as the page does: the last stake ``user`` sees now (or in
    ``table``), and the other seat's proposal when one is shown."""
    view = table or seen(user, table_id)
    proposal = view["proposal"]
    return services.deal_rebet(
        user=user,
        table_id=table_id,
        amount=view["last_stake"],
        proposal=proposal["id"] if proposal and proposal["by"] == "other" else None,
    )


def friends_mid_deal(player: User, friend: User, stake: int = 25) -> Table:
    """A friend table with deal 1 dealt at ``stake``, neither seat locked."""
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=stake)
    accept_seen(friend, table.pk)
    services.deal_start(user=player, table_id=table.pk)
    return table


def deal_friend(
    rig: Callable[..., None], table: Table, first: User, second: User, mine: str, theirs: str,
    *, stake: int = 10,
) -> Deal:
    """Deal at a friend table (``first`` proposes, ``second`` accepts what it
    sees); nobody has locked yet."""
    rig(deck_with(mine, theirs))
    services.stake_propose(user=first, table_id=table.pk, amount=stake)
    accept_seen(second, table.pk)
    return services.deal_start(user=first, table_id=table.pk)
