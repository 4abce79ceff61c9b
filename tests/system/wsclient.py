"""A small, real WebSocket client (RFC 6455) on the standard library, for tests
that talk to a live server process over TCP: a handshake with the session
cookie and Origin, masked text frames out, text and close frames in."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
from typing import Any
from urllib.parse import urlparse


class Closed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed with code {code}")
        self.code = code


class WebSocket:
    def __init__(self, url: str, *, origin: str, cookie: str = "", timeout: float = 10) -> None:
        parts = urlparse(url)
        self.sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {parts.path} HTTP/1.1", f"Host: {parts.hostname}:{parts.port}",
            "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13", f"Origin: {origin}",
        ]
        if cookie:
            lines.append(f"Cookie: {cookie}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise Closed(None)
            head += chunk
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status:
            raise ConnectionError(f"handshake refused: {status!r}")
        self.close_code: int | None = None

    def _read(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise Closed(self.close_code)
            data += chunk
        return data

    def _frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        size = len(payload)
        if size < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + body)

    def send(self, message: Any) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self._frame(0x1, text.encode())

    def recv_text(self) -> str:
        while True:
            first, second = self._read(2)
            opcode, size = first & 0x0F, second & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", self._read(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", self._read(8))
            payload = self._read(size)
            if opcode == 0x8:  # close
                self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise Closed(self.close_code)
            if opcode == 0x9:  # ping
                self._frame(0xA, payload)
                continue
            if opcode == 0x1:
                return payload.decode()

    def recv(self) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(self.recv_text())
        return frame

    def reply_to(self, message_id: str | int) -> dict[str, Any]:
        """Frames until the answer to ``message_id`` (refreshes are skipped)."""
        while True:
            frame = self.recv()
            if frame.get("id") == message_id:
                return frame

    def close(self) -> None:
        try:
            self._frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()
