"""The table socket's origin check: the page must be this site's own.

Channels' ``AllowedHostsOriginValidator`` compares only the origin's host name
with ``ALLOWED_HOSTS``: ``http://127.0.0.1:6666`` (any other program on the
machine, or the plain-HTTP page of an HTTPS site) passed it. This is the rule
Django's CSRF check applies to a form post, applied to the handshake: the
``Origin`` must be exactly the scheme the server sees (``wss`` is https, or
``SECURE_PROXY_SSL_HEADER`` behind a proxy), host and port of the request's
own ``Host`` (which must be in ``ALLOWED_HOSTS``, as for a page), or one of
``CSRF_TRUSTED_ORIGINS`` (a proxy that serves the site under another name;
``https://*.example.com`` patterns included). Anything else, a missing or
repeated ``Origin`` included, is refused at the handshake (HTTP 403).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.utils.http import is_same_domain


class _Handshake(HttpRequest):
    """The handshake as a Django request, so ``scheme`` and ``get_host()``
    follow the site's own settings (proxy header, ``ALLOWED_HOSTS``,
    ``USE_X_FORWARDED_HOST``) exactly as for a page."""

    def __init__(self, scope: dict[str, Any]) -> None:
        super().__init__()
        for name, value in scope.get("headers") or []:
            key = "HTTP_" + name.decode("latin-1").upper().replace("-", "_")
            self.META[key] = value.decode("latin-1")
        server = scope.get("server")
        if server and server[1] is not None:
            self.META["SERVER_NAME"], self.META["SERVER_PORT"] = server[0], str(server[1])
        self._secure = scope.get("scheme") == "wss"

    def _get_scheme(self) -> str:
        return "https" if self._secure else "http"


def _trusted(origin: str) -> bool:
    """Whether ``origin`` is one of ``CSRF_TRUSTED_ORIGINS`` (the same
    matching as Django's CSRF check: exact, or a ``*.`` subdomain pattern)."""
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    try:
        parsed = urlsplit(origin)
    except ValueError:
        return False
    for pattern in settings.CSRF_TRUSTED_ORIGINS:
        if "*" in pattern:
            allowed = urlsplit(pattern)
            if allowed.scheme == parsed.scheme and is_same_domain(
                parsed.netloc, allowed.netloc.lstrip("*")
            ):
                return True
    return False


def same_origin(scope: dict[str, Any]) -> bool:
    """Whether the handshake in ``scope`` comes from one of this site's pages."""
    headers = scope.get("headers") or []
    origins = [value for name, value in headers if name == b"origin"]
    if len(origins) != 1:
        return False
    origin = origins[0].decode("latin-1")
    request = _Handshake(scope)
    if "HTTP_HOST" not in request.META and "SERVER_NAME" not in request.META:
        return False
    try:
        # A host the site does not serve is refused, as a page would be.
        host = request.get_host()
    except DisallowedHost:
        return False
    return origin == f"{request.scheme}://{host}" or _trusted(origin)


class SameOriginValidator:
    """ASGI middleware: pass a WebSocket handshake on only from this site's
    own origin (``same_origin``), else refuse it."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            raise ValueError("SameOriginValidator guards WebSocket connections only")
        if same_origin(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
