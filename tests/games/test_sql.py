"""``games.sql.save``: the written-once UPDATE writes what ``save(update_fields=...)`` would."""

from __future__ import annotations

from decimal import Decimal

import pytest

from accounts.models import User
from games import services, sql
from games.models import Seat, Table

pytestmark = pytest.mark.django_db


def test_it_writes_only_the_named_fields_with_their_own_conversion(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    seat = Seat.objects.get(table=table, number=0)
    seat.session_hands = 9  # changed, but not named: not written
    seat.session_luck_points = 321
    seat.session_skill = Decimal("-0.25")
    sql.save(seat, ["session_luck_points", "session_skill"])
    seat.refresh_from_db()
    assert (seat.session_hands, seat.session_luck_points, seat.session_skill) == (
        0,
        321,
        Decimal("-0.25"),
    )


def test_it_stamps_auto_now_fields_it_is_given(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    before = table.updated_at
    table.version += 1
    sql.save(table, ["version", "updated_at"])
    assert table.updated_at > before
    stored = Table.objects.get(pk=table.pk)
    assert (stored.version, stored.updated_at) == (table.version, table.updated_at)
