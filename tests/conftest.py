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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
    yield env


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
