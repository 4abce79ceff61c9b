"""One socket message applied: the one way a message travels to a change.

``message_apply`` is what the table socket, the tests and the benchmarks
call. In one transaction it opens the table (row lock, both seats: an
``OpenTable``), records the message's id (a resend finds it and nothing runs
again), calls the message's handler from the registry with that open table,
and reads both seats' views from what the handler left (the deal and hands
it read or made are reused, not read again). The caller sends the views
once this returns, that is once the change has committed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from django.db import InterfaceError, OperationalError, connection, transaction

from .. import selectors, services, sql
from ..engine.errors import IdReused, NotSeated, OutcomeUnknown, SessionEnded, TableNotFound
from . import message_ids, session
from .messages import MESSAGES, Message


class Replayed:
    """The result of a resend: this id was applied before, nothing ran again."""

    def __repr__(self) -> str:
        return "REPLAYED"


REPLAYED = Replayed()


class Applied(NamedTuple):
    """What a message did: the handler's result (``REPLAYED`` for a resend)
    and every seat's view after it, read in the message's transaction."""

    result: object
    views: list[selectors.SeatView]

    @property
    def replayed(self) -> bool:
        return self.result is REPLAYED


def message_apply(
    *,
    user: Any,
    table_id: int,
    message: Message,
    base_url: str = "",
    signed_in: session.SignedIn | None = None,
    seat_id: int | None = None,
) -> Applied:
    """Apply one checked socket message (``messages.validate``) for ``user``,
    at most once per seat and ``id`` when it has one. The id is recorded in
    the same transaction as the change, so it commits with it or not at all,
    and survives restarts; an id reused for a different message is refused
    (``IdReused``). A refused action raises its domain error and changes
    nothing, its id included.

    ``signed_in``: first check that this session still signs ``user`` in
    (``SessionEnded`` if not: nothing runs), read in the table lock's own
    statement. When that first statement finds the thread's connection dead
    (PostgreSQL restarted), nothing has run: the message is applied once
    more on a new connection, as ``db_threads.reconnecting`` does for a read.
    A failure from the COMMIT on (the database lost while committing, an
    on-commit callback failing) raises ``OutcomeUnknown``: the change may
    have committed, and only a resend with the same id can tell. A failure
    before it rolled back: nothing changed.

    ``seat_id``: the seat the caller knows ``user`` holds (the socket's); a
    seat that turns out not to be ``user``'s refuses the message
    (``NotSeated``). With ``signed_in`` on PostgreSQL, the id is claimed in
    the round trip that reads the seats under the lock, one round trip fewer
    a message (a refused message's claim rolls back with it)."""
    handler = MESSAGES[message.type].handler
    if handler is None:
        raise ValueError(f"“{message.type}” is answered by the socket, not applied.")
    outermost = not connection.in_atomic_block
    args = (handler, user, table_id, message, base_url, signed_in, seat_id)
    try:
        return _applied(*args)
    except _NotOpened as failed:
        if not (outermost and failed.broken):
            raise failed.error from None
        connection.close()
    return _applied(*args)


class _NotOpened(Exception):
    """The transaction's first statement failed on the database: nothing ran.
    ``broken``: the connection itself was lost (psycopg's ``broken``), not a
    statement refused on a live one (a lock timeout, a locked SQLite file)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error
        self.broken = bool(getattr(connection.connection, "broken", False))


def _applied(
    handler: Any,
    user: Any,
    table_id: int,
    message: Message,
    base_url: str,
    signed_in: session.SignedIn | None,
    seat_id: int | None,
) -> Applied:
    committing = False  # the change is made: its COMMIT is what runs next
    try:
        with transaction.atomic():
            claim = _Claim.of(message)
            try:
                opened, claimed = _open(table_id, signed_in, claim, seat_id)
            except (InterfaceError, OperationalError) as exc:
                raise _NotOpened(exc) from exc
            seat = opened.seat_of(user)
            if seat_id is not None and seat.pk != seat_id:
                raise NotSeated()
            if claim is not None and not claim.made(seat, claimed):
                return Applied(REPLAYED, _views(opened, base_url))
            # The views come from what the handler left, not from the database,
            # so they are built before its writes go, with the COMMIT.
            with sql.saves_then_commit():
                result = handler(user, opened.table.pk, message.fields, opened)
                views = _views(opened, base_url)
                committing = True
            return Applied(result, views)
    except Exception as exc:
        # Only a lost connection leaves the COMMIT's outcome unknown: an error
        # the database answered (a refused statement) rolled it all back.
        if committing and isinstance(exc, (InterfaceError, OperationalError)):
            raise OutcomeUnknown() from exc
        raise


class _Claim(NamedTuple):
    """A message's id as it is recorded (``message_ids``)."""

    key: str
    type: str
    digest: str

    @classmethod
    def of(cls, message: Message) -> _Claim | None:
        if message.id is None:
            return None
        return cls(
            message_ids.message_key(message.id),
            message.type,
            message_ids.message_digest(message.type, message.fields),
        )

    def read(self, seat_id: int) -> sql.Read:
        return message_ids.message_id_claim_read(seat_id, self.key, self.type, self.digest)

    def made(self, seat: Any, claimed: bool | None) -> bool:
        """Record the id (unless ``claimed`` says how that went already):
        False when it was applied before (the same message), ``IdReused``
        when that id was another message."""
        if claimed is None:
            claimed = message_ids.message_id_claim(seat, self.key, self.type, self.digest)
        if claimed:
            return True
        seen = message_ids.message_id_seen(seat, self.key)
        if seen.type != self.type or seen.digest != self.digest:
            raise IdReused()
        return False


def _open(
    table_id: int,
    signed_in: session.SignedIn | None,
    claim: _Claim | None,
    seat_id: int | None,
) -> tuple[services.OpenTable, bool | None]:
    """The table locked and its seats read; ``SessionEnded`` first when the
    socket's session no longer signs its user in. With a claim and the
    caller's seat, on PostgreSQL, the claim is made with the seats' read:
    whether it was new (None when it is still to be made)."""
    if signed_in is None:
        return services.table_open(table_id), None
    read = session.session_read(**signed_in._asdict())
    if read is None:
        if not session.session_holds(**signed_in._asdict()):
            raise SessionEnded()
        return services.table_open(table_id), None
    more = [claim.read(seat_id)] if claim and seat_id is not None and sql.reads_together() else []
    try:
        opened, row, results = services.table_open_with(table_id, read, more)
    except TableNotFound:
        if not session.session_holds(**signed_in._asdict()):
            raise SessionEnded() from None
        raise
    if not session.session_row_holds(**signed_in._asdict(), row=row):
        raise SessionEnded()
    return opened, (results[0] if results else None)


def _views(opened: services.OpenTable, base_url: str) -> list[selectors.SeatView]:
    return selectors.seat_views(
        table=opened.table, seats=opened.seats, latest=opened.latest, base_url=base_url
    )
