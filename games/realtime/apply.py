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

from django.db import InterfaceError, OperationalError, connection

from .. import folds, reads, selectors, services
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
    (``SessionEnded`` if not: nothing runs), read in the round trip that
    reads the seats under the table's lock. When the transaction's first
    statement finds the thread's connection dead (PostgreSQL restarted),
    nothing has run: the message is applied once more on a new connection,
    as ``db_threads.reconnecting`` does for a read. A failure from the COMMIT
    on (the database lost while committing, an on-commit callback failing)
    raises ``OutcomeUnknown``: the change may have committed, and only a
    resend with the same id can tell. A failure before it rolled back:
    nothing changed.

    ``seat_id``: the seat the caller knows ``user`` holds (the socket's); a
    seat that turns out not to be ``user``'s refuses the message
    (``NotSeated``). With it, what the id was recorded for is read in the
    round trip that reads the seats; a new id is then written with the
    change's own saves (``services.updates``), in the same transaction."""
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
        with folds.atomic() as fold:
            claim = _Claim.of(message)
            try:
                opened, seen = _open(table_id, signed_in, claim, seat_id)
            except (InterfaceError, OperationalError) as exc:
                raise _NotOpened(exc) from exc
            seat = opened.seat_of(user)
            if seat_id is not None and seat.pk != seat_id:
                raise NotSeated()
            if claim is not None and not claim.made(opened, seat, seen):
                return Applied(REPLAYED, _views(opened, base_url))
            result = handler(user, opened.table.pk, message.fields, opened)
            views = _views(opened, base_url)  # from what the handler left
            committing = True  # the next statement commits (or leaving the block)
            opened.updates.send(fold)  # the id's row, the handler's saves, COMMIT
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

    def read(self, seat_id: int) -> reads.Read:
        return message_ids.message_ids_read(seat_id, self.key)

    def made(self, opened: services.OpenTable, seat: Any, seen: message_ids.Seen | None) -> bool:
        """Record the id (``seen``: what the seat's read found for it, None
        when it is still to be read): False when it was applied before (the
        same message), ``IdReused`` when that id was another message."""
        if seen is None:
            seen = reads.read_all(self.read(seat.pk))[0]
        if seen.type is None:
            message_ids.message_id_record(
                opened=opened, seat=seat, key=self.key, kind=self.type, digest=self.digest,
                trim=seen.trim,
            )
            return True
        if seen.type != self.type or seen.digest != self.digest:
            raise IdReused()
        return False


def _open(
    table_id: int,
    signed_in: session.SignedIn | None,
    claim: _Claim | None,
    seat_id: int | None,
) -> tuple[services.OpenTable, message_ids.Seen | None]:
    """The table locked and its seats read; ``SessionEnded`` first when the
    socket's session no longer signs its user in. The session's read and,
    with the caller's seat, what the message's id was recorded for go in the
    round trip that reads the seats (``services.table_open_with``): what
    the id's read found (None when it is still to be read)."""
    read = None if signed_in is None else session.session_read(**signed_in._asdict())
    if signed_in is not None and read is None and not session.session_holds(**signed_in._asdict()):
        raise SessionEnded()
    more = [] if read is None else [read]
    if claim is not None and seat_id is not None:
        more.append(claim.read(seat_id))
    try:
        opened, results = services.table_open_with(table_id, more)
    except TableNotFound:
        if signed_in is not None and not session.session_holds(**signed_in._asdict()):
            raise SessionEnded() from None
        raise
    if read is not None:
        row = results.pop(0)
        if not session.session_row_holds(**signed_in._asdict(), row=row):  # type: ignore[union-attr]
            raise SessionEnded()
    return opened, (results[0] if results else None)


def _views(opened: services.OpenTable, base_url: str) -> list[selectors.SeatView]:
    return selectors.seat_views(
        table=opened.table, seats=opened.seats, latest=opened.latest, base_url=base_url
    )
