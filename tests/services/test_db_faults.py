"""A database error inside a transition leaves nothing half-written.

For each transition, the writes it makes are counted once, then the transition
is run again from the same starting point with a ``DatabaseError`` injected at
each write in turn (a ``connection.execute_wrapper`` that fails the k-th
INSERT, UPDATE or DELETE): every time the error reaches the caller and the
database is exactly as before, on SQLite and on PostgreSQL alike. Over the
socket, the same fault is a ``server_error`` frame, and resending the message
with its id afterwards applies it once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import DatabaseError, connection

from accounts.models import User
from games import selectors, services
from games.models import ClientMessage, Deal, Hand, Invite, LedgerEntry, Seat, Table
from games.realtime import table_socket
from games.realtime.apply import Applied, message_apply
from games.realtime.messages import Message
from tests.sockets import join
from tests.support import (
    STRONG,
    WEAK,
    accept_seen,
    deck_with,
    friend_table,
    house_front,
    rebet_seen,
)

pytestmark = pytest.mark.django_db(transaction=True)

WRITES = ("INSERT", "UPDATE", "DELETE")
INJECTED = {"faults": 0}


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Iterator[None]:
    yield
    print(f"\ninjected database faults: {INJECTED['faults']}")


def is_write(sql: str) -> bool:
    """An INSERT, UPDATE or DELETE, or a statement with one in its ``WITH``."""
    words = sql.upper().split()
    return bool(words) and (
        words[0] in WRITES or (words[0] == "WITH" and any(f"({w}" in words for w in WRITES))
    )


@contextmanager
def failing_write(at: int | None) -> Iterator[list[str]]:
    """Count the writes; with ``at``, fail the ``at``-th (1-based) before it runs."""
    seen: list[str] = []

    def wrapper(
        execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        if is_write(sql):
            seen.append(" ".join(sql.split()[:3]))
            if at is not None and len(seen) == at:
                raise DatabaseError(f"injected fault at write {at}: {seen[-1]}")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield seen


def everything() -> tuple[object, ...]:
    """Every row a transition may write, in a comparable form."""
    return (
        tuple(Table.objects.order_by("pk").values_list(
            "status", "stake", "stake_proposed", "stake_proposed_by", "last_stake", "deals_count",
            "updated_at")),
        tuple(Seat.objects.order_by("pk").values_list(
            "user_id", "stack", "balance_with_commission")),
        tuple(Deal.objects.order_by("pk").values_list("number", "status", "revealed_at", "stake")),
        tuple(Hand.objects.order_by("pk").values_list(
            "front", "back", "locked_at", "result", "score", "skill", "luck_wins", "luck_label")),
        tuple(LedgerEntry.objects.order_by("pk").values_list("seat_id", "ledger", "amount")),
        tuple(Invite.objects.order_by("pk").values_list("token", "used_at", "revoked_at")),
        tuple(ClientMessage.objects.order_by("pk").values_list("client_id", "type")),
    )


def inject_everywhere(transition: Callable[[], object]) -> int:
    """Run ``transition`` with a fault at each of its writes; then for real."""
    before = everything()
    # A dry run would commit: count the writes inside a transaction rolled back.
    with failing_write(None) as writes, pytest.raises(DatabaseError), _rolled_back():
        transition()
    assert writes, "the transition wrote nothing"
    for k in range(1, len(writes) + 1):
        with failing_write(k), pytest.raises(DatabaseError, match="injected fault"):
            transition()
        INJECTED["faults"] += 1
        assert everything() == before, f"half-written after a fault at write {k}: {writes[k - 1]}"
    transition()  # and with no fault it goes through
    assert everything() != before
    return len(writes)


@contextmanager
def _rolled_back() -> Iterator[None]:
    from django.db import transaction

    with transaction.atomic():
        yield
        raise DatabaseError("rolled back after counting")


@pytest.fixture
def table(player: User, friend: User) -> Table:
    return friend_table(player, friend)


def test_faults_in_every_transition_of_a_friend_deal(
    table: Table, player: User, friend: User, rig: Callable[..., None]
) -> None:
    rig(*[deck_with(STRONG, WEAK)] * 8)
    t = table.pk
    steps: list[Callable[[], object]] = [
        lambda: services.stake_propose(user=player, table_id=t, amount=40),
        lambda: accept_seen(friend, t),
        lambda: services.deal_start(user=player, table_id=t),
        lambda: services.setting_lock(user=player, table_id=t, front=house_front(STRONG)),
        # The lock that reveals: hands, both seats, four ledger entries, the deal, the table.
        lambda: services.setting_lock(user=friend, table_id=t, front=house_front(WEAK)),
        lambda: services.luck_record(
            user=player, table_id=t, deal_number=1, wins=50, pushes=20, losses=50),
        lambda: rebet_seen(friend, t),
        lambda: rebet_seen(player, t),
        lambda: message_apply(user=player, table_id=t, message=Message("deal", {}, "x")),
    ]
    counts = [inject_everywhere(step) for step in steps]
    # The reveal writes 2 hands, 2 seats, the ledger entries, the deal and the
    # table: on SQLite a statement each (the locking hand's lock and result
    # in one); on PostgreSQL all of it, the four ledger entries included, is
    # one statement (services.updates) after the reads. A fault at any of
    # them left nothing written.
    if connection.vendor == "postgresql":
        assert counts[4] == 1
    else:
        assert counts[4] >= 7
    assert Seat.objects.get(table_id=t, number=0).stack == 1040


def test_faults_in_the_invite_and_table_transitions(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    inject_everywhere(lambda: services.invite_create(user=player, table_id=table.pk))
    inject_everywhere(lambda: services.invite_revoke(user=player, table_id=table.pk))
    inject_everywhere(lambda: services.invite_create(user=player, table_id=table.pk))
    invite = selectors.open_invite(table=table)
    assert invite is not None
    inject_everywhere(lambda: services.invite_accept(user=friend, token=invite.token))
    inject_everywhere(lambda: services.table_start(user=friend, mode="solo"))


async def test_a_fault_over_the_socket_is_a_server_error_and_the_resend_applies_once(
    player: User, friend: User, rig: Callable[..., None]
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = await database_sync_to_async(friend_table)(player, friend)
    await database_sync_to_async(services.stake_propose)(user=player, table_id=table.pk, amount=9)
    await database_sync_to_async(accept_seen)(friend, table.pk)
    await database_sync_to_async(services.deal_start)(user=player, table_id=table.pk)
    await database_sync_to_async(services.setting_lock)(
        user=player, table_id=table.pk, front=house_front(STRONG))
    grace, _ = await join(friend, table.pk)
    before = await database_sync_to_async(everything)()
    lock = {"type": "lock", "front": house_front(WEAK), "id": "reveal"}

    original = table_socket.message_apply

    def failing(**kwargs: Any) -> Applied:
        # The last write of the transition: the id itself, after the reveal.
        with connection.execute_wrapper(_fail_on("games_clientmessage")):
            return original(**kwargs)

    table_socket.message_apply = failing  # type: ignore[assignment]
    try:
        reply = await grace.send(lock)
    finally:
        table_socket.message_apply = original  # type: ignore[assignment]
    assert reply["error"] == "server_error"
    assert reply["id"] == "reveal"
    assert await database_sync_to_async(everything)() == before
    INJECTED["faults"] += 1
    done = await grace.send(lock)
    assert done["type"] == "state"
    assert done["deal"]["revealed"] is True
    assert (await grace.send(lock))["replayed"] is True
    await grace.close()


def _fail_on(table_name: str) -> Callable[..., Any]:
    def wrapper(
        execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        # Any statement that inserts into the table.
        if f'INSERT INTO "{table_name}"' in sql or f"INSERT INTO {table_name}" in sql:
            raise DatabaseError(f"injected fault: {table_name}")
        return execute(sql, params, many, context)

    return wrapper
