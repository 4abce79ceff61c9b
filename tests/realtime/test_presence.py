"""A socket's heartbeat: its presence row kept fresh, and what it learns of the
other seat, in as few statements as the backend allows."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from games.engine.errors import SessionEnded, TableNotFound
from games.models import Presence, Seat
from games.realtime import presence
from games.realtime.session import SignedIn
from tests.support import friend_table

pytestmark = pytest.mark.django_db


def beat(table_id: int, seat: Seat, channel: str) -> bool:
    return presence.presence_beat(
        seat_id=seat.pk, channel_name=channel, table_id=table_id, seat_number=seat.number
    )


def seats(player: User, friend: User) -> tuple[int, Seat, Seat]:
    table = friend_table(player, friend)
    first, second = Seat.objects.filter(table=table).order_by("number")
    return table.pk, first, second


def test_a_beat_freshens_its_row_and_tells_whether_the_other_seat_is_there(
    player: User, friend: User, settings: Any
) -> None:
    table_id, ada, grace = seats(player, friend)
    old = timezone.now() - timedelta(seconds=settings.PRESENCE_TTL_SECONDS + 1)
    Presence.objects.create(seat=ada, channel_name="ada.1", last_seen=old)
    assert beat(table_id, ada, "ada.1") is False  # grace has no socket
    assert timezone.now() - Presence.objects.get(channel_name="ada.1").last_seen < timedelta(
        seconds=5
    )
    Presence.objects.create(seat=grace, channel_name="grace.1", last_seen=old)
    assert beat(table_id, ada, "ada.1") is False  # grace's row aged out
    assert beat(table_id, grace, "grace.1") is True  # ada's is fresh
    assert beat(table_id, ada, "ada.1") is True  # and now grace's


def test_a_beat_makes_its_row_again_when_it_was_dropped(player: User, friend: User) -> None:
    table_id, ada, _ = seats(player, friend)
    assert beat(table_id, ada, "ada.lost") is False
    assert Presence.objects.get(channel_name="ada.lost").seat == ada


def test_a_beat_at_a_table_that_is_gone_raises_table_not_found(
    player: User, friend: User
) -> None:
    _, ada, _ = seats(player, friend)
    with pytest.raises(TableNotFound):
        presence.presence_beat(
            seat_id=ada.pk, channel_name="ada.1", table_id=10**9, seat_number=0
        )


def test_a_beat_is_its_update_and_one_read(player: User, friend: User) -> None:
    table_id, ada, _ = seats(player, friend)
    Presence.objects.create(seat=ada, channel_name="ada.1", last_seen=timezone.now())
    with CaptureQueriesContext(connection) as captured:
        beat(table_id, ada, "ada.1")
    # Every open socket beats every 20 s: its presence's UPDATE, then the
    # other seat's presence read.
    assert len(captured.captured_queries) == 2


def signed_in(user: User) -> SignedIn:
    client = Client()
    client.force_login(user)
    return SignedIn(client.cookies["sessionid"].value, user.pk)


def test_a_beat_checks_the_sockets_session_in_the_round_trip_of_its_read(
    player: User, friend: User
) -> None:
    # An idle socket's session is checked by its heartbeat: on PostgreSQL
    # read with the other seat's presence, not in one more round trip every
    # 20 s (SQLite sends each read on its own).
    table_id, ada, _ = seats(player, friend)
    Presence.objects.create(seat=ada, channel_name="ada.1", last_seen=timezone.now())
    host = signed_in(player)
    with CaptureQueriesContext(connection) as captured:
        presence.presence_beat(
            seat_id=ada.pk, channel_name="ada.1", table_id=table_id, seat_number=0,
            signed_in=host,
        )
    assert len(captured.captured_queries) == {"postgresql": 2}.get(connection.vendor, 3)


def test_a_beat_on_an_ended_session_raises_session_ended(player: User, friend: User) -> None:
    table_id, ada, _ = seats(player, friend)
    host = signed_in(player)
    Session.objects.filter(session_key=host.session_key).delete()
    with pytest.raises(SessionEnded):
        presence.presence_beat(
            seat_id=ada.pk, channel_name="ada.1", table_id=table_id, seat_number=0,
            signed_in=host,
        )
    with pytest.raises(SessionEnded):  # another user's session is no sign-in either
        presence.presence_beat(
            seat_id=ada.pk, channel_name="ada.1", table_id=table_id, seat_number=0,
            signed_in=SignedIn(signed_in(friend).session_key, player.pk),
        )
