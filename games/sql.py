"""SQL written once for the paths every socket message takes.

The views' reads, the table lock, the message-id claim, the heartbeat and
the updates a deal makes run for every message or beat; compiling their
querysets each time cost more than running them (docs/benchmarks.md). They
are written as SQL with the table names as placeholders; values still go
through the ORM's own conversions, each field's and the backend's, both ways
(``rows``, ``save``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, lru_cache
from typing import Any, NamedTuple, TypeVar

from django.contrib.auth import get_user_model
from django.core.checks import CheckMessage, Error
from django.db import connection
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import NOT_PROVIDED, Field, Model, signals
from django.db.models.base import ModelState
from django.db.models.expressions import Col
from psycopg.pq import TransactionStatus

from .models import ClientMessage, Deal, Hand, LedgerEntry, LuckAudit, Presence, Seat, Table


@cache
def statement(template: str) -> str:
    """``template`` with ``{table}``, ``{seat}``, ``{deal}``, ``{hand}``,
    ``{presence}``, ``{client_message}``, ``{luck_audit}`` and ``{user}`` replaced by the quoted
    table names (built once per statement: the names do not change while the
    process runs)."""
    quote = connection.ops.quote_name
    names: dict[str, type[Model]] = {
        "table": Table,
        "seat": Seat,
        "deal": Deal,
        "hand": Hand,
        "presence": Presence,
        "client_message": ClientMessage,
        "luck_audit": LuckAudit,
        "user": get_user_model(),
    }
    return template.format(**{k: quote(m._meta.db_table) for k, m in names.items()})


# The models ``save`` and ``insert`` write. They skip what ``Model.save`` would
# also run: a ``save`` override and the pre_save / post_save signals. None of
# these has either, and ``tests/services/test_sql.py`` fails the day one gains
# one. (A reveal's ledger entries went through ``bulk_create``, which compiles
# its INSERT every time: 2.8% of a web process's CPU under load,
# docs/benchmarks.md, seventeenth round.)
WRITES: tuple[type[Model], ...] = (Table, Seat, Deal, Hand, LedgerEntry)


def skipped_hooks(model: type[Model]) -> list[str]:
    """What ``save`` would skip for ``model``: a ``save`` override, receivers
    of its pre_save or post_save signal."""
    skipped = []
    if any("save" in vars(cls) for cls in model.__mro__ if cls is not Model):
        skipped.append(f"{model.__name__}.save is overridden")
    for signal, name in ((signals.pre_save, "pre_save"), (signals.post_save, "post_save")):
        if signal.has_listeners(model):
            skipped.append(f"{model.__name__} has {name} receivers")
    return skipped


# The Django internals this module leans on, by the object that has them
# (Django is pinned to 5.2 in pyproject.toml; the system check says which is
# gone after an upgrade).
CONNECTION_INTERNALS = ("atomic_blocks", "commit_on_exit", "needs_rollback", "in_atomic_block")
MODEL_INTERNALS = ("_prepare_related_fields_for_save",)


def unguarded_writes(**kwargs: Any) -> list[CheckMessage]:
    """System check ``games.E001`` (``manage.py check``, and every start of
    the server and the workers): what would make ``save`` and ``insert``
    wrong without a test noticing. A ``save`` override or a pre_save /
    post_save receiver on a model of ``WRITES`` would be skipped for the rows
    every deal writes; a ``db_default`` or a generated field would not be
    written by ``insert``; a Django without the internals named above would
    break the transaction handling."""
    problems = [problem for model in WRITES for problem in skipped_hooks(model)]
    problems += [
        f"{model.__name__}.{field.name} is set by the database"
        for model in WRITES
        for field in model._meta.concrete_fields
        if field.db_default is not NOT_PROVIDED or getattr(field, "generated", False)
    ]
    problems += [f"connection.{name} is gone" for name in CONNECTION_INTERNALS
                 if not hasattr(connection, name)]
    problems += [f"Model.{name} is gone" for name in MODEL_INTERNALS if not hasattr(Model, name)]
    return [
        Error(
            f"games.sql writes {', '.join(m.__name__ for m in WRITES)} around Model.save: "
            f"{problem}.",
            hint="Write that model through the ORM (save(update_fields=...), bulk_create) "
                 "and take it out of games.sql.WRITES, or move the hook into the service.",
            id="games.E001",
        )
        for problem in problems
    ]


def field_column(model: type[Model], name: str) -> tuple[Field[Any, Any], str]:
    """``model``'s field ``name`` and its column (a reverse relation has none)."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or field.column is None:
        raise TypeError(f"{model._meta.label}.{name} has no column")
    return field, field.column


@cache
def _update_of(
    model: type[Model], fields: tuple[str, ...]
) -> tuple[str, tuple[Field[Any, Any], ...]]:
    """The UPDATE of ``fields`` of one ``model`` row by id, and those fields."""
    quote = connection.ops.quote_name
    meta = model._meta
    pairs = [field_column(model, name) for name in fields]
    assignments = ", ".join(f"{quote(column)} = %s" for _, column in pairs)
    _, pk = field_column(model, meta.pk.name)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(pk)} = %s"
    return sql, tuple(field for field, _ in pairs)


def save(instance: Model, fields: Sequence[str]) -> None:
    """``instance.save(update_fields=fields)`` for the rows every deal writes,
    with the statement written once per model and fields: the same values
    (each field's ``pre_save``, so ``auto_now`` too, and ``get_db_prep_save``),
    without compiling an UPDATE query each time. Only for the models of
    ``WRITES``, which have no ``save`` override or save signals to skip.
    Inside ``saves_together`` the row is written when that block ends."""
    if type(instance) not in WRITES:
        raise TypeError(f"games.sql.save does not write {type(instance).__name__} rows.")
    pending: dict[tuple[type[Model], Any], dict[str, Any]] | None = getattr(
        _together, "pending", None
    )
    sql, columns = _update_of(type(instance), tuple(fields))
    values = [f.get_db_prep_save(f.pre_save(instance, False), connection) for f in columns]
    if pending is not None:  # the values as they are now, a later save's over them
        saved = pending.setdefault((type(instance), instance.pk), {})
        saved.update(zip(fields, values, strict=True))
        return
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, instance.pk])


# The rows ``save`` was given inside the thread's ``saves_together`` block.
_together = threading.local()


@contextmanager
def saves_together() -> Iterator[None]:
    """``save`` inside this block writes when it ends, each row once with
    every field saved to it (the values each ``save`` found), and on PostgreSQL
    all the rows in one statement (each UPDATE in a ``WITH``): a reveal's seven
    writes, two hands, two seats, the deal and the table, are one round trip.
    Nothing inside may read those rows from the database, which has not got
    them yet (the services read first, then write). Nothing is written when
    the block raises: the transaction it runs in rolls back. A block inside
    another is part of it."""
    with _deferred() as pending:
        yield
    _write(pending, commit=False)


@contextmanager
def saves_then_commit() -> Iterator[None]:
    """The last act of an outermost ``atomic`` block on PostgreSQL: its saves
    (as ``saves_together``) and the transaction's COMMIT go in one round trip,
    not two. Nothing may run in the block after this one: its transaction has
    ended (Django's own COMMIT, when the block exits, finds none open and
    sends nothing; its on-commit callbacks run then, as always). When the
    block raises, nothing is written and the transaction rolls back as
    usual. Anywhere else (SQLite, a nested block, a test's transaction) the
    saves are written as they are made and Django commits."""
    if not _commits_here():
        yield
        return
    with _deferred() as pending:
        yield
    _write(pending, commit=True)


def _commits_here() -> bool:
    """Whether the transaction is an outermost ``atomic`` block's, open, on
    PostgreSQL with client-side binding (several statements in one
    execute), with no ``saves_together`` block around this one."""
    return (
        reads_together()
        and connection.in_atomic_block
        and connection.commit_on_exit
        and len(connection.atomic_blocks) == 1
        and not connection.needs_rollback
        and getattr(_together, "pending", None) is None
    )


@contextmanager
def _deferred() -> Iterator[dict[tuple[type[Model], Any], dict[str, Any]]]:
    """The rows ``save`` is given inside the block, by model and id (empty
    inside another block: that one writes them)."""
    if getattr(_together, "pending", None) is not None:
        yield {}
        return
    pending: dict[tuple[type[Model], Any], dict[str, Any]] = {}
    _together.pending = pending
    try:
        yield pending
    finally:
        _together.pending = None


def _write(pending: dict[tuple[type[Model], Any], dict[str, Any]], *, commit: bool) -> None:
    updates = [
        (_update_of(model, tuple(saved))[0], [*saved.values(), pk])
        for (model, pk), saved in pending.items()
    ]
    if not updates:
        return
    values = [value for _, values in updates for value in values]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql" and len(updates) > 1:
            ctes = ", ".join(f"w{i} AS ({sql})" for i, (sql, _) in enumerate(updates))
            cursor.execute(f"WITH {ctes} SELECT 1" + ("; COMMIT" if commit else ""), values)
            return
        if commit:
            cursor.execute(updates[0][0] + "; COMMIT", values)
            return
        for sql, row_values in updates:
            cursor.execute(sql, row_values)


@cache
def _insert_of(model: type[Model], count: int) -> tuple[str, tuple[Field[Any, Any], ...]]:
    """The INSERT of ``count`` ``model`` rows (every concrete field but the
    automatic id), returning their ids, and those fields in column order."""
    quote = connection.ops.quote_name
    meta = model._meta
    fields = tuple(f for f in meta.concrete_fields if f is not meta.pk)
    columns = ", ".join(quote(field_column(model, f.name)[1]) for f in fields)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    _, pk = field_column(model, meta.pk.name)
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES "
        + ", ".join([row] * count)
        + f" RETURNING {quote(pk)}"
    )
    return sql, fields


def insert(instances: Sequence[M]) -> None:
    """``bulk_create(instances)`` for the rows every deal makes (one model of
    ``WRITES``): one INSERT written once per model and row count, with the
    values ``bulk_create`` writes (each field's ``pre_save`` for an addition,
    so ``auto_now_add`` too, and ``get_db_prep_save``); each instance gets its
    id and is marked saved, as ``bulk_create`` leaves it."""
    model = type(instances[0])
    if model not in WRITES or any(type(i) is not model for i in instances):
        raise TypeError(f"games.sql.insert does not write {model.__name__} rows.")
    for instance in instances:  # a relation set before its row was saved: its id now
        instance._prepare_related_fields_for_save(operation_name="insert")  # type: ignore[attr-defined]
    sql, fields = _insert_of(model, len(instances))
    values = [
        f.get_db_prep_save(f.pre_save(instance, True), connection)
        for instance in instances
        for f in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        ids = [row[0] for row in cursor.fetchall()]
    for instance, pk in zip(instances, ids, strict=True):
        instance.pk = pk
        instance._state.adding = False
        instance._state.db = connection.alias


M = TypeVar("M", bound=Model)
N = TypeVar("N", bound=Model)
Converter = Callable[[Any, Any, Any], Any]


class _Mapping(NamedTuple):
    names: list[str]  # the model's fields present, by attname, in model order
    positions: list[int]  # where each is in a row
    extras: list[tuple[str, int]]  # columns that are no field: set as attributes
    converters: list[tuple[int, list[Converter], Col]]
    plain: bool  # nothing runs in ``from_db`` but setting the fields (``init_hooks``)


def init_hooks(model: type[Model]) -> list[str]:
    """What ``model.from_db`` would run besides setting each field: its own
    ``from_db`` or ``__init__``, receivers of its pre_init or post_init
    signal. With none, ``rows`` makes its instances without ``Model.__init__``
    (about a third of the time: 3 µs against 10-15 for a row of a table,
    a seat, a deal or a hand, docs/benchmarks.md, eighteenth round)."""
    hooks = [
        f"{model.__name__}.{name} is overridden"
        for name in ("from_db", "__init__")
        if any(name in vars(cls) for cls in model.__mro__[: model.__mro__.index(Model)])
    ]
    for signal, name in ((signals.pre_init, "pre_init"), (signals.post_init, "post_init")):
        if signal.has_listeners(model):
            hooks.append(f"{model.__name__} has {name} receivers")
    return hooks


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
        not init_hooks(model),
    )


def rows(model: type[M], template: str, params: Sequence[Any]) -> list[M]:
    """``model.objects.raw(statement(template), params)``, as a list: the same
    instances, through the same database converters (each field's and the
    backend's), with the row-to-model mapping worked out once per statement
    shape instead of once per query; columns that are no field of ``model``
    become attributes, as ``raw`` does."""
    found: list[M] = read_all(rows_read(model, template, params))[0]
    return found


def rows_read(model: type[M], template: str, params: Sequence[Any]) -> Read:
    """``rows`` as a ``Read``, for ``read_all``."""

    def build(columns: tuple[str, ...], fetched: list[Any]) -> list[M]:
        mapping = _mapping(model, columns, connection.ops)
        return [_instance(model, mapping, row) for row in fetched]

    return Read(template, params, build)


class Read(NamedTuple):
    """A statement (a ``statement`` template), its parameters, and how its
    column names and rows become what the caller wants."""

    template: str
    params: Sequence[Any]
    build: Callable[[tuple[str, ...], list[Any]], Any]


def read_all(*reads: Read) -> list[Any]:
    """Each read's result, in order. On PostgreSQL, with Django's client-side
    binding, all are sent at once, one round trip (each statement still sees
    the database as it begins, after the ones before it), and when they are
    the first statements of an ``atomic`` block the transaction's BEGIN goes
    with them (``first_of_transaction``); elsewhere one after another."""
    raw = first_of_transaction()
    if raw is None and (len(reads) == 1 or not reads_together()):
        return [read.build(*_fetch(read.template, read.params)) for read in reads]
    text = "; ".join(statement(read.template) for read in reads)
    with connection.cursor() as cursor:
        params = [param for read in reads for param in read.params]
        if raw is None:
            cursor.execute(text, params)
        else:
            with _begun_by(raw):
                cursor.execute("BEGIN; " + text, params)
            _next_result(cursor)  # past the BEGIN's
        results: list[Any] = []
        for read in reads:
            if results:
                _next_result(cursor)
            results.append(read.build(column_names(cursor), cursor.fetchall()))
    return results


def _next_result(cursor: Any) -> None:
    if not cursor.nextset():
        raise RuntimeError("a statement sent with others returned no result")


def first_of_transaction() -> Any | None:
    """The psycopg connection when the next statement is the first of the
    transaction of an ``atomic`` block on PostgreSQL (with client-side
    binding, and psycopg's plain BEGIN), else None.

    psycopg would send that BEGIN on its own, one round trip before the
    statement: a socket message's open, the lock with its reads, would be two
    round trips, not one (of the four a stake or a lock made before,
    docs/benchmarks.md, eighteenth round)."""
    if not connection.in_atomic_block or not reads_together():
        return None
    raw = connection.connection
    if (
        raw is None
        or raw.autocommit
        or raw.info.transaction_status != TransactionStatus.IDLE
        or (raw.isolation_level, raw.read_only, raw.deferrable) != (None, None, None)
    ):
        return None
    return raw


@contextmanager
def _begun_by(raw: Any) -> Iterator[None]:
    """Run a statement that starts with its own BEGIN: psycopg sends no BEGIN
    of its own while in autocommit mode. Once the statement's BEGIN has run,
    the connection stays so until the transaction ends: its statements run in
    that transaction, and Django's COMMIT or ROLLBACK ends it (psycopg sends
    them whatever its mode, as long as a transaction is open). If the BEGIN
    never ran (the statement was not sent), psycopg's mode is as it was."""
    raw.autocommit = True
    try:
        yield
    finally:
        if raw.info.transaction_status == TransactionStatus.IDLE:
            raw.autocommit = False


def reads_together() -> bool:
    """Whether ``read_all`` sends its statements at once. (Several in one
    execute need psycopg's client-side binding, Django's default;
    ``server_side_binding`` sends one prepared statement.)"""
    options = connection.settings_dict.get("OPTIONS") or {}
    return connection.vendor == "postgresql" and not options.get("server_side_binding")


def _fetch(template: str, params: Sequence[Any]) -> tuple[tuple[str, ...], list[Any]]:
    """The statement's column names and rows."""
    with connection.cursor() as cursor:
        cursor.execute(statement(template), params)
        return column_names(cursor), cursor.fetchall()


def column_names(cursor: Any) -> tuple[str, ...]:
    """The names of the columns of ``cursor``'s result (a Django cursor). On
    psycopg, read from the result itself: ``description`` makes a ``Column``
    with its type looked up for every column on every call, about a quarter
    of the CPU of reading a deal and its hands (docs/benchmarks.md)."""
    result = getattr(cursor.cursor, "pgresult", None)
    if result is not None:
        return tuple(result.fname(i).decode() for i in range(result.nfields))
    return tuple(c[0] for c in cursor.description)


def columns_of(model: type[Model], alias: str) -> str:
    """Every column of ``model``'s concrete fields, in field order, each
    qualified by ``alias``: the first part of a ``joined`` statement."""
    quote = connection.ops.quote_name
    names = (field_column(model, f.name)[1] for f in model._meta.concrete_fields)
    return ", ".join(f"{alias}.{quote(name)}" for name in names)


def joined(
    first: type[M], second: type[N], template: str, params: Sequence[Any]
) -> list[tuple[M, N | None]]:
    """Rows of two models from one statement: each row's first columns are
    ``first``'s (``columns_of(first, alias)``, exactly those), the rest are
    ``second``'s as ``rows`` reads them (extra columns become attributes).
    ``second`` is None in a row where its id is NULL (an outer join found
    none). Rows of ``first`` with the same id are one instance. One round
    trip where two statements would read the parent, then its children."""
    found: list[tuple[M, N | None]] = read_all(joined_read(first, second, template, params))[0]
    return found


def joined_read(first: type[M], second: type[N], template: str, params: Sequence[Any]) -> Read:
    """``joined`` as a ``Read``, for ``read_all``."""
    return Read(
        template, params, lambda columns, fetched: _joined(first, second, columns, fetched)
    )


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


def rows_beside_read(model: type[M], template: str, params: Sequence[Any]) -> Read:
    """A ``Read`` (for ``read_all``) of rows whose first columns are
    ``model``'s (``columns_of(model, alias)``, exactly those), each as
    ``rows`` reads it, with the rest of its columns as they came: one round
    trip where a second statement would read something else beside it
    (``services.table_open_with``)."""

    def build(columns: tuple[str, ...], fetched: list[Any]) -> list[tuple[M, tuple[Any, ...]]]:
        split = len(model._meta.concrete_fields)
        mapping = _mapping(model, columns[:split], connection.ops)
        return [(_instance(model, mapping, row[:split]), tuple(row[split:])) for row in fetched]

    return Read(template, params, build)


def _instance(model: type[M], mapping: _Mapping, row: Sequence[Any]) -> M:
    """One row as a ``model`` instance, through ``mapping``'s converters."""
    values = list(row)
    for position, converters, col in mapping.converters:
        value = values[position]
        for convert in converters:
            value = convert(value, col, connection)
        values[position] = value
    fields = [values[p] for p in mapping.positions]
    if mapping.plain:  # what from_db leaves (no field here has a data descriptor that acts)
        instance = model.__new__(model)
        instance.__dict__.update(zip(mapping.names, fields, strict=True))
        state = instance._state = ModelState()
        state.adding, state.db = False, connection.alias
    else:
        instance = model.from_db(connection.alias, mapping.names, fields)
    for name, position in mapping.extras:
        setattr(instance, name, values[position])
    return instance
