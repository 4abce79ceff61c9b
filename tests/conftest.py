"""Shared fixtures for the whole suite."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture(autouse=True)
def fresh_sign_up_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign-up counts (per address: every test client is 127.0.0.1) of one test,
    or of an earlier run on a shared Redis cache, never reach another test."""
    import uuid

    from accounts import limits

    limiter = limits.SIGN_UP
    monkeypatch.setattr(
        limits,
        "SIGN_UP",
        limits.Limiter(f"signup-test-{uuid.uuid4().hex}", dict(limiter.limits), limiter.window),
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(autouse=True, scope="session")
def celery_in_process() -> Iterator[None]:
    """Tasks queued by the code under test run at once, in this process, even
    with REDIS_URL set: nothing is left on a broker for a worker to find. The
    multi-process tests run their own worker against the real broker."""
    from paigow_site.celery import app

    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test given ``clean_env`` runs the project in processes of its own,
    with the embedded environment whatever the suite's: the same on both
    backends, so the SQLite pass of ``make test`` runs it only once."""
    for item in items:
        if "clean_env" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.own_environment)


@pytest.fixture
def clean_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment with none of the service variables: the embedded default."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_DEBUG", "ALLOWED_HOSTS"}
        and not key.startswith("PYTEST_")
    }
    env["PAIGOW_VAR_DIR"] = str(tmp_path / "var")
    return env


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: apt-get install chromium (never download a browser)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(autouse=True)
def fresh_channel_layer() -> Iterator[None]:
    """A new channel layer per test: each async test runs on its own event
    loop, and a channels-redis layer built on an earlier loop holds locks bound
    to it ("bound to a different event loop"), so reuse is flaky on Redis."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def socket_db_calls_finished() -> Iterator[None]:
    """Table sockets run their database calls on a thread pool. A call still
    running when a test ends (a socket the test left open) would touch the
    next test's rows, or hold a connection while the test database is
    dropped: wait for it, and start the next test with a new pool."""
    yield
    from games.realtime.db_threads import stop_db_threads

    stop_db_threads()
