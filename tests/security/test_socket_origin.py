"""The table socket's handshake: only this site's own pages may open it. The
Origin must be exactly the scheme, host and port the server sees (ws is
http, wss is https, the proxy's header when the site trusts one), or one of
CSRF_TRUSTED_ORIGINS; anything else is refused before the socket opens."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from games import services
from paigow_site.asgi import application
from tests.sockets import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def opens(player: User) -> Any:
    """Whether a handshake with these headers (and scheme) opens a socket."""
    table = await database_sync_to_async(services.table_start)(user=player, mode="solo")
    cookie = await database_sync_to_async(session_cookie)(player)

    async def attempt(*headers: tuple[str, str], scheme: str = "ws") -> bool:
        sent = [(name.encode(), value.encode()) for name, value in headers]
        comm = WebsocketCommunicator(
            application, f"/ws/tables/{table.pk}/", headers=[*sent, (b"cookie", cookie)]
        )
        comm.scope["scheme"] = scheme  # as the server reports it (daphne: ws or wss)
        connected, _ = await comm.connect()
        if connected:
            assert (await comm.receive_json_from(timeout=5))["type"] == "state"
        await comm.disconnect()
        return bool(connected)

    return attempt


async def test_only_the_sites_own_origin_opens_a_table_socket(opens: Any) -> None:
    cases = [
        ("http://testserver", "testserver", True),
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("https://testserver", "testserver", False),  # the scheme
        ("http://testserver:6666", "testserver", False),  # the port
        ("http://127.0.0.1:6666", "127.0.0.1:8000", False),
        ("http://evil.example", "testserver", False),  # the host
        ("http://evil.example", "evil.example", False),  # a host the site does not serve
    ]
    for origin, host, expected in cases:
        assert await opens(("origin", origin), ("host", host)) is expected, (origin, host)


async def test_a_secure_socket_wants_an_https_origin(opens: Any) -> None:
    host = ("host", "testserver")
    assert await opens(("origin", "https://testserver"), host, scheme="wss")
    assert not await opens(("origin", "http://testserver"), host, scheme="wss")


async def test_a_handshake_needs_one_origin_and_a_host(opens: Any) -> None:
    origin, host = ("origin", "http://testserver"), ("host", "testserver")
    assert await opens(origin, host)
    assert not await opens(host)
    assert not await opens(origin)
    assert not await opens(("origin", "http://evil.example"), origin, host)


async def test_behind_a_proxy_its_scheme_header_counts_once_trusted(
    opens: Any, settings: Any
) -> None:
    host, proto = ("host", "testserver"), ("x-forwarded-proto", "https")
    secure = ("origin", "https://testserver")
    assert not await opens(secure, host, proto)  # the header means nothing unless trusted
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert await opens(secure, host, proto)
    assert not await opens(("origin", "http://testserver"), host, proto)


async def test_csrf_trusted_origins_are_accepted_exactly(opens: Any, settings: Any) -> None:
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example.com", "https://*.example.org"]
    host = ("host", "testserver")
    for origin, expected in [
        ("https://play.example.com", True),
        ("https://tables.example.org", True),
        ("http://play.example.com", False),
        ("https://play.example.com:8443", False),
        ("http://tables.example.org", False),
        ("https://example.org.evil.example", False),
    ]:
        assert await opens(("origin", origin), host) is expected, origin
