"""Start the real site (daphne) in its own process and wait until it is healthy.

Shared by the browser tests, the multi-process tests and the benchmarks, so
there is one way to run a live server: migrate, start daphne on a free
loopback port, poll /healthz, and stop the whole process group afterwards.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SERVICE_VARIABLES = {"DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG", "SECRET_KEY"}


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def embedded_env(var_dir: Path, **extra: str) -> dict[str, str]:
    """This process's environment without service variables: the embedded default."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in SERVICE_VARIABLES and not key.startswith("PYTEST_")
    }
    env["PAIGOW_VAR_DIR"] = str(var_dir)
    env.update(extra)
    return env


def wait_healthy(base: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the site exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise RuntimeError(f"the site did not answer {base}/healthz within {seconds}s")


def migrate(env: Mapping[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=REPO, env=dict(env), check=True,
    )


def stop_group(process: subprocess.Popen[bytes], seconds: float = 10) -> None:
    """SIGTERM ``process``'s group (started with ``start_new_session``), wait
    for a clean stop, and SIGKILL it only if it is not gone in ``seconds``."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextmanager
def live_site(
    env: Mapping[str, str], *, log_path: Path | None = None, port: int | None = None
) -> Iterator[str]:
    """Serve the site under ``env`` as production runs it (daphne through
    ``paigow_site.server``, access log on); yields its base URL."""
    port = port or free_port()
    log = log_path.open("wb") if log_path else None
    process = subprocess.Popen(
        [sys.executable, "-m", "paigow_site.server", "-b", "127.0.0.1", "-p", str(port),
         "paigow_site.asgi:application"],
        cwd=REPO, env=dict(env), stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, process)
        yield base
    finally:
        stop_group(process)
        if log:
            log.close()


@contextmanager
def background_process(
    command: list[str], env: Mapping[str, str], *, log_path: Path | None = None,
    stop_seconds: float = 20,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` (a Celery worker or beat, say) in its own process group
    under ``env``; on exit send the group SIGTERM, wait for a clean stop, and
    kill it only if it does not stop in ``stop_seconds``."""
    log = log_path.open("wb") if log_path else None
    process = subprocess.Popen(
        command, cwd=REPO, env=dict(env), stdout=log or subprocess.DEVNULL,
        stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        yield process
    finally:
        stop_group(process, stop_seconds)
        if log:
            log.close()
