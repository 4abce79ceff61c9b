"""A fresh PostgreSQL connection pool in a forked process. (What a page
answers when it gets no connection: ``paigow_site.unavailable``.)

Every process (a daphne, a Celery worker's child) takes its connections
from Django's psycopg pool (``DATABASES["default"]["OPTIONS"]["pool"]``,
settings ``DB_POOL_*``): a request or a socket's database call borrows one
and gives it back when it ends, so a process never holds more than
``DB_POOL_MAX_SIZE``. Persistent connections (``CONN_MAX_AGE``) leaked one
per request thread under ASGI (issue 43): they are refused. Before it lends
a connection the pool checks it (an empty statement, Django's
``CONN_HEALTH_CHECKS`` with a pool), so one a PostgreSQL restart dropped is
replaced, never handed to a page.
"""

from __future__ import annotations

import os
from typing import Any


def _fresh_pools_after_fork() -> None:
    """A forked child (a Celery worker's) must not share its parent's pool:
    its threads did not survive the fork and its sockets are the parent's.
    The child makes its own on first use. The inherited ones are kept, never
    used or closed: closing (or collecting) them would end the parent's
    connections."""
    try:
        from django.db.backends.postgresql.base import DatabaseWrapper
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return
    pools: dict[str, Any] = DatabaseWrapper._connection_pools  # type: ignore[attr-defined]
    _inherited.extend(pools.values())
    pools.clear()


_inherited: list[Any] = []
# Registered as settings load (they import this module), before any fork.
os.register_at_fork(after_in_child=_fresh_pools_after_fork)
