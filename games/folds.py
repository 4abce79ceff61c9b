"""A socket message's transaction in two round trips: BEGIN sent with its
first statement, COMMIT with its last.

Why: a socket message's transaction is otherwise four round trips on
PostgreSQL (psycopg's BEGIN, the reads under the table's lock, the writes,
Django's COMMIT), and each one, on a loaded server, is a thread that waits
for the database and then for the GIL. Measured on 2026-12-08
(docs/benchmarks.md, "Folded BEGIN and COMMIT"): the same code without
this module doubled the 500-table p99 lock→reveal.

How, with public APIs only: ``atomic`` is Django's ``transaction.atomic``
(its rollback on error, its savepoints, its on-commit callbacks) in which
the psycopg connection is put back in autocommit (``Connection.autocommit``),
so psycopg sends no BEGIN of its own. A ``connection.execute_wrapper``
prepends ``BEGIN;`` to the block's first statement, and ``Fold.last``
appends ``; COMMIT`` to the statement its caller says is the last. When the
block ends Django commits, and psycopg's ``commit()`` finds the transaction
already ended and sends nothing; when the block raises, Django rolls back
what is open (psycopg's ``rollback()``).

Guards: the wrapper refuses any statement after the COMMIT (it would run
outside the transaction); a block nested in another transaction, SQLite, or
psycopg's server-side binding (which takes one statement an execute) get a
plain ``transaction.atomic`` and no fold (``atomic`` yields None); the system
check ``games.E003`` refuses PostgreSQL through psycopg2, which steps
through no second result of an execute (``games.reads.read_all`` needs
that too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.core.checks import CheckMessage, Error
from django.db import connection, transaction

from . import reads


class StatementAfterCommit(RuntimeError):
    """A statement ran in a folded block after its COMMIT was sent."""


class Fold:
    """The state of one folded block: whether its BEGIN and its COMMIT
    have gone."""

    def __init__(self) -> None:
        self.begun = False
        self.committing = False
        self.committed = False

    def last(self, sql: str) -> str:
        """``sql`` with the block's COMMIT after it: the caller sends no
        statement in this block after it."""
        self.committing = True
        return f"{sql}; COMMIT"

    def wrap(
        self,
        execute: Callable[..., Any],
        sql: str,
        params: Any,
        many: bool,
        context: dict[str, Any],
    ) -> Any:
        """The ``connection.execute_wrapper``: BEGIN before the first
        statement, nothing after the COMMIT."""
        if self.committed:
            raise StatementAfterCommit(f"A statement ran after its COMMIT: {sql[:80]}")
        self.committed = self.committing
        if self.begun:
            return execute(sql, params, many, context)
        self.begun = True
        cursor = context["cursor"].cursor
        if many:  # executemany takes one statement
            cursor.execute("BEGIN")
            return execute(sql, params, many, context)
        result = execute(f"BEGIN; {sql}", params, many, context)
        cursor.nextset()  # past BEGIN's result, to the caller's first
        return result


def foldable() -> bool:
    """Whether a block opened now can be folded: outside any transaction,
    where several statements go in one execute (``reads.reads_together``:
    PostgreSQL with psycopg's client-side binding, Django's default)."""
    return reads.reads_together() and not connection.in_atomic_block


@contextmanager
def atomic() -> Iterator[Fold | None]:
    """``transaction.atomic()``, folded when it can be (``foldable``): the
    ``Fold`` to give the last statement to, or None (send it as it is)."""
    if not foldable():
        with transaction.atomic():
            yield None
        return
    with transaction.atomic():  # connected, and Django's autocommit off
        connection.connection.autocommit = True  # our BEGIN, not psycopg's
        fold = Fold()
        with connection.execute_wrapper(fold.wrap):
            yield fold


def psycopg_3_in_use(**kwargs: Any) -> list[CheckMessage]:
    """System check ``games.E003`` (``manage.py check`` and every start): on
    PostgreSQL the driver is psycopg 3, as ``pyproject.toml`` pins it."""
    driver = getattr(getattr(connection, "Database", None), "__name__", "")
    if connection.vendor != "postgresql" or driver == "psycopg":
        return []
    return [
        Error(
            f"PostgreSQL is reached through {driver}, not psycopg 3:"
            " games.folds and games.reads send several statements in one execute and read"
            " each one's result (Cursor.nextset), which only psycopg 3 does.",
            hint="Install the locked dependencies (make setup): psycopg[binary,pool] 3.",
            id="games.E003",
        )
    ]
