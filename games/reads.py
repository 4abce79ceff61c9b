"""The hand-written reads of the paths every socket message takes.

Contract: this module reads. It never writes and never opens, commits or
ends a transaction; the caller's ``transaction.atomic`` does that, and every
write goes through the ORM (``save(update_fields=...)``, ``bulk_create``,
``QuerySet.update``).

Why it exists: a socket message reads the table's seats, the latest deal with
its hands, the socket's session and its message id (and every view reads the
same again). On PostgreSQL ``read_all`` sends those SELECTs in one round trip
(psycopg's client-side binding takes several statements in one execute), and
they are written once, not compiled as querysets on every message. Rows
become model instances through ``Model.from_db`` and the ORM's own database
converters (each field's and the backend's), so they are the instances a
queryset would make. What the statements name by hand (the columns in their
joins and conditions) is checked by the system check ``games.E001`` at every
start; the rest is read from the models' own meta.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Any, NamedTuple, TypeVar

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.checks import CheckMessage, Error
from django.db import connection
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import Model
from django.db.models.expressions import Col

M = TypeVar("M", bound=Model)
N = TypeVar("N", bound=Model)
Converter = Callable[[Any, Any, Any], Any]

# The placeholders a template may use, by model label (``statement``).
TABLES = {
    "table": "games.Table",
    "seat": "games.Seat",
    "deal": "games.Deal",
    "hand": "games.Hand",
    "presence": "games.Presence",
    "client_message": "games.ClientMessage",
    "luck_audit": "games.LuckAudit",
    "session": "sessions.Session",
}

# Every column the statements here and in their callers name by hand, by
# placeholder (``{seat}``...). Renaming one of these fields breaks a read
# that no type checker sees: the system check ``games.E001`` says which.
COLUMNS = {
    "table": ["id"],
    "seat": ["id", "table_id", "user_id", "number", "is_dealer"],
    "deal": ["id", "table_id", "number"],
    "hand": ["id", "deal_id", "seat_number"],
    "presence": ["seat_id", "last_seen"],
    "client_message": ["id", "seat_id", "client_id", "type", "digest"],
    "luck_audit": ["hand_id", "ok"],
    "session": ["session_key", "session_data", "expire_date"],
    "user": ["id", "username", "password", "is_active"],
}


def _model(name: str) -> type[Model]:
    return get_user_model() if name == "user" else apps.get_model(TABLES[name])


@cache
def statement(template: str) -> str:
    """``template`` with each ``{name}`` of ``TABLES`` (and ``{user}``)
    replaced by the quoted table name (built once per statement: the names do
    not change while the process runs)."""
    quote = connection.ops.quote_name
    names = {name: quote(_model(name)._meta.db_table) for name in [*TABLES, "user"]}
    return template.format(**names)


def named_columns_exist(**kwargs: Any) -> list[CheckMessage]:
    """System check ``games.E001``: every column ``COLUMNS`` says a
    hand-written read names is a column of its model."""
    missing = []
    for name, columns in COLUMNS.items():
        model = _model(name)
        present = {f.column for f in model._meta.concrete_fields}
        missing += [f"{model._meta.label}.{c}" for c in columns if c not in present]
    return [
        Error(
            f"games.reads names the column {column}, which its model no longer has.",
            hint="Change the statements in games/reads.py and games/selectors.py that name it"
            " (and games.reads.COLUMNS).",
            id="games.E001",
        )
        for column in missing
    ]


def columns_of(model: type[Model], alias: str) -> str:
    """Every column of ``model``'s concrete fields, in field order, each
    qualified by ``alias``: the first part of a ``joined_read`` statement."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(str(f.column))}" for f in model._meta.concrete_fields)


class Read(NamedTuple):
    """A statement (a ``statement`` template), its parameters, and how its
    column names and rows become what the caller wants."""

    template: str
    params: Sequence[Any]
    build: Callable[[tuple[str, ...], list[Any]], Any]


def read_all(*reads: Read) -> list[Any]:
    """Each read's result, in order. On PostgreSQL, with Django's client-side
    binding, all are sent in one execute, one round trip (each statement
    sees the database as it begins, after the ones before it); elsewhere one
    after another."""
    if len(reads) == 1 or not reads_together():
        return [read.build(*_fetch(read.template, read.params)) for read in reads]
    with connection.cursor() as cursor:
        cursor.execute(
            "; ".join(statement(read.template) for read in reads),
            [param for read in reads for param in read.params],
        )
        results: list[Any] = []
        for read in reads:
            if results and not cursor.nextset():
                raise RuntimeError("a statement sent with others returned no result")
            results.append(read.build(column_names(cursor), cursor.fetchall()))
    return results


def reads_together() -> bool:
    """Whether ``read_all`` sends its statements at once. (Several in one
    execute need psycopg's client-side binding, Django's default;
    ``server_side_binding`` sends one prepared statement.)"""
    options = connection.settings_dict.get("OPTIONS") or {}
    return connection.vendor == "postgresql" and not options.get("server_side_binding")


def _fetch(template: str, params: Sequence[Any]) -> tuple[tuple[str, ...], list[Any]]:
    with connection.cursor() as cursor:
        cursor.execute(statement(template), params)
        return column_names(cursor), cursor.fetchall()


def column_names(cursor: Any) -> tuple[str, ...]:
    """The names of the columns of ``cursor``'s result (a Django cursor). On
    psycopg, from its result (``Cursor.pgresult``, ``PGresult.fname``):
    ``description`` makes a ``Column`` with its type looked up for every
    column on every call, about 0.2 ms of a socket message's reads."""
    result = getattr(cursor.cursor, "pgresult", None)
    if result is not None:
        return tuple(result.fname(i).decode() for i in range(result.nfields))
    return tuple(str(c[0]) for c in cursor.description)


def value_read(template: str, params: Sequence[Any]) -> Read:
    """A read of at most one row, as a tuple (None when there is none)."""
    return Read(template, params, lambda columns, fetched: tuple(fetched[0]) if fetched else None)


def rows(model: type[M], template: str, params: Sequence[Any]) -> list[M]:
    """``model.objects.raw(statement(template), params)``, as a list: the same
    instances (``from_db``, the same database converters); columns that are
    no field of ``model`` become attributes, as ``raw`` does."""
    found: list[M] = read_all(rows_read(model, template, params))[0]
    return found


def rows_read(model: type[M], template: str, params: Sequence[Any]) -> Read:
    """``rows`` as a ``Read``, for ``read_all``."""

    def build(columns: tuple[str, ...], fetched: list[Any]) -> list[M]:
        mapping = _mapping(model, columns, connection.ops)
        return [_instance(model, mapping, row) for row in fetched]

    return Read(template, params, build)


def joined_read(first: type[M], second: type[N], template: str, params: Sequence[Any]) -> Read:
    """Rows of two models from one statement, as ``(first, second)`` pairs:
    each row's first columns are ``first``'s (``columns_of(first, alias)``,
    exactly those), the rest ``second``'s as ``rows`` reads them. ``second``
    is None where its id is NULL (an outer join found none); rows of
    ``first`` with the same id are one instance."""
    return Read(template, params, lambda columns, fetched: _joined(first, second, columns, fetched))


def _joined(
    first: type[M], second: type[N], columns: tuple[str, ...], fetched: list[Any]
) -> list[tuple[M, N | None]]:
    split = len(first._meta.concrete_fields)
    head = _mapping(first, columns[:split], connection.ops)
    tail = _mapping(second, columns[split:], connection.ops)
    head_pk = columns[:split].index(first._meta.pk.column)
    tail_pk = columns[split:].index(second._meta.pk.column)
    parents: dict[Any, M] = {}
    found: list[tuple[M, N | None]] = []
    for row in fetched:
        parent = parents.get(row[head_pk])
        if parent is None:
            parent = parents[row[head_pk]] = _instance(first, head, row[:split])
        child = None if row[split + tail_pk] is None else _instance(second, tail, row[split:])
        found.append((parent, child))
    return found


class _Mapping(NamedTuple):
    names: list[str]  # the model's fields present, by attname, in model order
    positions: list[int]  # where each is in a row
    extras: list[tuple[str, int]]  # columns that are no field: set as attributes
    converters: list[tuple[int, list[Converter], Col]]


@lru_cache(maxsize=64)
def _mapping(model: type[Model], columns: tuple[str, ...], ops: BaseDatabaseOperations) -> _Mapping:
    """How rows with ``columns`` become ``model`` instances, worked out once
    per columns and per connection's operations (whose converters are bound
    to it; the cache keeps it alive, so its id stays unique)."""
    meta = model._meta
    by_column = {f.column: f for f in meta.concrete_fields}
    present = [f for f in meta.concrete_fields if f.column in columns]
    converters = []
    for position, column in enumerate(columns):
        field = by_column.get(column)
        if field is None:
            continue
        col = field.get_col(meta.db_table)
        found = ops.get_db_converters(col) + col.get_db_converters(connection)
        if found:
            converters.append((position, found, col))
    return _Mapping(
        [f.attname for f in present],
        [columns.index(f.column) for f in present],
        [(c, i) for i, c in enumerate(columns) if c not in by_column],
        converters,
    )


def _instance(model: type[M], mapping: _Mapping, row: Sequence[Any]) -> M:
    """One row as a ``model`` instance, through ``mapping``'s converters."""
    values = list(row)
    for position, converters, col in mapping.converters:
        value = values[position]
        for convert in converters:
            value = convert(value, col, connection)
        values[position] = value
    instance = model.from_db(
        connection.alias, mapping.names, [values[p] for p in mapping.positions]
    )
    for name, position in mapping.extras:
        setattr(instance, name, values[position])
    return instance
