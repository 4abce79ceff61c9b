"""Shared fixtures for the whole suite."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

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


def chromium_path() -> str | None:
    return shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
