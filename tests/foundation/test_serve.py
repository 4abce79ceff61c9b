"""Production starts from the README alone: `make serve`, with the secret and
host names it asks for, prepares the static files (whitenoise's manifest, or
every page is a 500 with DJANGO_DEBUG=0) and serves pages, hashed static files
and the engine's WebAssembly with the right type."""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import signal
import subprocess
import time

import pytest

from tests.conftest import REPO, free_port

pytestmark = pytest.mark.slow
MANIFEST = REPO / "frontend" / "build" / "manifest.json"


def fetch(port: int, path: str, accept: str = "identity") -> tuple[int, dict[str, str], bytes]:
    """One request as the TLS proxy in front would pass it (X-Forwarded-Proto),
    without following redirects."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"X-Forwarded-Proto": "https",
                                                 "Accept-Encoding": accept})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def wait_until_up(port: int, server: subprocess.Popen[str], seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and server.poll() is None:
        try:
            return fetch(port, "/healthz")[0]
        except OSError:
            time.sleep(0.5)
    return 0


def test_the_readme_s_production_part_names_make_serve() -> None:
    readme = (REPO / "README.md").read_text()
    production = readme.split("## Production", 1)[1].split("\n## ", 1)[0]
    for words in ("make serve", "SECRET_KEY", "ALLOWED_HOSTS", "collectstatic"):
        assert words in production, words


def test_make_serve_runs_the_site_in_production_mode(clean_env: dict[str, str]) -> None:
    assert MANIFEST.exists(), "run the client build (make setup) first"
    port = free_port()
    env = {k: v for k, v in clean_env.items() if not k.startswith("MAKE")}
    env.update(SECRET_KEY=secrets.token_urlsafe(64), ALLOWED_HOSTS="127.0.0.1")
    server = subprocess.Popen(
        ["make", "--no-print-directory", "serve", f"PORT={port}"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    try:
        # The first run collects and compresses every static file (about a minute).
        assert wait_until_up(port, server, seconds=300) == 200, "make serve did not come up"
        status, headers, home = fetch(port, "/")
        assert status == 200
        assert "strict-transport-security" in headers  # production settings, not DEBUG
        stylesheet = re.search(rb'href="(/static/css/site\.[0-9a-f]{12}\.css)"', home)
        assert stylesheet, "the page links the manifest's hashed stylesheet"
        status, headers, _ = fetch(port, stylesheet.group(1).decode())
        assert status == 200
        assert headers["content-type"].startswith("text/css")
        pyodide = json.loads(MANIFEST.read_text())["pyodide"]
        status, headers, wasm = fetch(port, f"/static/{pyodide}pyodide.asm.wasm")
        assert status == 200
        assert headers["content-type"] == "application/wasm"
        assert wasm[:4] == b"\0asm"
        # Compressed copies from collectstatic (gzip) and the client build (brotli).
        for accept in ("gzip", "br"):
            status, headers, _ = fetch(port, f"/static/{pyodide}pyodide.asm.wasm", accept)
            assert (status, headers.get("content-encoding")) == (200, accept)
            assert headers["content-type"] == "application/wasm"
        snapshot = json.loads(MANIFEST.read_text()).get("snapshot")
        assert snapshot, "the client build made no engine snapshot"
        status, headers, _ = fetch(port, f"/static/{snapshot}", "br")
        assert (status, headers.get("content-encoding")) == (200, "br")
        assert "immutable" in headers["cache-control"]
        assert fetch(port, "/no-such-page/")[0] == 404  # not a 500: the error page renders
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            output, _ = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            output, _ = server.communicate()
    assert "serving Pai Gow Lab in production mode" in output, output[-3000:]
