"""A blocking WebSocket client for tests that talk to a live server process
over TCP, on the ``websockets`` library: a handshake with the session cookie
and Origin, JSON text frames both ways, and one exception (``Closed``) for a
socket the server closed or lost, whatever the library calls it."""

from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect


class Closed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed with code {code}")
        self.code = code


def _closed(exc: ConnectionClosed) -> Closed:
    return Closed(exc.rcvd.code if exc.rcvd is not None else None)


class WebSocket:
    def __init__(self, url: str, *, origin: str, cookie: str = "", timeout: float = 10) -> None:
        self.timeout = timeout
        self.opened = ExitStack()  # the library wants its connection used as a context
        try:
            self.conn: ClientConnection = self.opened.enter_context(
                connect(
                    url,
                    origin=origin,
                    additional_headers={"Cookie": cookie} if cookie else None,
                    open_timeout=timeout,
                    close_timeout=2,
                    ping_interval=None,  # as a browser: no keepalive pings
                )
            )
        except InvalidHandshake as exc:
            raise ConnectionError(f"handshake refused: {exc}") from None

    def send(self, message: Any) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        try:
            self.conn.send(text)
        except ConnectionClosed as exc:
            raise _closed(exc) from None

    def recv_text(self, timeout: float | None = None) -> str:
        """The next text frame; ``TimeoutError`` after ``timeout`` seconds."""
        try:
            data = self.conn.recv(timeout=self.timeout if timeout is None else timeout)
        except ConnectionClosed as exc:
            raise _closed(exc) from None
        return data if isinstance(data, str) else data.decode()

    def recv(self, timeout: float | None = None) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(self.recv_text(timeout))
        return frame

    def reply_to(self, message_id: str | int) -> dict[str, Any]:
        """Frames until the answer to ``message_id`` (refreshes are skipped)."""
        while True:
            frame = self.recv()
            if frame.get("id") == message_id:
                return frame

    def close(self) -> None:
        self.opened.close()
