"""A cap on request bodies, for the application whatever server runs it.

``paigow_site.server`` refuses a body past ``REQUEST_BODY_MAX_BYTES`` in
daphne itself, before daphne takes it in (it buffers a whole body before the
application sees the request). This is the same cap as an ASGI middleware,
for any server that streams a body to the application (``runserver``, a
test's communicator, another ASGI server): a ``Content-Length`` past the cap
is answered 413 before any of the body is read; a body without one (chunked)
is read only up to the cap, then answered 413 the same way.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

Scope = dict[str, Any]
Message = dict[str, Any]

TOO_LARGE = b"The request is too large: nothing was done. Send less, or in parts.\n"


class BodyCap:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = settings.REQUEST_BODY_MAX_BYTES
        if _declared_length(scope) > cap:
            await _too_large(send)
            return
        received = 0
        refused = False

        async def capped_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message: Message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap:
                    # The application sees a client that went away (Django
                    # drops the request unanswered); the 413 is sent below.
                    refused = True
                    return {"type": "http.disconnect"}
            return message

        await self.app(scope, capped_receive, send)
        if refused:
            await _too_large(send)


def _declared_length(scope: Scope) -> int:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0  # the server rejects a malformed length itself
    return 0


async def _too_large(send: Any) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(TOO_LARGE)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": TOO_LARGE})
