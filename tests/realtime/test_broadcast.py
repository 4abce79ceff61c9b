"""Refreshes published from synchronous code (games.realtime.broadcast).

A worker runs no event loop of its own. With ``publish_from_own_loop`` (what
a worker does as it starts) its refreshes go out on one lasting loop: the
channel layer's connection to Redis is made once, not once a publish, and
still works after Redis restarts. Each test has a private redis-server.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest
from redis import Redis as SyncRedis

from games.realtime import broadcast
from paigow_site.pubsub import ConfirmedPubSubChannelLayer
from tests.system.test_faults import Redis, private_redis

pytestmark = pytest.mark.slow


@pytest.fixture
def redis() -> Iterator[Redis]:
    with private_redis() as server:
        yield server

@pytest.fixture
def counter(redis: Redis) -> Iterator[SyncRedis]:
    """A client of its own, connected once, to ask the server questions."""
    client = SyncRedis(port=redis.port)
    client.ping()
    try:
        yield client
    finally:
        client.close()


def connections_made(counter: SyncRedis) -> int:
    """How many client connections the server has accepted since it started."""
    return int(counter.info("stats")["total_connections_received"])


class Listener:
    """A socket's channel in the table's group ``table.7.1``, on a loop that
    runs all along on a thread of its own (as a web process holds it)."""

    GROUP = "table.7.1"

    def __init__(self, url: str, prefix: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        self.layer = ConfirmedPubSubChannelLayer(hosts=[url], prefix=prefix)
        self.channel: str = self._run(self.layer.new_channel())
        self._run(self.layer.group_add(self.GROUP, self.channel))

    def _serve(self) -> None:
        # Closed on its own thread: channels-redis's close hook runs the loop
        # once more, which a thread already running one (the suite's main
        # thread, after the browser tests) may not do.
        self.loop.run_forever()
        self.loop.close()

    def _run(self, coroutine: Any, seconds: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(
            asyncio.wait_for(coroutine, seconds), self.loop
        ).result()

    def group_channel(self) -> str:
        """The Redis channel the group is published on."""

        async def name() -> str:
            return str(self.layer._get_group_channel_name(self.GROUP))

        return str(self._run(name()))

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = self._run(self.layer.receive(self.channel), 10)
        return message

    def close(self) -> None:
        self._run(self.layer.flush())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def listener(redis: Redis) -> Iterator[tuple[Listener, ConfirmedPubSubChannelLayer]]:
    url, prefix = f"redis://127.0.0.1:{redis.port}/0", f"broadcast-{uuid.uuid4().hex[:8]}"
    heard = Listener(url, prefix)
    try:
        yield heard, ConfirmedPubSubChannelLayer(hosts=[url], prefix=prefix)
    finally:
        heard.close()


def refresh_seat(layer: ConfirmedPubSubChannelLayer) -> None:
    """What a luck check does after its commit: refresh seat 1 of table 7,
    from a thread that runs no event loop, as a worker's does. (Not the
    suite's main thread: after the browser tests Playwright leaves it marked
    as running one.)"""
    table = SimpleNamespace(group_name="table.7")

    def refresh() -> None:
        broadcast.seats_changed(seats=[(table, 1)])  # type: ignore[list-item]

    with (
        mock.patch.object(broadcast, "get_channel_layer", return_value=layer),
        mock.patch("games.realtime.broadcast.transaction.on_commit", lambda send: send()),
        ThreadPoolExecutor(1) as worker,
    ):
        worker.submit(refresh).result()


@pytest.fixture
def own_loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[broadcast._PublishLoop]:
    loop = broadcast._PublishLoop()
    monkeypatch.setattr(broadcast, "_publish_loop", loop)
    yield loop
    if loop._loop is not None:
        loop._loop.call_soon_threadsafe(loop._loop.stop)


def test_a_worker_publishes_every_refresh_over_one_connection(
    counter: SyncRedis, listener: tuple[Listener, ConfirmedPubSubChannelLayer],
    own_loop: broadcast._PublishLoop,
) -> None:
    heard, layer = listener
    before = connections_made(counter)
    for _ in range(5):
        refresh_seat(layer)
        assert heard.receive() == broadcast.refresh_event()
    assert connections_made(counter) - before == 1


def test_without_its_own_loop_each_refresh_connects_again(
    counter: SyncRedis, listener: tuple[Listener, ConfirmedPubSubChannelLayer]
) -> None:
    """What ``publish_from_own_loop`` saves a worker (and the case the test
    above would fail as, without it)."""
    heard, layer = listener
    assert broadcast._publish_loop is None
    before = connections_made(counter)
    for _ in range(3):
        refresh_seat(layer)
        assert heard.receive() == broadcast.refresh_event()
    assert connections_made(counter) - before == 3


def test_its_loop_publishes_again_after_redis_restarts(
    redis: Redis, listener: tuple[Listener, ConfirmedPubSubChannelLayer],
    own_loop: broadcast._PublishLoop,
) -> None:
    heard, layer = listener
    refresh_seat(layer)
    assert heard.receive() == broadcast.refresh_event()
    redis.stop()
    redis.start()  # empty: the listener subscribes again by itself
    group = heard.group_channel()
    client = SyncRedis(port=redis.port)
    try:
        for _ in range(300):  # within 30 s
            if dict(client.pubsub_numsub(group)).get(group.encode()) == 1:
                break
            time.sleep(0.1)
    finally:
        client.close()
    refresh_seat(layer)  # on the connection it held before the restart
    assert heard.receive() == broadcast.refresh_event()


def test_a_failed_publish_raises_in_the_caller(own_loop: broadcast._PublishLoop) -> None:
    async def failing() -> None:
        raise ConnectionError("Redis is down")

    with pytest.raises(ConnectionError, match="Redis is down"):
        own_loop.run(failing)


def test_a_forked_process_makes_its_own_loop(own_loop: broadcast._PublishLoop) -> None:
    first = own_loop.loop()
    assert own_loop.loop() is first
    own_loop._pid = -1  # as a forked child finds it: made by its parent
    assert own_loop.loop() is not first
    first.call_soon_threadsafe(first.stop)
