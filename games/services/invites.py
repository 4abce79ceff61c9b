"""Writes of a friend table's invite links, and the friend taking seat 1.

Each public function is one state transition under the table's row lock
(``transition``). A link is made with the table (``invite_make``, called by
``tables.table_start``); the host can replace or withdraw it; the friend who
follows it takes seat 1, once.
"""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from ..engine import flow
from ..engine.errors import (
    InviteExpired,
    InviteNotFound,
    InviteRevoked,
    InviteUsed,
    NoOpenInvite,
    NotHost,
    NotSeated,
    TableFull,
)
from ..models import Invite, Seat, Table
from .transition import OpenTable, flow_step, touch, transition

# What ``secrets.token_urlsafe`` makes (URL-safe base64), with room for other
# lengths. Anything else (a NUL, which PostgreSQL refuses in text, non-ASCII,
# an overlong value) is refused before it reaches the database.
INVITE_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")


def invite_make(table: Table, user: Any) -> Invite:
    """Withdraw the table's open invite, if any, and make a new one (inside a
    transition, or the transaction that makes the table)."""
    now = timezone.now()
    Invite.objects.filter(table=table, used_at__isnull=True, revoked_at__isnull=True).update(
        revoked_at=now
    )
    return Invite.objects.create(
        table=table,
        token=secrets.token_urlsafe(32),  # 256 bits
        created_by=user,
        expires_at=now + timedelta(hours=settings.INVITE_TTL_HOURS),
    )


def _check_host(held: OpenTable, user: Any) -> None:
    """Refuse unless ``user`` opened this friend table and its seat 1 is free."""
    seat = held.seat_of(user)
    if seat.number != 0:
        raise NotHost()
    if held.table.mode != Table.Mode.FRIEND:
        raise TableFull("This is a solo table: its other seat is the dealer's.")
    if held.seats[1].user_id is not None:
        raise TableFull("This table is full: your friend has already joined.")


def invite_create(*, user: Any, table_id: int, opened: OpenTable | None = None) -> Invite:
    """A new invite link for the host's friend table; the previous open link
    stops working."""
    with transition(table_id, opened) as held:
        _check_host(held, user)
        invite = invite_make(held.table, user)
        touch(held)
    return invite


def invite_revoke(*, user: Any, table_id: int, opened: OpenTable | None = None) -> Invite:
    """Withdraw the table's open invite link."""
    with transition(table_id, opened) as held:
        _check_host(held, user)
        invite = Invite.objects.filter(
            table=held.table, used_at__isnull=True, revoked_at__isnull=True
        ).first()
        if invite is None or invite.expires_at <= timezone.now():
            raise NoOpenInvite()
        invite.revoked_at = timezone.now()
        invite.save(update_fields=["revoked_at"])
        touch(held)
    return invite


def _seated(held: OpenTable, user: Any) -> bool:
    return any(seat.user_id is not None and seat.user_id == user.pk for seat in held.seats)


def _take_seat(held: OpenTable, user: Any) -> None:
    """Seat ``user`` in the empty seat 1 of a friend table (table row locked):
    the flow's ``join`` decides, and moves the table to betting."""
    already = _seated(held, user)
    flow_step(held, lambda state: flow.join(state, already_seated=already))
    seat = held.seats[1]
    seat.user = user
    seat.save(update_fields=["user"])


def table_join(*, user: Any, table_id: int, opened: OpenTable | None = None) -> Table:
    """Take the empty seat 1 of a friend table. Players come through an invite
    (``invite_accept``); this is the seating step it uses."""
    with transition(table_id, opened) as held:
        _take_seat(held, user)
    return held.table


def _table_of(token: object) -> int:
    """The id of the table a well-formed, known token invites to."""
    if not isinstance(token, str) or not INVITE_TOKEN.fullmatch(token):
        raise InviteNotFound()
    table_id = Invite.objects.filter(token=token).values_list("table_id", flat=True).first()
    if table_id is None:
        raise InviteNotFound()
    return int(table_id)


def _check_open(invite: Invite, *, seat_free: bool) -> None:
    """Refuse a link that can no longer seat anyone, saying why."""
    if not seat_free:
        raise TableFull()
    if invite.used_at is not None:
        raise InviteUsed()
    # Expiry first: a link the upkeep withdrew at its expiry still says "expired".
    if invite.expires_at <= timezone.now():
        raise InviteExpired()
    if invite.revoked_at is not None:
        raise InviteRevoked()


def invite_preview(*, token: object) -> Invite:
    """The invite a signed-out visitor holds, with its host (``created_by``),
    if it can still seat them; else the refusal ``invite_accept`` would give.
    A read, for the pages that ask the visitor to sign in or sign up first:
    ``invite_accept`` checks again, under the table's lock."""
    _table_of(token)
    invite = Invite.objects.select_related("created_by").get(token=token)
    seat_free = not Seat.objects.filter(
        table_id=invite.table_id, number=1, user__isnull=False
    ).exists()
    _check_open(invite, seat_free=seat_free)
    return invite


def invite_accept(*, user: Any, token: object) -> Table:
    """Seat ``user`` at the invite's table, once. The host, or the friend
    again, just gets the table back; anyone else finds it full."""
    if not getattr(user, "is_authenticated", False):
        raise NotSeated("Sign in or sign up to join your friend's table.")
    with transition(_table_of(token)) as held:
        invite = Invite.objects.get(token=token)  # read again under the table's lock
        if _seated(held, user):
            return held.table
        _check_open(invite, seat_free=held.seats[1].user_id is None)
        _take_seat(held, user)
        invite.used_at, invite.used_by = timezone.now(), user
        invite.save(update_fields=["used_at", "used_by"])
    return held.table
