"""``games.sql``: the written-once UPDATE writes what ``save(update_fields=...)``
would, and ``rows`` makes the instances ``raw`` would."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db.models import Model, signals
from django.forms.models import model_to_dict

from accounts.models import User
from games import services, sql
from games.models import Hand, Invite, Seat, Table
from tests.support import friend_table

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


def test_rows_are_the_instances_raw_would_make(player: User, friend: User) -> None:
    table = friend_table(player, friend)
    query = (
        "SELECT s.*, u.username AS user_username FROM {seat} s"
        " LEFT JOIN {user} u ON u.id = s.user_id WHERE s.table_id = %s ORDER BY s.number"
    )
    made = sql.rows(Seat, query, [table.pk])
    expected = list(Seat.objects.raw(sql.statement(query), [table.pk]))
    assert [model_to_dict(s) for s in made] == [model_to_dict(s) for s in expected]
    assert [s.user_username for s in made] == ["ada", "grace"]  # type: ignore[attr-defined]
    assert all(not s._state.adding for s in made)
    # Datetimes come back converted on every backend (SQLite stores text).
    (stored,) = sql.rows(Table, "SELECT * FROM {table} WHERE id = %s", [table.pk])
    assert stored.updated_at == Table.objects.get(pk=table.pk).updated_at
    assert stored.updated_at.tzinfo is not None


@pytest.mark.parametrize("model", sql.WRITES, ids=lambda m: m.__name__)
def test_no_model_it_writes_has_a_save_override_or_a_save_signal(model: type[Model]) -> None:
    # sql.save skips Model.save: an override or a receiver added to one of
    # these models would silently not run for the rows every deal writes.
    assert sql.skipped_hooks(model) == []


def test_the_check_notices_a_save_receiver_and_a_save_override(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def receiver(**kwargs: object) -> None:  # pragma: no cover - never sent
        pass

    signals.post_save.connect(receiver, sender=Hand, weak=False)
    try:
        assert sql.skipped_hooks(Hand) == ["Hand has post_save receivers"]
    finally:
        signals.post_save.disconnect(receiver, sender=Hand)
    monkeypatch.setattr(Table, "save", lambda self, *args, **kwargs: None)
    assert sql.skipped_hooks(Table) == ["Table.save is overridden"]


def test_it_refuses_to_write_a_model_outside_its_list(player: User) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = Invite.objects.get(table=table)
    with pytest.raises(TypeError, match="does not write Invite rows"):
        sql.save(invite, ["revoked_at"])
