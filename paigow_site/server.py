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
import sys
from collections.abc import Callable
from typing import Any

from paigow_site.env import env_bool, env_float, env_int

# uvloop under Twisted's asyncio reactor, for the server process only:
# daphne makes its event loop as ``daphne.server`` is imported, so the policy
# is set before that import, and only when this module runs as the program
# (imported, say by a test, it must not change the process's event loops).
# SERVER_UVLOOP=0 keeps the standard library's loop (docs/benchmarks.md).
if __name__ == "__main__" and env_bool("SERVER_UVLOOP", True):
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory, WebRequest
from daphne.server import Server
from django.conf import settings

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


TOO_LARGE = (
    b"HTTP/1.1 413 Content Too Large\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\n"
    b"Content-Length: %d\r\n\r\n%s"
)
TOO_LARGE_SENTENCE = b"The request is too large: nothing was done. Send less, or in parts.\n"


class CappedRequest(WebRequest):
    """daphne's request, refusing a body past ``REQUEST_BODY_MAX_BYTES``.

    daphne (Twisted) takes in a whole body before the application sees the
    request, then queues all of it for the application at once: four 256 MB
    POSTs raised a process from 162 to 673 MB for good (issue 43). An
    application-level cap (``paigow_site.bodycap``) comes too late for that,
    so the body is refused here as it arrives: a ``Content-Length`` past the
    cap at once, before any of it is read, a chunked body as soon as it
    passes the cap; the answer is a 413 and the connection is closed."""

    refused = False
    received = 0

    def gotLength(self, length: int | None) -> None:
        if length is not None and length > settings.REQUEST_BODY_MAX_BYTES:
            self.refuse()
            return
        super().gotLength(length)

    def handleContentChunk(self, data: bytes) -> None:
        if self.refused:
            return
        self.received += len(data)
        if self.received > settings.REQUEST_BODY_MAX_BYTES:
            self.refuse()
            return
        super().handleContentChunk(data)

    def refuse(self) -> None:
        if self.refused:
            return
        self.refused = True
        self.content = None  # nothing of the body is kept
        transport = self.channel.transport
        transport.write(TOO_LARGE % (len(TOO_LARGE_SENTENCE), TOO_LARGE_SENTENCE))
        transport.loseConnection()

    def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
        if not self.refused:  # a refused request never reaches the application
            super().requestReceived(command, path, version)


class CappedHTTPFactory(HTTPFactory):
    """daphne's HTTP factory, with ``CappedRequest`` and an idle timeout:
    an HTTP connection that sends nothing for ``SERVER_IDLE_TIMEOUT_SECONDS``
    while its request line, headers or body are awaited (or between two
    requests) is closed. Twisted's default is 12 hours. (It stops while a
    request is handled, so a WebSocket, a handled request for good, is never
    cut by it.)"""

    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self.timeOut = IDLE_TIMEOUT_SECONDS

    def buildProtocol(self, addr: Any) -> Any:
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = CappedRequest
        return protocol


# The timeouts daphne runs with (README, "Production"): each from the
# environment, passed as daphne's own arguments unless the command line
# gives them.
IDLE_TIMEOUT_SECONDS = env_float("SERVER_IDLE_TIMEOUT_SECONDS", 60)
TIMEOUT_ARGUMENTS = {
    # A request whose response has not ended this long after it came in is
    # answered 503 (or cut, once started). daphne's default is none.
    "--http-timeout": str(env_int("SERVER_HTTP_TIMEOUT_SECONDS", 120)),
    # A WebSocket must finish its opening handshake within this (daphne's default, 5).
    "--websocket_connect_timeout": str(env_int("SERVER_WEBSOCKET_CONNECT_TIMEOUT_SECONDS", 5)),
}


def with_timeouts(argv: list[str]) -> list[str]:
    """``argv`` with the timeouts of ``TIMEOUT_ARGUMENTS`` it does not give."""
    given = {arg.split("=", 1)[0] for arg in argv}
    extra = [
        part
        for flag, value in TIMEOUT_ARGUMENTS.items()
        if flag not in given
        for part in (flag, value)
    ]
    return extra + argv


class RedactingServer(Server):
    def __init__(self, *args: Any, action_logger: ActionLogger | None = None, **kwargs: Any):
        if action_logger is not None:
            action_logger = redacting(action_logger)
        super().__init__(*args, action_logger=action_logger, **kwargs)

    # daphne makes its HTTP factory in ``run`` (``self.http_factory =
    # HTTPFactory(self)``) and listens with it: the one it makes is swapped
    # for ``CappedHTTPFactory`` as it is set.
    @property
    def http_factory(self) -> HTTPFactory:
        return self._http_factory

    @http_factory.setter
    def http_factory(self, factory: HTTPFactory) -> None:
        if not isinstance(factory, CappedHTTPFactory):
            factory = CappedHTTPFactory(self)
        self._http_factory = factory

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
    RedactingCommandLine().run(with_timeouts(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
