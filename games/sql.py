"""SQL written once for the paths every socket message takes.

The views' reads, the table lock, the message-id claim, the heartbeat and
the updates a deal makes run for every message or beat; compiling their
querysets each time cost more than running them (docs/benchmarks.md). They
are written as SQL with the table names as placeholders; results still go
through the ORM's own column mapping (``Model.objects.raw``) where rows
become models, and values through each field's own conversion (``save``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Field, Model

from .models import ClientMessage, Deal, Hand, Presence, Seat, Table


@cache
def statement(template: str) -> str:
    """``template`` with ``{table}``, ``{seat}``, ``{deal}``, ``{hand}``,
    ``{presence}``, ``{client_message}`` and ``{user}`` replaced by the quoted
    table names (built once per statement: the names do not change while the
    process runs)."""
    quote = connection.ops.quote_name
    names = {
        "table": Table,
        "seat": Seat,
        "deal": Deal,
        "hand": Hand,
        "presence": Presence,
        "client_message": ClientMessage,
        "user": get_user_model(),
    }
    return template.format(**{k: quote(m._meta.db_table) for k, m in names.items()})


@cache
def _update_of(
    model: type[Model], fields: tuple[str, ...]
) -> tuple[str, tuple[Field[Any, Any], ...]]:
    """The UPDATE of ``fields`` of one ``model`` row by id, and those fields."""
    quote = connection.ops.quote_name
    meta = model._meta
    columns = tuple(meta.get_field(name) for name in fields)
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in columns)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
    return sql, columns


def save(instance: Model, fields: Sequence[str]) -> None:
    """``instance.save(update_fields=fields)`` for the rows every deal writes,
    with the statement written once per model and fields: the same values
    (each field's ``pre_save``, so ``auto_now`` too, and ``get_db_prep_save``),
    without compiling an UPDATE query each time. These models have no save
    signals or ``save`` overrides to skip."""
    sql, columns = _update_of(type(instance), tuple(fields))
    values = [f.get_db_prep_save(f.pre_save(instance, False), connection) for f in columns]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, instance.pk])
