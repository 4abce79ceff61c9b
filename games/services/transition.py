"""Opening a table for one state transition, and what an open table holds.

Every state transition is one ``transaction.atomic`` block that first locks
the table row. ``transition`` opens one: the locked ``Table``, its two seats
read once under that lock (with their open-socket counts, which the views
need), and, once an action has read or made them, the latest deal and its
hands as the action leaves them. The ``OpenTable`` is passed on by argument:
a socket message (``games.realtime.apply``) opens the table once, records
its id and hands the same ``OpenTable`` to the service and then to the views,
so nothing is locked or read twice.

A transition is load → step → save: ``flow_state`` reads the open table as
the engine's pure flow sees it (``games.engine.flow``), a flow step decides
(and refuses, with the domain's sentences), and ``flow_save`` writes back the
fields the step changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any, cast

from django.db import connection, transaction

from .. import selectors, sql
from ..engine import flow
from ..engine.choices import Mode
from ..engine.errors import NotSeated, TableNotFound
from ..models import Seat, Table


def table_lock(table_id: object) -> Table:
    """The table row, locked until the transaction ends (what
    ``select_for_update().get()`` does, written once: every message runs it)."""
    pk = _table_pk(table_id)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    tables = sql.rows(Table, "SELECT * FROM {table} WHERE id = %s" + lock, [pk])
    if not tables:
        raise TableNotFound()
    return tables[0]


@cache
def _lock_beside(select: str) -> str:
    lock = ""
    if connection.features.has_select_for_update:
        lock = " FOR UPDATE OF t" if connection.features.has_select_for_update_of else " FOR UPDATE"
    return (
        f"SELECT {sql.columns_of(Table, 't')}, b.* FROM {{table}} t"
        f" LEFT JOIN ({select}) b ON 1 = 1 WHERE t.id = %s{lock}"
    )


def _table_pk(table_id: object) -> int:
    try:
        return int(table_id)  # type: ignore[call-overload, no-any-return]
    except (TypeError, ValueError):
        raise TableNotFound() from None


@dataclass
class OpenTable:
    """A table locked for one transition: the row, its two seats by number,
    and the latest deal with its hands once read or made (``latest_deal``)."""

    table: Table
    seats: tuple[Seat, Seat]
    latest: selectors.LatestDeal | None = None

    def seat_of(self, user: Any) -> Seat:
        """``user``'s seat at this table, or ``NotSeated``."""
        if getattr(user, "is_authenticated", False):
            for seat in self.seats:
                if seat.user_id is not None and seat.user_id == user.pk:
                    return seat
        raise NotSeated()

    def latest_deal(self) -> selectors.LatestDeal:
        """The latest deal and its hands by seat, read once; the objects an
        action changes, so the views read after it reuse them."""
        if self.latest is None:
            self.latest = selectors.latest_deal(table_id=self.table.pk)
        return self.latest


def table_open(table_id: object) -> OpenTable:
    """Lock the table row and read its seats and latest deal (call inside a
    transaction)."""
    return _opened(table_lock(table_id))


def _opened(table: Table) -> OpenTable:
    """The locked table with its seats, and with its latest deal when both
    reads go in one round trip (PostgreSQL: ``sql.read_all``): every
    message's views show the deal, and the actions on it read it anyway.
    Elsewhere the deal is read when it is first wanted (``latest_deal``)."""
    seats, *latest = sql.read_all(*_seats_and_deal(table.pk))
    return _open_table(table, seats, latest[0] if latest else None)


def _seats_and_deal(table_id: int) -> list[sql.Read]:
    """The seats' read, and the latest deal's where reads go together."""
    reads = [selectors.table_seats_read(table_id=table_id)]
    if sql.reads_together():
        reads.append(selectors.latest_deal_read(table_id=table_id))
    return reads


def _open_table(table: Table, seats: list[Seat], latest: selectors.LatestDeal | None) -> OpenTable:
    first, second = selectors.seats_of(table, seats)
    return OpenTable(table, (first, second), latest)


def table_open_with(
    table_id: object, beside: tuple[str, Sequence[Any]], more: Sequence[sql.Read] = ()
) -> tuple[OpenTable, tuple[Any, ...] | None, list[Any]]:
    """``table_open``, with another read of at most one row (``beside``: a
    SELECT and its parameters) made in the lock's own statement, one round
    trip fewer; its row, or None when it found none. (The table socket reads
    its session so with every message: ``games.realtime.apply``.) The read
    sees the database as the statement began, before any wait for the lock.

    On PostgreSQL (``sql.reads_together``) the seats' and the latest deal's
    reads go in the lock's round trip, after it: PostgreSQL runs them once
    the lock is held, each seeing what committed before it began (READ
    COMMITTED), as when they were sent after the lock's answer. ``more``:
    statements sent last in that round trip (only there), and their results
    (the socket claims its message's id so).

    ``TableNotFound`` when there is no such table."""
    pk = _table_pk(table_id)
    select, params = beside
    lock = sql.rows_beside_read(Table, _lock_beside(select), [*params, pk])
    if sql.reads_together():
        found, seats, latest, *results = sql.read_all(lock, *_seats_and_deal(pk), *more)
        table, rest = _the_one(found)
        opened = _open_table(table, seats, latest)
    else:
        if more:
            raise ValueError("Statements are sent with the table's lock only on PostgreSQL.")
        table, rest = _the_one(sql.read_all(lock)[0])
        opened, results = _opened(table), []
    return opened, (None if all(v is None for v in rest) else rest), results


def _the_one(found: list[tuple[Table, tuple[Any, ...]]]) -> tuple[Table, tuple[Any, ...]]:
    if not found:
        raise TableNotFound()
    return found[0]


@contextmanager
def transition(table_id: object, opened: OpenTable | None = None) -> Iterator[OpenTable]:
    """One state transition: a transaction holding the table row's lock.

    Given the ``OpenTable`` of a transaction already holding this table's lock
    (a socket message's), the transition runs in it, without a savepoint:
    anything raised rolls the whole message back, its id included."""
    if opened is not None:
        if str(opened.table.pk) != str(table_id):
            raise TableNotFound()
        yield opened
        return
    with transaction.atomic():
        yield table_open(table_id)


def flow_state(held: OpenTable, locked: tuple[bool, bool] = (False, False)) -> flow.TableState:
    """The locked table as its flow sees it (``games.engine.flow``)."""
    table = held.table
    first, second = (
        flow.SeatChips(
            stack=seat.stack,
            with_commission=Decimal(seat.balance_with_commission),
            dealer=seat.is_dealer,
            empty=seat.user_id is None and not seat.is_dealer,
        )
        for seat in held.seats
    )
    # The table's own fields, by name: what ``flow_save`` writes back.
    fields = {name: getattr(table, name) for name in flow.TABLE_FIELDS}
    mode = cast(Mode, table.mode)
    return flow.TableState(mode=mode, seats=(first, second), locked=locked, **fields)


def flow_save(table: Table, before: flow.TableState, after: flow.TableState) -> None:
    """Write what the step changed of the table (a new ``version`` orders the
    views the sockets push, ``games.realtime``)."""
    fields = flow.changed_fields(before, after)
    if fields:
        for name in fields:
            setattr(table, name, getattr(after, name))
        sql.save(table, [*fields, "updated_at"])


def flow_step(
    held: OpenTable, step: Callable[[flow.TableState], flow.TableState]
) -> flow.TableState:
    """Load the table's state, take one ``step`` of its flow and save it."""
    before = flow_state(held)
    after = step(before)
    flow_save(held.table, before, after)
    return after


def touch(table: Table, *fields: str) -> None:
    """Save ``fields`` and mark the table changed: a new ``version`` orders the
    views the sockets push (``games.realtime``)."""
    table.version += 1
    sql.save(table, [*fields, "version", "updated_at"])


def join_cards(cards: tuple[str, ...] | list[str]) -> str:
    """Cards as the database keeps them: codes separated by spaces."""
    return " ".join(cards)
