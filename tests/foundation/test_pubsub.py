"""The pub/sub channel layer (paigow_site.pubsub): a subscription returns once
Redis holds it, and after Redis restarts every socket's channel is told, so
it can read what it may have missed, hears its group again, and a process
that published before the restart publishes after it."""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

import pytest
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from redis import asyncio as aioredis

from paigow_site.pubsub import PUBLISHES_AT_ONCE, ConfirmedPubSubChannelLayer
from tests.conftest import IN_CI
from tests.system.test_faults import Redis, _redis_server

pytestmark = pytest.mark.services

# Each write towards Redis is held this long: a SUBSCRIBE the layer has
# written is still on its way when group_add returns, unless it waits.
DELAY_SECONDS = 0.3


def own_loop(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run the test's coroutine on an event loop of its own thread: after the
    browser tests, Playwright's sync API leaves the main thread marked as
    running a loop, and pytest-asyncio cannot run one there any more."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, test(*args, **kwargs)).result()

    return run


def redis_url() -> str:
    if not settings.REDIS_URL:
        if IN_CI:
            pytest.fail("REDIS_URL is not set")
        pytest.skip("REDIS_URL is not set")
    return str(settings.REDIS_URL)


@asynccontextmanager
async def slow_link_to(url: str) -> AsyncIterator[str]:
    """A TCP proxy to ``url``'s Redis that delays everything sent to Redis
    (answers come back at once); yields its own URL."""
    target = aioredis.Redis.from_url(url).connection_pool.connection_kwargs

    async def forward(reader: Any, writer: Any, delay: float) -> None:
        try:
            while data := await reader.read(65536):
                await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def serve(client_reader: Any, client_writer: Any) -> None:
        server_reader, server_writer = await asyncio.open_connection(
            target.get("host", "127.0.0.1"), target.get("port", 6379)
        )
        await asyncio.gather(
            forward(client_reader, server_writer, DELAY_SECONDS),
            forward(server_reader, client_writer, 0),
        )

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.close()


async def subscribers(url: str, channel: str) -> int:
    """How many connections Redis has subscribed to ``channel``, asked directly."""
    direct = aioredis.Redis.from_url(url)
    try:
        [(_name, count)] = await direct.pubsub_numsub(channel)
        return int(count)
    finally:
        await direct.aclose()


def prefix() -> str:
    return f"pubsub-test-{uuid.uuid4().hex[:8]}"


@own_loop
async def test_group_add_returns_once_redis_holds_the_subscription() -> None:
    url = redis_url()
    async with slow_link_to(url) as slow:
        layer = ConfirmedPubSubChannelLayer(hosts=[slow], prefix=prefix())
        try:
            channel = await layer.new_channel()
            assert await subscribers(url, channel) == 1
            await layer.group_add("table.1", channel)
            assert await subscribers(url, layer._get_group_channel_name("table.1")) == 1
        finally:
            await layer.flush()


@own_loop
async def test_the_librarys_own_layer_returns_before_redis_holds_it() -> None:
    """Why paigow_site.pubsub exists: when this fails, channels-redis waits
    for Redis itself and the subclass's confirmation can go."""
    url = redis_url()
    async with slow_link_to(url) as slow:
        layer = RedisPubSubChannelLayer(hosts=[slow], prefix=prefix())
        try:
            channel = await layer.new_channel()
            assert await subscribers(url, channel) == 0
        finally:
            await layer.flush()


@own_loop
async def test_publishes_run_side_by_side_up_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library publishes one at a time under its connection's lock; under
    load a socket's answer waited behind every push of its process."""
    layer = ConfirmedPubSubChannelLayer(hosts=[redis_url()], prefix=prefix())
    shard = layer._get_layer()._shards[0]
    shard._ensure_redis()
    gate, in_flight, most = asyncio.Event(), 0, 0

    async def publish(channel: str, message: bytes) -> None:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await gate.wait()
        in_flight -= 1

    monkeypatch.setattr(shard._redis, "publish", publish)
    sends = [
        asyncio.ensure_future(layer.group_send(f"table.{n}", {"type": "table.refresh"}))
        for n in range(PUBLISHES_AT_ONCE + 8)
    ]
    for _ in range(50):
        await asyncio.sleep(0)
    assert most == PUBLISHES_AT_ONCE
    gate.set()
    await asyncio.gather(*sends)
    assert in_flight == 0
    await layer.flush()


@own_loop
async def test_the_layer_reads_redis_with_the_c_parser() -> None:
    """hiredis (a dependency) parses what Redis sends: every push a socket
    hears and every publish's answer. redis-py falls back to its own Python
    parser without a word when hiredis is missing, for about a tenth more
    CPU on each (docs/benchmarks.md, seventeenth round)."""
    layer = ConfirmedPubSubChannelLayer(hosts=[redis_url()], prefix=prefix())
    try:
        channel = await layer.new_channel()
        shard = layer._get_layer()._shards[0]
        await shard._redis.publish(channel, b"not a message")  # a pooled connection made
        pooled = shard._redis.connection_pool._available_connections
        parsers = {type(c._parser).__name__ for c in pooled}
        parsers.add(type(shard._pubsub.connection._parser).__name__)
        assert parsers == {"_AsyncHiredisParser"}
    finally:
        await layer.flush()


@pytest.mark.slow
@own_loop
async def test_after_redis_restarts_each_socket_channel_is_told_and_hears_its_group() -> None:
    redis = Redis(_redis_server())
    redis.start()
    url = f"redis://127.0.0.1:{redis.port}/0"
    name = prefix()
    layer = ConfirmedPubSubChannelLayer(hosts=[url], prefix=name, on_reconnect="table.resync")
    other_process = ConfirmedPubSubChannelLayer(hosts=[url], prefix=name)
    try:
        socket = await layer.new_channel()
        probe = await layer.new_channel("healthz.")  # not a socket's channel
        await layer.group_add("table.1", socket)
        await other_process.group_send("table.1", {"type": "table.state", "n": 0})
        assert await asyncio.wait_for(layer.receive(socket), 5) == {"type": "table.state", "n": 0}
        await asyncio.to_thread(redis.stop)
        await asyncio.to_thread(redis.start)  # empty: it knows no subscription
        told = await asyncio.wait_for(layer.receive(socket), 30)
        assert told == {"type": "table.resync"}
        assert await subscribers(url, layer._get_group_channel_name("table.1")) == 1
        # On the connection it used before the restart: it connects again.
        await other_process.group_send("table.1", {"type": "table.state", "n": 1})
        assert await asyncio.wait_for(layer.receive(socket), 5) == {"type": "table.state", "n": 1}
        assert layer._get_layer().channels[probe].empty()
    finally:
        await layer.flush()
        await other_process.flush()
        await asyncio.to_thread(redis.stop)


@own_loop
async def test_without_on_reconnect_a_restart_sends_nothing() -> None:
    """The option is off unless set: other consumers need no handler for it."""
    redis = Redis(_redis_server())
    redis.start()
    url = f"redis://127.0.0.1:{redis.port}/0"
    layer = ConfirmedPubSubChannelLayer(hosts=[url], prefix=prefix())
    try:
        socket = await layer.new_channel()
        await layer.group_add("table.1", socket)
        await asyncio.to_thread(redis.stop)
        await asyncio.to_thread(redis.start)
        group = layer._get_group_channel_name("table.1")
        for _ in range(300):  # subscribed again, within 30 s
            if await subscribers(url, group) == 1:
                break
            await asyncio.sleep(0.1)
        assert await subscribers(url, group) == 1
        await asyncio.sleep(0.5)  # past the reconnect's PONG
        assert layer._get_layer().channels[socket].empty()
    finally:
        await layer.flush()
        await asyncio.to_thread(redis.stop)


def test_the_layer_refuses_a_channels_redis_it_was_not_written_against() -> None:
    from paigow_site.pubsub import CHANNELS_REDIS_VERSION, require_channels_redis

    require_channels_redis(CHANNELS_REDIS_VERSION)
    with pytest.raises(ImportError, match=r"channels-redis 4\.3\.0 and found 4\.4\.0"):
        require_channels_redis("4.4.0")


def test_the_installed_channels_redis_is_the_pinned_one() -> None:
    from importlib.metadata import version

    from paigow_site.pubsub import CHANNELS_REDIS_VERSION

    assert version("channels-redis") == CHANNELS_REDIS_VERSION


def test_the_system_check_finds_every_private_name_the_layer_uses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from paigow_site import checks

    monkeypatch.setattr(
        settings, "CHANNEL_LAYERS",
        {"default": {"BACKEND": checks.PUBSUB_LAYER, "CONFIG": {"hosts": ["redis://127.0.0.1:1"]}}},
    )
    assert checks.channels_redis_private_names() == []
    monkeypatch.setattr(checks, "SHARD_NAMES", (*checks.SHARD_NAMES, "_renamed_upstream"))
    [error] = checks.channels_redis_private_names()
    assert error.id == "paigow.E001"
    assert "shard._renamed_upstream" in error.msg
