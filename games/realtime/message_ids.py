"""Writes of the socket message ids: each action applied once per seat and id.

A page gives every message an ``id`` and resends unanswered ones after a
reconnect; the id is recorded in the action's own transaction
(``apply.message_apply``), so a resend finds it and nothing runs again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from .. import sql
from ..models import ClientMessage, Seat


def message_key(client_id: str | int) -> str:
    """The id as stored: its JSON (``"9"`` and ``9`` are different ids)."""
    return json.dumps(client_id, ensure_ascii=False)


def message_digest(kind: str, fields: dict[str, Any]) -> str:
    """What the message asked for, so an id reused for another message is noticed."""
    return hashlib.sha256(
        json.dumps([kind, fields], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def message_id_seen(seat: Seat, key: str) -> ClientMessage:
    return ClientMessage.objects.get(seat=seat, client_id=key)


def message_id_claim(seat: Seat, key: str, kind: str, digest: str) -> bool:
    """Record a message id for ``seat``: False when it was already recorded.
    The caller's transaction undoes it if the action fails. Both backends
    support ON CONFLICT.

    A new id then pushes the seat's oldest out past its newest
    ``CLIENT_MESSAGES_PER_SEAT`` (``message_ids_trim``): on PostgreSQL in
    the same statement (one round trip a message fewer), on SQLite, which
    has no writes in WITH, in a second one."""
    if connection.vendor == "postgresql":
        claimed: bool = sql.read_all(message_id_claim_read(seat.pk, key, kind, digest))[0]
        return claimed
    with connection.cursor() as cursor:
        cursor.execute(sql.statement(_CLAIM), _claim_values(seat.pk, key, kind, digest))
        if cursor.fetchone() is None:
            return False
    message_ids_trim(seat)
    return True


def message_id_claim_read(seat_id: int, key: str, kind: str, digest: str) -> sql.Read:
    """``message_id_claim`` on PostgreSQL as a ``sql.Read`` (True when
    claimed), for a caller to send with its other reads in one round trip
    (``apply.message_apply`` sends it with the table's seats and deal)."""
    # The DELETE sees the rows as they were before the INSERT (one
    # snapshot), so it keeps one row fewer of them: the new row is
    # the newest one kept.
    kept_before = max(settings.CLIENT_MESSAGES_PER_SEAT, 1) - 1
    return sql.Read(
        _CLAIM_AND_TRIM,
        [*_claim_values(seat_id, key, kind, digest), seat_id, seat_id, kept_before],
        lambda columns, fetched: bool(fetched),
    )


def _claim_values(seat_id: int, key: str, kind: str, digest: str) -> list[Any]:
    return [
        seat_id,
        key,
        kind,
        digest,
        ClientMessage._meta.get_field("reply").default,
        connection.ops.adapt_datetimefield_value(timezone.now()),
    ]


_CLAIM = (
    "INSERT INTO {client_message} (seat_id, client_id, type, digest, reply, created_at)"
    " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (seat_id, client_id) DO NOTHING RETURNING id"
)
_TRIM = (
    "DELETE FROM {client_message} WHERE seat_id = %s AND id <= ("
    "SELECT id FROM {client_message} WHERE seat_id = %s ORDER BY id DESC LIMIT 1 OFFSET %s)"
)
_CLAIM_AND_TRIM = (
    f"WITH claimed AS ({_CLAIM}), trimmed AS ("
    "DELETE FROM {client_message} WHERE seat_id = %s AND EXISTS (SELECT 1 FROM claimed)"
    " AND id <= (SELECT id FROM {client_message} WHERE seat_id = %s"
    " ORDER BY id DESC LIMIT 1 OFFSET %s)) SELECT id FROM claimed"
)


def message_ids_trim(seat: Seat) -> None:
    """Keep only the seat's newest ``CLIENT_MESSAGES_PER_SEAT`` ids: a socket
    sending new ids as fast as it may would otherwise store rows without end
    (5,708 from one flood) until ``upkeep.client_messages_forget``. A resend
    comes within seconds, while the page has a handful of messages
    unanswered; only a seat that applied that many newer actions meanwhile
    could lose one. Ids grow with each claim and a seat's claims are ordered
    by the table lock, so the highest ids are the newest. One statement,
    which reads at most that many rows plus one."""
    with connection.cursor() as cursor:
        cursor.execute(
            sql.statement(_TRIM), [seat.pk, seat.pk, settings.CLIENT_MESSAGES_PER_SEAT]
        )
