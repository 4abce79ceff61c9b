"""channels-redis's pub/sub channel layer, made safe to lose Redis.

``RedisPubSubChannelLayer`` (channels-redis 4.3) costs each server about a
fifth less CPU a deal than the list-based layer (docs/benchmarks.md), but as
shipped it loses messages in two ways the list-based layer does not:

- ``group_add`` returns once its SUBSCRIBE is written, before Redis has run
  it: a change published at once from another connection (the first change
  after a socket joins its table) can reach Redis first, and nobody.
- When its connection drops (a Redis restart, a network blip), redis-py
  connects again and subscribes again without a word; what was published
  meanwhile is gone, and the layer's ``on_reconnect`` option is stored and
  never used (channels-redis issue 406).

``ConfirmedPubSubChannelLayer`` changes only that: each subscription returns
once Redis has confirmed it, and after a reconnect, once Redis has confirmed
the subscriptions again, every consumer's channel in the process gets a
message of the ``on_reconnect`` type. The table socket answers it with a
fresh read of its view (what the maintainers advise for pub/sub: a full
state refresh after a blip, channels-redis issue 256); any change committed
before that read is in it, and any change after it is published to a
subscription Redis already holds. Its connections also connect again when
a command finds theirs closed (the pool's own default tries once), and its
publishes run side by side (up to ``PUBLISHES_AT_ONCE``) instead of one at a
time under the subscriptions' lock. Everything else is the library's.

It subclasses the library through private names (``_shards``, ``_layers``,
``_ensure_redis``, ``_pubsub``, ``_redis``, ``_lock``, ``_subscribed_to``), so
it is held to the one release it was written against: ``pyproject.toml`` pins
``channels-redis==4.3.0``, importing this module with any other release fails
at once, and ``manage.py check`` (``paigow_site.checks``) makes one layer and
looks for every private name it uses. Upgrading channels-redis means reading
its pub/sub module again against this one, then moving the pin. Drop this
module for the library's own layer once issues 256 and 406 are fixed upstream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff

log = logging.getLogger(__name__)

# The channels-redis release whose private names this module uses.
CHANNELS_REDIS_VERSION = "4.3.0"


def require_channels_redis(found: str) -> None:
    """Refuse any channels-redis but the pinned one.

    >>> require_channels_redis(CHANNELS_REDIS_VERSION)
    >>> require_channels_redis("4.4.0")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ImportError: paigow_site.pubsub is written against channels-redis 4.3.0 and found 4.4.0: ...
    """
    if found != CHANNELS_REDIS_VERSION:
        raise ImportError(
            f"paigow_site.pubsub is written against channels-redis {CHANNELS_REDIS_VERSION} and "
            f"found {found}: install the pinned release (uv sync), or read its pub/sub layer "
            "again against this module before moving the pin in pyproject.toml."
        )


require_channels_redis(version("channels-redis"))

# A channel subscribed to is usable once Redis confirms it; a Redis that does
# not within this long fails the subscription (the socket then closes and the
# page reconnects) instead of leaving it deaf.
CONFIRM_TIMEOUT_SECONDS = 10.0
# The PING sent after the subscriptions a reconnect made again: its PONG
# comes back after Redis has run every one of them.
RESUBSCRIBED = b"paigow-resubscribed"
# The channels new_channel() makes for consumers (health checks use others).
CONSUMER_CHANNEL = "specific."
# PUBLISHes one process has in flight at once, each on a pooled connection.
PUBLISHES_AT_ONCE = 32


def _retry() -> Retry:
    """Connections from a URL's pool try a command once: the first PUBLISH
    after a Redis restart failed on its stale connection (and the socket
    that sent it closed). This connects again, up to three times."""
    return Retry(ExponentialWithJitterBackoff(base=0.05, cap=1.0), 3)


class _ConfirmingPubSub(PubSub):
    """redis-py's PubSub that reports the confirmations it reads: each
    SUBSCRIBE's reply, and the end of a reconnect's subscriptions."""

    def __init__(
        self,
        *args: Any,
        confirmed: Callable[[str], None],
        resubscribed: Callable[[], None],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._confirmed, self._resubscribed = confirmed, resubscribed

    async def on_connect(self, connection: Any) -> None:
        # Called for every connect after the first: a reconnect. redis-py
        # sends the SUBSCRIBEs again; the PING after them marks their end.
        await super().on_connect(connection)
        await self.execute_command("PING", RESUBSCRIBED)

    async def handle_message(
        self, response: Any, ignore_subscribe_messages: bool = False
    ) -> dict[str, Any] | None:
        message: dict[str, Any] | None = await super().handle_message(  # type: ignore[no-untyped-call]
            response, False
        )
        if message is None:
            return None
        kind = message["type"]
        if kind == "subscribe":
            channel = message["channel"]
            self._confirmed(channel.decode() if isinstance(channel, bytes) else channel)
        elif kind == "pong" and message["data"] == RESUBSCRIBED:
            self._resubscribed()
            return None
        if kind in self.PUBLISH_MESSAGE_TYPES or not ignore_subscribe_messages:
            return message
        return None


class _ConfirmedShard(RedisSingleShardConnection):
    """One Redis host's connection, whose subscriptions return once confirmed."""

    def __init__(self, host: dict[str, Any], channel_layer: Any) -> None:
        super().__init__({"retry": _retry(), **host}, channel_layer)
        self._confirmations: dict[str, asyncio.Future[None]] = {}
        self._publishing = asyncio.Semaphore(PUBLISHES_AT_ONCE)

    async def publish(self, channel: str, message: bytes) -> None:
        """PUBLISH, beside the process's other publishes. The library holds
        the connection's one lock for each, through Redis's answer: under
        load every push and refresh of the process queued behind all the
        others, at least one event-loop turn each."""
        async with self._publishing:
            self._ensure_redis()  # no await: nothing runs in between
            redis: Any = self._redis
            await redis.publish(channel, message)

    def _ensure_redis(self) -> None:
        if self._redis is None:
            super()._ensure_redis()
            redis: Any = self._redis
            self._pubsub = _ConfirmingPubSub(
                redis.connection_pool,
                confirmed=self._confirm,
                resubscribed=self.channel_layer.resubscribed,
            )

    def _confirm(self, channel: str) -> None:
        waiter = self._confirmations.get(channel)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def subscribe(self, channel: str) -> None:
        async with self._lock:
            waiter = self._confirmations.get(channel)
            if waiter is None:
                waiter = asyncio.get_running_loop().create_future()
                self._confirmations[channel] = waiter
                try:
                    self._ensure_redis()
                    self._ensure_receiver()
                    await self._pubsub.subscribe(channel)
                except BaseException:
                    del self._confirmations[channel]
                    raise
                self._subscribed_to.add(channel)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), CONFIRM_TIMEOUT_SECONDS)
        except TimeoutError:
            # Forget it, so the next subscription to it asks Redis again.
            if self._confirmations.get(channel) is waiter:
                del self._confirmations[channel]
                self._subscribed_to.discard(channel)
            raise

    async def unsubscribe(self, channel: str) -> None:
        await super().unsubscribe(channel)
        self._forget(channel)

    async def flush(self) -> None:
        await super().flush()
        for channel in list(self._confirmations):
            self._forget(channel)

    def _forget(self, channel: str) -> None:
        waiter = self._confirmations.pop(channel, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)  # nobody listens on it any more


class _ConfirmedLoopLayer(RedisPubSubLoopLayer):
    """The layer of one event loop, on confirmed shards."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        hosts = [shard.host for shard in vars(self)["_shards"]]
        self._shards = [_ConfirmedShard(host, self) for host in hosts]

    def resubscribed(self) -> None:
        """Redis holds this process's subscriptions again after a reconnect:
        tell every consumer, which may have missed messages meanwhile."""
        if not self.on_reconnect:
            return
        log.warning("channel layer reconnected to Redis: every socket reads its state again")
        data = self.channel_layer.serialize({"type": self.on_reconnect})
        for name, queue in self.channels.items():
            if name.startswith(f"{self.prefix}{CONSUMER_CHANNEL}"):
                queue.put_nowait(data)


class ConfirmedPubSubChannelLayer(RedisPubSubChannelLayer):
    """``RedisPubSubChannelLayer`` whose subscriptions return once Redis holds
    them, and which tells every consumer (``on_reconnect``, a message type)
    when it has subscribed again after losing Redis."""

    def _get_layer(self) -> _ConfirmedLoopLayer:
        loop = asyncio.get_running_loop()
        if loop not in self._layers:
            # The library makes its own loop layer (no connection yet) and
            # flushes whichever is stored when the loop closes: store ours.
            super()._get_layer()
            ours = _ConfirmedLoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = ours
        layer: _ConfirmedLoopLayer = self._layers[loop]
        return layer
