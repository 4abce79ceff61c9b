"""Writes of the socket message ids: each action applied once per seat and id.

A page gives every message an ``id`` and resends unanswered ones after a
reconnect; the id is recorded in the action's own transaction
(``apply.message_apply``), so a resend finds it and nothing runs again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NamedTuple

from django.conf import settings
from django.db.models import Subquery

from .. import reads
from ..models import ClientMessage, Seat
from ..services import OpenTable


def message_key(client_id: str | int) -> str:
    """The id as stored: its JSON (``"9"`` and ``9`` are different ids)."""
    return json.dumps(client_id, ensure_ascii=False)


def message_digest(kind: str, fields: dict[str, Any]) -> str:
    """What the message asked for, so an id reused for another message is noticed."""
    return hashlib.sha256(
        json.dumps([kind, fields], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


class Seen(NamedTuple):
    """What a seat's message id was recorded for, and whether the seat holds
    enough ids to be trimmed (``message_ids_read``)."""

    type: str | None  # None: the id is new
    digest: str | None
    trim: bool


def message_ids_read(seat_id: int, key: str) -> reads.Read:
    """A read of what ``key`` was recorded for at ``seat_id`` (``Seen``),
    for the caller to send with its other reads: the socket sends it with
    the table's seats, under the table's lock, which orders every claim of
    the table's seats, so the id cannot be recorded between this read and
    ``message_id_record``."""
    return reads.Read(
        _SEEN,
        [seat_id, _kept() + _slack() - 1, seat_id, key],
        lambda columns, fetched: Seen(fetched[0][0], fetched[0][1], fetched[0][2] is not None),
    )


_SEEN = (
    "SELECT m.type, m.digest, (SELECT id FROM {client_message} WHERE seat_id = %s"
    " ORDER BY id DESC LIMIT 1 OFFSET %s) FROM (SELECT 1) AS one"
    " LEFT JOIN {client_message} m ON m.seat_id = %s AND m.client_id = %s"
)


def message_id_record(
    *, opened: OpenTable, seat: Seat, key: str, kind: str, digest: str, trim: bool
) -> None:
    """Record a new message id for ``seat``: added to ``opened``'s updates,
    written with the message's own (the caller's transaction undoes it if
    the action fails). When the seat holds a quarter more than
    ``CLIENT_MESSAGES_PER_SEAT`` ids (``trim``), drop all but its newest
    ones first: a socket sending new ids as fast as it may would otherwise
    store rows without end (5,708 from one flood) until
    ``upkeep.client_messages_forget``. A resend comes within seconds, while
    the page has a handful of messages unanswered; only a seat that applied
    that many newer actions meanwhile could lose one. Ids grow with each
    claim and a seat's claims are ordered by the table lock, so the highest
    ids are the newest. The slack makes the DELETE one claim in a quarter
    of that many, not every claim once a seat has played a while."""
    if trim:
        newest = ClientMessage.objects.filter(seat=seat).order_by("-id").values("id")
        oldest_dropped = Subquery(newest[_kept() - 1 : _kept()])  # the new row is kept too
        ClientMessage.objects.filter(seat=seat, id__lte=oldest_dropped).delete()
    opened.updates.add(ClientMessage(seat=seat, client_id=key, type=kind, digest=digest))


def _kept() -> int:
    return max(settings.CLIENT_MESSAGES_PER_SEAT, 1)


def _slack() -> int:
    return max(_kept() // 4, 1)
