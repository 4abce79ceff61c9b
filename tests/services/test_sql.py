"""``games.sql``: the written-once UPDATE writes what ``save(update_fields=...)``
would, and ``rows`` makes the instances ``raw`` would."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection
from django.db.models import Model, signals
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import selectors, services, sql
from games.models import ClientMessage, Deal, Hand, Invite, LuckAudit, Presence, Seat, Table
from tests.support import friend_table, friends_mid_deal

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


def test_manage_py_check_refuses_a_hook_sql_would_skip() -> None:
    # The guard is the system check every start runs, not only this file.
    assert sql.unguarded_writes() == []

    def receiver(**kwargs: object) -> None:  # pragma: no cover - never sent
        pass

    signals.post_save.connect(receiver, sender=Deal, weak=False)
    try:
        with pytest.raises(SystemCheckError, match=r"games\.E001.*Deal has post_save receivers"):
            call_command("check")
    finally:
        signals.post_save.disconnect(receiver, sender=Deal)


def test_the_check_refuses_a_field_the_database_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    field = Seat._meta.get_field("stack")
    monkeypatch.setattr(field, "db_default", 1000)
    assert [e.id for e in sql.unguarded_writes()] == ["games.E001"]
    assert "Seat.stack is set by the database" in sql.unguarded_writes()[0].msg


@pytest.mark.parametrize(
    "model",
    [Table, Seat, Deal, Hand, ClientMessage, LuckAudit, Presence, User],
    ids=lambda m: m.__name__,
)
def test_rows_made_without_init_are_what_from_db_makes(model: type[Model]) -> None:
    # ``rows`` skips ``Model.__init__`` for a model with no init hooks: the
    # instance must be the one ``from_db`` makes, field for field, with the
    # same state (a field whose descriptor did more on set would differ).
    assert sql.init_hooks(model) == []
    fields = model._meta.concrete_fields
    columns = tuple(f.column for f in fields)
    row = [7 if f.primary_key else None for f in fields]
    made = sql._instance(model, sql._mapping(model, columns, connection.ops), row)
    expected = model.from_db(connection.alias, [f.attname for f in fields], row)
    assert {k: v for k, v in vars(made).items() if k != "_state"} == {
        k: v for k, v in vars(expected).items() if k != "_state"
    }
    assert (made._state.adding, made._state.db) == (False, connection.alias)
    assert made == expected
    assert made.pk == 7


def test_a_model_with_an_init_hook_is_made_through_from_db(player: User, friend: User) -> None:
    table = friend_table(player, friend)
    made: list[Seat] = []

    def receiver(instance: Seat, **kwargs: object) -> None:
        made.append(instance)

    signals.post_init.connect(receiver, sender=Seat, weak=False)
    sql._mapping.cache_clear()  # hooks are looked at once per statement's shape
    try:
        assert sql.init_hooks(Seat) == ["Seat has post_init receivers"]
        seats = sql.rows(Seat, "SELECT * FROM {seat} WHERE table_id = %s", [table.pk])
    finally:
        signals.post_init.disconnect(receiver, sender=Seat)
        sql._mapping.cache_clear()
    assert made == seats
    assert len(seats) == 2


def test_it_refuses_to_write_a_model_outside_its_list(player: User) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = Invite.objects.get(table=table)
    with pytest.raises(TypeError, match="does not write Invite rows"):
        sql.save(invite, ["revoked_at"])


def test_insert_writes_the_rows_bulk_create_would(player: User) -> None:
    # Two solo tables: a table has one open deal at a time.
    tables = [services.table_start(user=player, mode="solo") for _ in range(2)]

    def deal_and_hands(table: Table) -> tuple[Deal, list[Hand]]:
        deal = Deal(table=table, number=1, stake=5, deck_order="As Kd", secret="s" * 64,
                    commitment="c" * 64)
        seats = Seat.objects.filter(table=table).order_by("number")
        return deal, [Hand(deal=deal, seat=s, seat_number=s.number, cards="As Kd Qh Jc Ts 9h 8d")
                      for s in seats]

    (ours, ours_hands), (theirs, their_hands) = map(deal_and_hands, tables)
    sql.insert([ours])
    sql.insert(ours_hands)
    Deal.objects.bulk_create([theirs])
    Hand.objects.bulk_create(their_hands)
    assert ours.pk is not None
    assert (ours._state.adding, ours._state.db) == (False, "default")
    assert ours.dealt_at is not None  # auto_now_add stamped, as bulk_create does
    assert [h.pk for h in ours_hands] == [
        h.pk for h in Hand.objects.filter(deal=ours).order_by("seat_number")
    ]

    def stored(row: Model, *skip: str) -> dict[str, object]:
        fields = model_to_dict(type(row).objects.get(pk=row.pk))
        return {k: v for k, v in fields.items() if k not in ("id", *skip)}

    assert stored(ours, "table", "dealt_at") == stored(theirs, "table", "dealt_at")
    assert [stored(h, "deal", "seat") for h in ours_hands] == [
        stored(h, "deal", "seat") for h in their_hands
    ]


def test_insert_refuses_a_model_outside_its_list_or_a_mixed_batch(player: User) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = Invite.objects.get(table=table)
    with pytest.raises(TypeError, match="does not write Invite rows"):
        sql.insert([invite])
    with pytest.raises(TypeError, match="does not write Table rows"):
        sql.insert([table, invite])


def test_column_names_are_the_names_description_gives(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    with connection.cursor() as cursor:
        cursor.execute(
            sql.statement("SELECT t.*, 1 AS extra FROM {table} t WHERE t.id = %s"), [table.pk]
        )
        assert sql.column_names(cursor) == tuple(c[0] for c in cursor.description)
        assert sql.column_names(cursor)[-1] == "extra"


JOINED = (
    "SELECT {deal_columns}, h.*, a.ok AS luck_ok FROM {{deal}} d"
    " LEFT JOIN {{hand}} h ON h.deal_id = d.id LEFT JOIN {{luck_audit}} a ON a.hand_id = h.id"
    " WHERE d.table_id = %s ORDER BY d.number, h.seat_number"
)


def test_joined_rows_are_the_instances_the_orm_makes(player: User, friend: User) -> None:
    table = friends_mid_deal(player, friend)
    (deal,) = Deal.objects.filter(table=table)
    found = sql.joined(Deal, Hand, JOINED.format(deal_columns=sql.columns_of(Deal, "d")),
                       [table.pk])
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
    deal = Deal(table=table, number=1, stake=5, deck_order="As Kd", secret="s" * 64,
                commitment="c" * 64)
    sql.insert([deal])  # a deal with no hands yet: the outer join finds none
    found = sql.joined(Deal, Hand, JOINED.format(deal_columns=sql.columns_of(Deal, "d")),
                       [table.pk])
    assert [(d.pk, h) for d, h in found] == [(deal.pk, None)]
    deal.delete()  # every deal has its two hands (the suite's ledger check)


def test_saves_together_write_each_row_once_when_the_block_ends(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    seat = Seat.objects.get(table=table, number=0)
    again = Seat.objects.get(pk=seat.pk)  # another object for the same row
    with CaptureQueriesContext(connection) as captured, sql.saves_together():
        seat.session_hands, seat.session_luck_points = 3, 30
        sql.save(seat, ["session_hands", "session_luck_points"])
        again.session_luck_points = 40  # the later save's value wins, as it would in order
        sql.save(again, ["session_luck_points"])
        table.version += 1
        sql.save(table, ["version"])
        with sql.saves_together():  # inside another: part of it
            sql.save(table, ["updated_at"])
        assert captured.captured_queries == []  # nothing written yet
    stored = Seat.objects.get(pk=seat.pk)
    assert (stored.session_hands, stored.session_luck_points) == (3, 40)
    assert Table.objects.get(pk=table.pk).version == table.version
    # Two rows: one statement on PostgreSQL, one UPDATE a row elsewhere.
    assert len(captured.captured_queries) == {"postgresql": 1}.get(connection.vendor, 2)


def test_saves_together_write_nothing_when_the_block_raises(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    seat = Seat.objects.get(table=table, number=0)

    def refused() -> None:
        with sql.saves_together():
            seat.session_hands = 5
            sql.save(seat, ["session_hands"])
            raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        refused()
    assert Seat.objects.get(pk=seat.pk).session_hands == 0
    sql.save(seat, ["session_hands"])  # and the next save outside writes at once
    assert Seat.objects.get(pk=seat.pk).session_hands == 5


def test_reads_sent_together_give_what_each_gives_alone(player: User, friend: User) -> None:
    table = friends_mid_deal(player, friend)
    reads = (
        sql.rows_read(Table, "SELECT * FROM {table} WHERE id = %s", [table.pk]),
        selectors.table_seats_read(table_id=table.pk),
        selectors.latest_deal_read(table_id=table.pk),
    )
    alone = [sql.read_all(read)[0] for read in reads]
    with CaptureQueriesContext(connection) as captured:
        together = sql.read_all(*reads)
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
        model_to_dict(deal0), [model_to_dict(h) for h in hands0]
    )
    assert len(hands) == 2
