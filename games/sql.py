"""SQL written once for the paths every socket message takes.

The views' reads, the table lock, the message-id claim and the heartbeat run
for every message or beat; compiling their querysets each time cost more
than running them (docs/benchmarks.md). They are written as SQL with the
table names as placeholders, and results still go through the ORM's own
column mapping (``Model.objects.raw``) where rows become models.
"""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.db import connection

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
