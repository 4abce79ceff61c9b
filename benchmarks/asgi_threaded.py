"""The site's ASGI application with the table socket's database calls on a thread pool.

An experiment for benchmarks/load.py (``--app benchmarks.asgi_threaded:application``),
not the served configuration: Channels' ``database_sync_to_async`` is
thread-sensitive by default, so every socket's database work in a daphne
process runs on one thread, one call after another. Here the consumers' calls
run on the event loop's default thread pool instead (``ASGI_THREADS`` threads,
each with its own database connection); each call is still one service
transaction or one read, so nothing else changes.
"""

# isort: skip_file
from __future__ import annotations

import functools

from channels.db import database_sync_to_async

from paigow_site.asgi import application  # noqa: F401  (sets Django up first)
from games import consumers

consumers.database_sync_to_async = functools.partial(  # type: ignore[attr-defined]
    database_sync_to_async, thread_sensitive=False
)
