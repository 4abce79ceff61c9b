"""/healthz: can this process reach its database and its channel layer?"""

from __future__ import annotations

import asyncio
import secrets

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

CHECK_TIMEOUT_SECONDS = 2.0


def database_status() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001  any driver error means "not answering"
        return f"error: {exc.__class__.__name__}"
    return "ok"


async def _layer_round_trip() -> str:
    layer = get_channel_layer()
    if layer is None:
        return "error: no channel layer configured"
    # A channel of its own with no "!": a process-local name (new_channel)
    # waits for the layer's one receive lock, which an idle table socket
    # holds while it blocks on Redis, so the probe timed out beside a
    # healthy Redis. Read directly, it is a plain round trip through Redis.
    token = secrets.token_hex(8)
    channel = f"healthz.{token}"
    if _publishes(layer):
        # Pub/sub keeps nothing for a channel nobody listens to yet: listen
        # first (new_channel subscribes before it returns), then send.
        channel = await layer.new_channel("healthz.")
    await layer.send(channel, {"type": "healthz.ping", "token": token})
    message = await layer.receive(channel)
    return "ok" if message.get("token") == token else "error: wrong message"


def _publishes(layer: object) -> bool:
    """True for channels-redis' pub/sub layer (``CHANNEL_LAYER=pubsub``)."""
    from channels_redis.pubsub import RedisPubSubChannelLayer

    return isinstance(layer, RedisPubSubChannelLayer)


async def _layer_status() -> str:
    try:
        return await asyncio.wait_for(_layer_round_trip(), CHECK_TIMEOUT_SECONDS)
    except TimeoutError:
        return "error: timeout"
    except Exception as exc:  # noqa: BLE001  a refused connection, a bad URL, ...
        return f"error: {exc.__class__.__name__}"


def channel_layer_status() -> str:
    return async_to_sync(_layer_status)()


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": database_status(), "channel_layer": channel_layer_status()}
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503
    )
