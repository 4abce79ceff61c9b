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
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from typing import Any, cast

from django.db import connection, transaction

from .. import reads, selectors
from ..engine import flow
from ..engine.choices import Mode
from ..engine.errors import NotSeated, TableNotFound
from ..models import Deal, Hand, Seat, Table
from .updates import Updates


def table_lock(table_id: object) -> Table:
    """The table row, locked until the transaction ends."""
    try:
        return Table.objects.select_for_update().get(pk=_table_pk(table_id))
    except Table.DoesNotExist:
        raise TableNotFound() from None


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
    updates: Updates = field(default_factory=Updates)

    def save(self, instance: Table | Seat | Deal | Hand, fields: Sequence[str]) -> None:
        """``instance.save(update_fields=fields)``, sent with the transition's
        other updates when it ends (``services.updates``)."""
        self.updates.save(instance, fields)

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
    opened, _ = table_open_with(table_id)
    return opened


def table_open_with(
    table_id: object, more: Sequence[reads.Read] = ()
) -> tuple[OpenTable, list[Any]]:
    """``table_open``, and the results of ``more`` reads. The table's row is
    read and locked (``SELECT ... FOR UPDATE``, as ``table_lock``) by the
    first statement, and the seats, the latest deal and ``more`` are read
    after it, all in one round trip on PostgreSQL (``reads.read_all``:
    each statement runs once the one before it is done, so once the lock is
    held, and sees what committed before it began). A table socket reads
    its session and its message's id so: every message opens a table, and
    the lock as a queryset of its own cost a round trip and its compiling,
    about 0.2 ms of CPU a message (docs/benchmarks.md).
    ``TableNotFound`` when there is no such table."""
    pk = _table_pk(table_id)
    found, seats, latest, *results = reads.read_all(
        reads.rows_read(Table, _locked_row(), [pk]),
        selectors.table_seats_read(table_id=pk),
        selectors.latest_deal_read(table_id=pk),
        *more,
    )
    if not found:
        raise TableNotFound()
    table = found[0]
    first, second = selectors.seats_of(table, seats)
    return OpenTable(table, (first, second), latest), results


@cache
def _locked_row() -> str:
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return "SELECT * FROM {table} WHERE id = %s" + lock


@contextmanager
def transition(table_id: object, opened: OpenTable | None = None) -> Iterator[OpenTable]:
    """One state transition: a transaction holding the table row's lock. The
    rows it saves (``OpenTable.save``) are written when its block ends.

    Given the ``OpenTable`` of a transaction already holding this table's lock
    (a socket message's), the transition runs in it, without a savepoint:
    anything raised rolls the whole message back, its id included. Its saves
    are then written by that transaction's opener, with its own
    (``games.realtime.apply``: in the statement that commits)."""
    if opened is not None:
        if str(opened.table.pk) != str(table_id):
            raise TableNotFound()
        yield opened
        return
    with transaction.atomic():
        held = table_open(table_id)
        yield held
        held.updates.send()


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


def flow_save(held: OpenTable, before: flow.TableState, after: flow.TableState) -> None:
    """Save what the step changed of the table (a new ``version`` orders the
    views the sockets push, ``games.realtime``)."""
    fields = flow.changed_fields(before, after)
    if fields:
        for name in fields:
            setattr(held.table, name, getattr(after, name))
        held.save(held.table, [*fields, "updated_at"])


def flow_step(
    held: OpenTable, step: Callable[[flow.TableState], flow.TableState]
) -> flow.TableState:
    """Load the table's state, take one ``step`` of its flow and save it."""
    before = flow_state(held)
    after = step(before)
    flow_save(held, before, after)
    return after


def touch(held: OpenTable, *fields: str) -> None:
    """Save the table's ``fields`` and mark it changed: a new ``version``
    orders the views the sockets push (``games.realtime``)."""
    held.table.version += 1
    held.save(held.table, [*fields, "version", "updated_at"])


def join_cards(cards: tuple[str, ...] | list[str]) -> str:
    """Cards as the database keeps them: codes separated by spaces."""
    return " ".join(cards)
