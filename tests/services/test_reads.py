"""``games.reads``: its hand-written reads make the instances the ORM would,
sent together they give what each gives alone, it never writes, and the
system check ``games.E001`` notices a column its statements name going."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import reads, selectors, services
from games.models import Deal, Hand, Seat, Table
from tests.support import friend_table, friends_mid_deal

pytestmark = pytest.mark.django_db


def test_rows_are_the_instances_raw_would_make(player: User, friend: User) -> None:
    table = friend_table(player, friend)
    query = (
        "SELECT s.*, u.username AS user_username FROM {seat} s"
        " LEFT JOIN {user} u ON u.id = s.user_id WHERE s.table_id = %s ORDER BY s.number"
    )
    made = reads.rows(Seat, query, [table.pk])
    expected = list(Seat.objects.raw(reads.statement(query), [table.pk]))
    assert [model_to_dict(s) for s in made] == [model_to_dict(s) for s in expected]
    assert [s.user_username for s in made] == ["ada", "grace"]  # type: ignore[attr-defined]
    assert all(not s._state.adding for s in made)
    # Datetimes come back converted on every backend (SQLite stores text).
    (stored,) = reads.rows(Table, "SELECT * FROM {table} WHERE id = %s", [table.pk])
    assert stored.updated_at == Table.objects.get(pk=table.pk).updated_at
    assert stored.updated_at.tzinfo is not None


def test_a_row_saved_after_it_was_read_writes_only_its_changed_fields(player: User) -> None:
    # Instances come from from_db, so save(update_fields=...) works on them as
    # on a queryset's (the services save what they read).
    table = services.table_start(user=player, mode="solo")
    (seat,) = reads.rows(
        Seat, "SELECT * FROM {seat} WHERE table_id = %s AND number = 0", [table.pk]
    )
    seat.session_hands = 4
    seat.save(update_fields=["session_hands"])
    assert Seat.objects.get(pk=seat.pk).session_hands == 4


def test_manage_py_check_refuses_a_column_the_reads_name_that_is_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    call_command("check")  # today's models have every column named
    monkeypatch.setitem(reads.COLUMNS, "seat", [*reads.COLUMNS["seat"], "chair_id"])
    errors = reads.named_columns_exist()
    assert [e.id for e in errors] == ["games.E001"]
    assert "games.Seat.chair_id" in errors[0].msg
    with pytest.raises(SystemCheckError, match=r"games\.E001"):
        call_command("check")


def test_every_statement_it_sends_is_a_select(player: User, friend: User) -> None:
    table = friends_mid_deal(player, friend)
    with CaptureQueriesContext(connection) as captured:
        reads.read_all(
            reads.rows_read(Table, "SELECT * FROM {table} WHERE id = %s", [table.pk]),
            selectors.table_seats_read(table_id=table.pk),
            selectors.latest_deal_read(table_id=table.pk),
            selectors.other_connected_read(table_id=table.pk, seat_number=0),
        )
    statements = [s for q in captured.captured_queries for s in q["sql"].split("; ")]
    assert statements
    assert all(s.lstrip().upper().startswith("SELECT") for s in statements)


def test_column_names_are_the_names_description_gives(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    with connection.cursor() as cursor:
        cursor.execute(
            reads.statement("SELECT t.*, 1 AS extra FROM {table} t WHERE t.id = %s"), [table.pk]
        )
        assert reads.column_names(cursor)[-1] == "extra"


JOINED = (
    "SELECT {deal_columns}, h.*, a.ok AS luck_ok FROM {{deal}} d"
    " LEFT JOIN {{hand}} h ON h.deal_id = d.id LEFT JOIN {{luck_audit}} a ON a.hand_id = h.id"
    " WHERE d.table_id = %s ORDER BY d.number, h.seat_number"
)


def test_joined_rows_are_the_instances_the_orm_makes(player: User, friend: User) -> None:
    table = friends_mid_deal(player, friend)
    (deal,) = Deal.objects.filter(table=table)
    found = reads.read_all(
        reads.joined_read(
            Deal, Hand, JOINED.format(deal_columns=reads.columns_of(Deal, "d")), [table.pk]
        )
    )[0]
    assert [h.seat_number for _, h in found if h is not None] == [0, 1]
    assert len({id(d) for d, _ in found}) == 1  # both rows share one Deal instance
    assert model_to_dict(found[0][0]) == model_to_dict(deal)
    assert found[0][0].dealt_at == deal.dealt_at
    assert not found[0][0]._state.adding
    expected = Hand.objects.filter(deal=deal).order_by("seat_number")
    assert [model_to_dict(h) for _, h in found if h is not None] == [
        model_to_dict(h) for h in expected
    ]
    assert [getattr(h, "luck_ok", "missing") for _, h in found] == [None, None]


def test_a_joined_row_with_no_child_has_none(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    deal = Deal(
        table=table, number=1, stake=5, deck_order="As Kd", secret="s" * 64, commitment="c" * 64
    )
    deal.save()  # a deal with no hands yet: the outer join finds none
    found = reads.read_all(
        reads.joined_read(
            Deal, Hand, JOINED.format(deal_columns=reads.columns_of(Deal, "d")), [table.pk]
        )
    )[0]
    assert [(d.pk, h) for d, h in found] == [(deal.pk, None)]
    deal.delete()  # every deal has its two hands (the suite's ledger check)


def test_reads_sent_together_give_what_each_gives_alone(player: User, friend: User) -> None:
    table = friends_mid_deal(player, friend)
    sent = (
        reads.rows_read(Table, "SELECT * FROM {table} WHERE id = %s", [table.pk]),
        selectors.table_seats_read(table_id=table.pk),
        selectors.latest_deal_read(table_id=table.pk),
    )
    alone = [reads.read_all(read)[0] for read in sent]
    with CaptureQueriesContext(connection) as captured:
        together = reads.read_all(*sent)
    # One round trip on PostgreSQL; one after another elsewhere.
    assert len(captured.captured_queries) == {"postgresql": 1}.get(connection.vendor, 3)
    (tables, seats, (deal, hands)), (tables0, seats0, (deal0, hands0)) = together, alone
    assert [model_to_dict(t) for t in tables] == [model_to_dict(t) for t in tables0]
    assert [(model_to_dict(s), s.present) for s in seats] == [
        (model_to_dict(s), s.present) for s in seats0
    ]
    assert deal is not None
    assert deal0 is not None
    assert (model_to_dict(deal), [model_to_dict(h) for h in hands]) == (
        model_to_dict(deal0),
        [model_to_dict(h) for h in hands0],
    )
    assert len(hands) == 2
