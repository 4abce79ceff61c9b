"""daphne, with invite tokens kept out of its access log.

daphne writes its access log itself (``daphne.access.AccessLogGenerator``, to
stdout or ``--access-log``), not through Python logging, so the logging
filters never see it. This is daphne's own command line with one change: every
path handed to the access log goes through ``logfilters.redact`` first. Run it
as daphne, with the same arguments::

    python -m paigow_site.server -b 0.0.0.0 -p 8000 paigow_site.asgi:application

``make run``, ``make serve``, the Docker image and ``tests/live_site.py`` all
start the site this way.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
from collections.abc import Callable
from typing import Any

# uvloop under Twisted's asyncio reactor, for the server process only:
# daphne makes its event loop as ``daphne.server`` is imported, so the policy
# is set before that import, and only when this module runs as the program
# (imported, say by a test, it must not change the process's event loops).
# SERVER_UVLOOP=0 keeps the standard library's loop (docs/benchmarks.md).
if __name__ == "__main__" and os.environ.get("SERVER_UVLOOP", "1") != "0":
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

from daphne.cli import CommandLineInterface
from daphne.server import Server

from games.engine.hands import warm_tables

from .logfilters import redact

ActionLogger = Callable[[str, str, dict[str, Any]], None]

YOUNG_COLLECTION_EVERY = 7_000


def redacting(action_logger: ActionLogger) -> ActionLogger:
    """Wrap daphne's action logger so no path reaches it with a token in it."""

    def log(protocol: str, action: str, details: dict[str, Any]) -> None:
        if isinstance(details.get("path"), str):
            details = {**details, "path": redact(details["path"])}
        action_logger(protocol, action, details)

    return log


class RedactingServer(Server):
    def __init__(self, *args: Any, action_logger: ActionLogger | None = None, **kwargs: Any):
        if action_logger is not None:
            action_logger = redacting(action_logger)
        super().__init__(*args, action_logger=action_logger, **kwargs)

    def run(self) -> None:
        # What exists now (Django, the application, the engine's tables) lives
        # as long as the process. Left to the cyclic collector, its ~110,000
        # objects were visited again on every full collection, about 40 ms
        # with every socket of the process waiting (docs/benchmarks.md,
        # "Sixteenth round"); frozen, the collector never visits them again.
        gc.collect()
        gc.freeze()
        # A young collection every 7,000 objects made rather than 700: nearly
        # all of a message's objects are gone by then, so few live long enough
        # to be promoted, and the full collections that visit every socket's
        # objects (90-230 ms at 500 tables) stop coming every 20-40 s: none in
        # a 40 s window, and the longest pause 24-46 ms (docs/benchmarks.md,
        # "Sixteenth round").
        gc.set_threshold(YOUNG_COLLECTION_EVERY, *gc.get_threshold()[1:])
        super().run()


class RedactingCommandLine(CommandLineInterface):
    server_class = RedactingServer


def main(argv: list[str] | None = None) -> None:
    # Every view of a dealt hand reads back values from the engine's tables;
    # filled lazily, a fresh process's first players' frames would fill them
    # (over a millisecond a guide). Filled here instead, once (about 0.1 s).
    warm_tables()
    RedactingCommandLine().run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
