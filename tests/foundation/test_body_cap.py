"""Request bodies past ``REQUEST_BODY_MAX_BYTES`` are refused with 413 before
they are read (issue 43: four 256 MB POSTs raised a daphne's memory for
good). daphne refuses them itself (``paigow_site.server``; the live test is
in tests/system/test_flood.py); this is the application's own cap
(``paigow_site.bodycap``), for any server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from paigow_site.asgi import application
from paigow_site.bodycap import BodyCap
from paigow_site.server import with_timeouts

CAP = 1000


@pytest.fixture(autouse=True)
def small_cap(settings: Any) -> None:
    settings.REQUEST_BODY_MAX_BYTES = CAP


def scope(length: int | None) -> dict[str, Any]:
    headers = [(b"host", b"testserver"), (b"content-type", b"application/x-www-form-urlencoded")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return {
        "type": "http",
        "http_version": "1.1",
        "method": "POST",
        "path": "/accounts/sign-in/",
        "raw_path": b"/accounts/sign-in/",
        "query_string": b"",
        "root_path": "",
        "scheme": "http",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": None,
    }


async def call(app: Any, length: int | None, chunks: list[bytes]) -> tuple[list[Any], int]:
    """``app``'s answer to a POST of ``chunks``, and how many chunks it read."""
    sent: list[Any] = []
    read = 0

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read >= len(chunks):
            await asyncio.Future()  # the client waits for its answer

        read += 1
        return {"type": "http.request", "body": chunks[read - 1], "more_body": read < len(chunks)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope(length), receive, send)
    return sent, read


async def test_a_declared_length_past_the_cap_is_refused_unread() -> None:
    sent, read = await call(application, CAP + 1, [b"x" * 100] * 11)
    assert sent[0]["status"] == 413
    assert b"too large" in sent[1]["body"]
    assert read == 0


async def test_a_chunked_body_is_read_only_up_to_the_cap() -> None:
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        while (message := await receive())["type"] == "http.request":
            seen.append("chunk")
            if not message["more_body"]:
                return
        seen.append(message["type"])  # Django drops a request whose client left

    sent, read = await call(BodyCap(app), None, [b"x" * 400] * 10)
    assert sent[0]["status"] == 413
    assert read == 3  # the chunk that passed the cap is the last one read
    assert seen == ["chunk", "chunk", "http.disconnect"]


@pytest.mark.django_db(transaction=True)
async def test_a_body_within_the_cap_reaches_the_site() -> None:
    sent, read = await call(application, 20, [b"username=a&password=b"[:20]])
    assert read == 1
    assert sent[0]["status"] == 403  # the site's answer (no CSRF token), not the cap's


def test_daphne_runs_with_stated_timeouts_unless_given() -> None:
    argv = with_timeouts(["-b", "127.0.0.1", "paigow_site.asgi:application"])
    assert argv[argv.index("--http-timeout") + 1] == "120"
    assert argv[argv.index("--websocket_connect_timeout") + 1] == "5"
    given = with_timeouts(["--http-timeout", "30", "paigow_site.asgi:application"])
    assert given.count("--http-timeout") == 1
    assert given[given.index("--http-timeout") + 1] == "30"
