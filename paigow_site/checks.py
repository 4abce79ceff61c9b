"""System checks (``manage.py check``) for what the code leans on beyond a
library's public API."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error

PUBSUB_LAYER = "paigow_site.pubsub.ConfirmedPubSubChannelLayer"
# The private names paigow_site.pubsub reads or replaces, by the object that has them.
LAYER_NAMES = ("_layers", "_args", "_kwargs", "_get_layer")
LOOP_LAYER_NAMES = ("_shards", "channels", "prefix", "on_reconnect", "channel_layer")
SHARD_NAMES = (
    "_redis", "_pubsub", "_lock", "_subscribed_to", "_ensure_redis", "_ensure_receiver", "host",
)


def channels_redis_private_names(**kwargs: Any) -> list[CheckMessage]:
    """The pub/sub layer's private names are where paigow_site.pubsub expects
    them: one layer, its loop layer and a shard are made (no connection) and
    looked at."""
    layers = getattr(settings, "CHANNEL_LAYERS", {})
    config = layers.get("default", {})
    if config.get("BACKEND") != PUBSUB_LAYER:
        return []
    # On a thread of its own: the check may run where an event loop already does.
    with ThreadPoolExecutor(1) as thread:
        missing = thread.submit(asyncio.run, _missing_names(config.get("CONFIG", {}))).result()
    if not missing:
        return []
    return [
        Error(
            f"channels-redis no longer has {', '.join(missing)}, which paigow_site.pubsub uses.",
            hint="Install the release pinned in pyproject.toml, or set CHANNEL_LAYER=list.",
            id="paigow.E001",
        )
    ]


async def _missing_names(config: dict[str, Any]) -> list[str]:
    from paigow_site.pubsub import ConfirmedPubSubChannelLayer

    layer = ConfirmedPubSubChannelLayer(**config)
    missing = [f"layer.{name}" for name in LAYER_NAMES if not hasattr(layer, name)]
    if missing:
        return missing
    loop_layer = layer._get_layer()
    missing = [f"loop layer.{name}" for name in LOOP_LAYER_NAMES if not hasattr(loop_layer, name)]
    shards = getattr(loop_layer, "_shards", [])
    if shards:
        missing += [f"shard.{name}" for name in SHARD_NAMES if not hasattr(shards[0], name)]
    return missing
