"""/healthz answers 200 when the database and the channel layer answer, 503 otherwise."""

from __future__ import annotations

import asyncio
import uuid
from unittest import mock

import pytest
from django.conf import settings
from django.test import Client, override_settings

from paigow_site import health
from tests.conftest import IN_CI, free_port

pytestmark = pytest.mark.django_db


def test_it_is_healthy_when_database_and_layer_answer(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}


def test_it_reports_503_when_the_channel_layer_is_down(client: Client) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"
    layers = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [dead]},
        }
    }
    with override_settings(CHANNEL_LAYERS=layers):
        from channels.layers import channel_layers

        channel_layers.backends.clear()
        try:
            response = client.get("/healthz")
        finally:
            channel_layers.backends.clear()
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error"
    assert body["database"] == "ok"
    assert body["channel_layer"].startswith("error")


def test_it_reports_503_when_the_database_is_down(client: Client) -> None:
    with mock.patch("paigow_site.health.connection") as connection:
        connection.cursor.side_effect = OSError("connection refused")
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "error: OSError"


def redis_layer(backend: str) -> dict[str, object]:
    """A layer of ``backend`` on the tests' Redis, with a prefix of its own."""
    if not settings.REDIS_URL:
        if IN_CI:
            pytest.fail("REDIS_URL is not set")
        pytest.skip("REDIS_URL is not set")
    prefix = f"healthz-test-{uuid.uuid4().hex[:8]}"
    return {"BACKEND": backend, "CONFIG": {"hosts": [settings.REDIS_URL], "prefix": prefix}}


@pytest.mark.services
async def test_the_layer_check_answers_on_the_pubsub_layer() -> None:
    """Pub/sub keeps nothing for a channel nobody listens to: the check
    listens before it sends, or it would time out beside a healthy Redis."""
    layers = {"default": redis_layer("paigow_site.pubsub.ConfirmedPubSubChannelLayer")}
    with override_settings(CHANNEL_LAYERS=layers):
        from channels.layers import channel_layers, get_channel_layer

        channel_layers.backends.clear()
        try:
            assert await health._layer_status() == "ok"
            assert await health._layer_status() == "ok"  # and again, on the same layer
        finally:
            await get_channel_layer().flush()
            channel_layers.backends.clear()


@pytest.mark.services
async def test_the_layer_check_answers_while_a_socket_waits_on_the_layer() -> None:
    """A table socket spends its idle time blocked in the layer's receive on
    Redis; the check beside it still gets its own message back at once."""
    layers = {"default": redis_layer("channels_redis.core.RedisChannelLayer")}
    with override_settings(CHANNEL_LAYERS=layers):
        from channels.layers import channel_layers, get_channel_layer

        channel_layers.backends.clear()
        layer = get_channel_layer()
        idle = asyncio.create_task(layer.receive(await layer.new_channel()))
        try:
            await asyncio.sleep(0.5)  # the socket is now blocked on Redis
            assert await health._layer_status() == "ok"
        finally:
            idle.cancel()
            await layer.flush()
            channel_layers.backends.clear()
