"""`make run` serves the home page and /healthz with the embedded default."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO, free_port

pytestmark = pytest.mark.slow


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_make_run_serves_home_and_healthz(clean_env: dict[str, str]) -> None:
    port = free_port()
    env = {k: v for k, v in clean_env.items() if not k.startswith("MAKE")}
    server = subprocess.Popen(
        ["make", "--no-print-directory", "run", f"PORT={port}"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        status, body = 0, ""
        while time.monotonic() < deadline and server.poll() is None:
            try:
                status, body = fetch(f"{base}/healthz")
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.3)
        assert server.poll() is None, "make run exited early"
        assert status == 200, body
        assert json.loads(body)["status"] == "ok"
        home_status, home = fetch(f"{base}/")
        assert home_status == 200
        assert "Sign up" in home
        assert "Sign in" in home
        assert (clean_env_var_dir := env["PAIGOW_VAR_DIR"])
        assert (Path(clean_env_var_dir) / "db.sqlite3").exists()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            output, _ = server.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            output, _ = server.communicate()
    assert "serving Pai Gow Lab" in output
