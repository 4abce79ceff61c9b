"""The rows one transition writes, sent together when it ends.

A transition saves the rows it changed through ``OpenTable.save`` (the
table, its seats, the deal and its hands) and adds the new rows whose ids
nobody reads (a reveal's ledger entries, a socket message's id) through
``Updates.add``. They are sent when the transaction's opener says so
(``transition``'s block, or ``games.realtime.apply`` after the views), inside
the transaction: on PostgreSQL one statement (each write in a ``WITH``; with
a ``games.folds`` fold it also carries the COMMIT), elsewhere one statement
a row. A reveal's seven updates and four inserts are one round trip, not
eleven; a socket message's id on its own was a round trip and about 0.2 ms
of CPU a message.

Why not ``save(update_fields=...)``: the ORM compiles each UPDATE every time
and sends each on its own. Measured on 2026-12-07 (docs/benchmarks.md): with
every write through the ORM a server took 32-39 ms of CPU a deal where this
takes about 23, and the 500-table run's p99 lock→reveal went from about
0.1 s to 1.4-2.9 s. The values are the ones ``save`` writes (each field's
``pre_save``, so ``auto_now`` too, and ``get_db_prep_save``); what ``save``
would also run, a ``save`` override or a pre_save / post_save receiver, is
refused on these models by the system check ``games.E002``. Every other
insert, and the rows of every other model, go through the ORM.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.core.checks import CheckMessage, Error
from django.db import connection
from django.db.models import Field, Model, signals

from ..folds import Fold
from ..models import ClientMessage, Deal, Hand, LedgerEntry, Seat, Table

UPDATED: tuple[type[Model], ...] = (Table, Seat, Deal, Hand)
ADDED: tuple[type[Model], ...] = (ClientMessage, LedgerEntry)


class Updates:
    """The rows one transition saved, by model and id: each row's fields with
    the values they had when saved (a later save's over an earlier one)."""

    def __init__(self) -> None:
        self.rows: dict[tuple[type[Model], Any], dict[str, Any]] = {}
        self.added: list[Model] = []

    def save(self, instance: Model, fields: Sequence[str]) -> None:
        """Record ``instance.save(update_fields=fields)``, sent by ``send``."""
        model = type(instance)
        if model not in UPDATED:
            raise TypeError(f"Updates does not write {model.__name__} rows: save() it.")
        saved = self.rows.setdefault((model, instance.pk), {})
        for field in _fields(model, tuple(fields)):
            saved[field.name] = field.get_db_prep_save(field.pre_save(instance, False), connection)

    def add(self, instance: Model) -> None:
        """Record ``instance.save()`` of a new row whose id nobody reads
        (a message's id, a ledger entry), sent by ``send``."""
        if type(instance) not in ADDED:
            raise TypeError(f"Updates does not add {type(instance).__name__} rows: save() it.")
        self.added.append(instance)

    def send(self, fold: Fold | None = None) -> None:
        """Write every recorded row, then forget them. With ``fold``, this is
        the transaction's last statement and carries its COMMIT
        (``games.folds``)."""
        updates = [
            (_update_of(model, tuple(saved)), [*saved.values(), pk])
            for (model, pk), saved in self.rows.items()
        ]
        updates += [_insert(instance) for instance in self.added]
        self.rows, self.added = {}, []
        if not updates:
            return
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql" and len(updates) > 1:
                ctes = ", ".join(f"w{i} AS ({sql})" for i, (sql, _) in enumerate(updates))
                updates = [
                    (f"WITH {ctes} SELECT 1", [value for _, row in updates for value in row])
                ]
            *first, (sql, values) = updates
            for each in first:
                cursor.execute(*each)
            cursor.execute(sql if fold is None else fold.last(sql), values)


@cache
def _fields(model: type[Model], names: tuple[str, ...]) -> tuple[Field[Any, Any], ...]:
    fields = tuple(model._meta.get_field(name) for name in names)
    for field in fields:
        if not isinstance(field, Field) or not field.concrete:
            raise TypeError(f"{model.__name__}.{field.name} is no column")
    return fields  # type: ignore[return-value]


@cache
def _update_of(model: type[Model], names: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(str(f.column))} = %s" for f in _fields(model, names))
    pk = quote(str(model._meta.pk.column))
    return f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {pk} = %s"


def _insert(instance: Model) -> tuple[str, list[Any]]:
    model = type(instance)
    fields = _added_fields(model)
    values = [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]
    return _insert_of(model), values


@cache
def _added_fields(model: type[Model]) -> tuple[Field[Any, Any], ...]:
    return tuple(f for f in model._meta.concrete_fields if f is not model._meta.pk)


@cache
def _insert_of(model: type[Model]) -> str:
    quote = connection.ops.quote_name
    fields = _added_fields(model)
    columns = ", ".join(quote(str(f.column)) for f in fields)
    values = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({values})"


def skipped_hooks(model: type[Model]) -> list[str]:
    """What ``Updates`` would skip of ``model.save``: an override of it,
    receivers of its pre_save or post_save signal."""
    skipped = []
    if any("save" in vars(cls) for cls in model.__mro__ if cls is not Model):
        skipped.append(f"{model.__name__}.save is overridden")
    for signal, name in ((signals.pre_save, "pre_save"), (signals.post_save, "post_save")):
        if signal.has_listeners(model):
            skipped.append(f"{model.__name__} has {name} receivers")
    return skipped


def save_hooks_absent(**kwargs: Any) -> list[CheckMessage]:
    """System check ``games.E002`` (``manage.py check`` and every start): no
    model ``Updates`` writes has what its UPDATE or INSERT would silently
    skip."""
    return [
        Error(
            f"games.services.updates writes {problem.split()[0].split('.')[0]} rows without"
            f" Model.save: {problem}.",
            hint="Save that model with save(update_fields=...) and take it out of"
                 " games.services.updates.UPDATED, or move the hook into the service.",
            id="games.E002",
        )
        for model in (*UPDATED, *ADDED)
        for problem in skipped_hooks(model)
    ]
