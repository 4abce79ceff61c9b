"""``games.folds``: a folded block is Django's ``transaction.atomic`` in two
round trips on PostgreSQL, and still one transaction: what fails before its
COMMIT changes nothing, on-commit callbacks run only after it, nothing runs
after it, and the connection is left as Django thinks it is."""

from __future__ import annotations

import types
from typing import Any

import psycopg
import pytest
from django.db import IntegrityError, connection, transaction

from accounts.models import User
from games import folds
from games.models import Table
from tests.support import friend_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="folded on PostgreSQL only"),
]


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement psycopg was given, and every command it sent of its
    own (its BEGIN, COMMIT, ROLLBACK), in order."""
    sent: list[str] = []
    own_command = psycopg.Connection._exec_command
    own_execute = psycopg.ClientCursor.execute

    def exec_command(self: Any, command: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(bytes(command).decode())
        return own_command(self, command, *args, **kwargs)

    def execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query))
        return own_execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "_exec_command", exec_command)
    monkeypatch.setattr(psycopg.ClientCursor, "execute", execute)
    return sent


def deals_count(table: Table) -> int:
    return Table.objects.get(pk=table.pk).deals_count


def set_deals_count(fold: folds.Fold | None, table: Table, value: int) -> None:
    """The block's last statement: an UPDATE that carries its COMMIT."""
    update = 'UPDATE "games_table" SET deals_count = %s WHERE id = %s'
    with connection.cursor() as cursor:
        cursor.execute(update if fold is None else fold.last(update), [value, table.pk])


def test_a_folded_block_is_two_round_trips_that_begin_and_commit_it(
    player: User, friend: User, wire: list[str]
) -> None:
    table = friend_table(player, friend)
    wire.clear()
    with folds.atomic() as fold:
        assert fold is not None
        locked = Table.objects.select_for_update().get(pk=table.pk)
        set_deals_count(fold, locked, 5)
    assert len(wire) == 2
    assert wire[0].startswith("BEGIN; SELECT ")
    assert wire[0].endswith(" FOR UPDATE")
    assert wire[1].startswith('UPDATE "games_table"')
    assert wire[1].endswith("; COMMIT")
    assert deals_count(table) == 5
    raw = connection.connection
    assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    assert raw.autocommit is connection.get_autocommit() is True


def test_a_failure_before_the_commit_rolls_the_whole_block_back(
    player: User, friend: User, wire: list[str]
) -> None:
    table = friend_table(player, friend)
    committed: list[int] = []

    def fails_before_the_commit() -> None:
        with folds.atomic():
            Table.objects.filter(pk=table.pk).update(deals_count=3)
            transaction.on_commit(lambda: committed.append(1))
            raise RuntimeError("before the commit")

    with pytest.raises(RuntimeError, match="before the commit"):
        fails_before_the_commit()
    assert wire[-1] == "ROLLBACK"
    assert deals_count(table) == 0
    assert not committed
    with folds.atomic() as fold:  # and the connection goes on
        set_deals_count(fold, table, 2)
    assert deals_count(table) == 2


def test_the_last_statement_refused_rolls_back_and_runs_no_callback(
    player: User, friend: User
) -> None:
    table = friend_table(player, friend)
    other = friend_table(friend, player)
    committed: list[int] = []

    def last_statement_refused() -> None:
        with folds.atomic() as fold:
            assert fold is not None
            Table.objects.filter(pk=table.pk).update(deals_count=4)
            transaction.on_commit(lambda: committed.append(1))
            taken_id = 'UPDATE "games_table" SET id = %s WHERE id = %s'
            with connection.cursor() as cursor:
                cursor.execute(fold.last(taken_id), [other.pk, table.pk])

    with pytest.raises(IntegrityError):
        last_statement_refused()
    assert deals_count(table) == 0
    assert not committed
    assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_on_commit_callbacks_run_once_the_commit_went(player: User, friend: User) -> None:
    table = friend_table(player, friend)
    seen: list[int] = []
    with folds.atomic() as fold:
        transaction.on_commit(lambda: seen.append(deals_count(table)))
        set_deals_count(fold, table, 7)
        assert not seen
    assert seen == [7]


def test_a_statement_after_the_commit_is_refused(player: User, friend: User) -> None:
    table = friend_table(player, friend)

    def one_more_after_the_commit() -> None:
        with folds.atomic() as fold:
            set_deals_count(fold, table, 6)
            Table.objects.filter(pk=table.pk).update(deals_count=8)

    with pytest.raises(folds.StatementAfterCommit):
        one_more_after_the_commit()
    assert deals_count(table) == 6  # what committed stays; what came after never ran


def test_a_block_with_no_last_statement_is_committed_by_django(
    player: User, friend: User, wire: list[str]
) -> None:
    table = friend_table(player, friend)
    wire.clear()
    with folds.atomic():
        Table.objects.filter(pk=table.pk).update(deals_count=9)
    assert wire[0].startswith("BEGIN; UPDATE ")
    assert wire[-1] == "COMMIT"
    assert deals_count(table) == 9


def test_a_block_inside_a_transaction_is_not_folded(
    player: User, friend: User, wire: list[str]
) -> None:
    table = friend_table(player, friend)
    with transaction.atomic():
        with folds.atomic() as fold:
            assert fold is None
            set_deals_count(fold, table, 1)
        transaction.set_rollback(True)
    assert not any(sent.startswith("BEGIN;") or sent.endswith("; COMMIT") for sent in wire)
    assert deals_count(table) == 0  # it was part of the outer one


def test_the_system_check_refuses_a_driver_that_reads_one_result_an_execute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert folds.psycopg_3_in_use() == []
    monkeypatch.setattr(connection, "Database", types.ModuleType("psycopg2"))
    errors = folds.psycopg_3_in_use()
    assert [e.id for e in errors] == ["games.E003"]
    assert "psycopg2" in errors[0].msg
