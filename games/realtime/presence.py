"""Writes of the sockets' presence: which seats have a socket open.

Presence is the one exception to locking the table row: each open socket
owns one ``Presence`` row that only it writes, no rule depends on it, and a
heartbeat or a close must never wait behind a settlement. Only a socket's
connect takes the lock (``presence_connect``: which changes count it).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from .. import reads, selectors
from ..engine.errors import SessionEnded, TooManySockets
from ..models import Presence
from ..services import table_lock
from . import session


def presence_connect(
    *, table_id: int, seat_id: int, channel_name: str, gone: Collection[str] = ()
) -> None:
    """Count a newly opened socket of a seat; drop rows that aged out, and
    the rows of ``gone``: sockets the caller's process has closed whose own
    delete has not been done yet (it is retried while the database is away),
    so that they do not count. ``TooManySockets`` (nothing written) when its
    user already has ``SOCKETS_PER_USER`` sockets counted, at any table.

    Under the table's lock, so it is ordered with the table's changes: a change
    either counts this socket among its seat's (and pushes it the new view,
    ``games.realtime.consumer``) or has committed before the socket's first read."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.PRESENCE_TTL_SECONDS)
    with transaction.atomic():
        table_lock(table_id)
        Presence.objects.filter(seat_id=seat_id, last_seen__lt=stale).delete()
        if gone:
            Presence.objects.filter(channel_name__in=gone).delete()
        _check_socket_count(seat_id, channel_name, stale)
        Presence.objects.update_or_create(
            channel_name=channel_name, defaults={"seat_id": seat_id, "last_seen": now}
        )


def _check_socket_count(seat_id: int, channel_name: str, stale: Any) -> None:
    """Refuse one more socket to a user who has ``SOCKETS_PER_USER`` open
    (250 on one seat slowed every other table's answers from 16 ms to 2.2 s).
    The user's row is locked, so connects to different tables are counted
    one after another too (the table lock orders only one table's)."""
    of = ("self",) if connection.features.has_select_for_update_of else ()
    users = get_user_model().objects.select_for_update(of=of)
    user_id = users.filter(seats__pk=seat_id).values_list("pk", flat=True).first()
    if user_id is None:
        return
    open_now = (
        Presence.objects.filter(seat__user_id=user_id, last_seen__gte=stale)
        .exclude(channel_name=channel_name)
        .count()
    )
    if open_now >= settings.SOCKETS_PER_USER:
        raise TooManySockets()


def presence_heartbeat(*, seat_id: int, channel_name: str) -> None:
    """Keep an open socket counted (its row is made again if it was dropped)."""
    now = timezone.now()
    if not Presence.objects.filter(channel_name=channel_name).update(last_seen=now):
        Presence.objects.update_or_create(
            channel_name=channel_name, defaults={"seat_id": seat_id, "last_seen": now}
        )


def presence_beat(
    *,
    seat_id: int,
    channel_name: str,
    table_id: int,
    seat_number: int,
    signed_in: session.SignedIn | None = None,
) -> bool:
    """A heartbeat: ``presence_heartbeat``, then whether the seat facing
    ``seat_number`` is connected (``selectors.other_connected``).
    ``signed_in``: ``SessionEnded`` when that session no longer signs its
    user in (an idle socket notices within a beat). The session's read and
    the other seat's go in one round trip on PostgreSQL (``reads.read_all``)."""
    read = None if signed_in is None else session.session_read(**signed_in._asdict())
    if signed_in is not None and read is None and not session.session_holds(**signed_in._asdict()):
        raise SessionEnded()
    presence_heartbeat(seat_id=seat_id, channel_name=channel_name)
    other = selectors.other_connected_read(table_id=table_id, seat_number=seat_number)
    connected, *row = reads.read_all(other, *([] if read is None else [read]))
    if read is not None and not session.session_row_holds(**signed_in._asdict(), row=row[0]):  # type: ignore[union-attr]
        raise SessionEnded()
    return bool(connected)


def presence_disconnect(*, channel_name: str) -> None:
    Presence.objects.filter(channel_name=channel_name).delete()
