"""Whitenoise serves the client's files with the types browsers insist on."""

from __future__ import annotations

import gzip
import json
import subprocess

import pytest
from django.test import Client

from tests.conftest import REPO

pytestmark = pytest.mark.django_db
MANIFEST = REPO / "frontend" / "build" / "manifest.json"


def manifest() -> dict[str, str]:
    assert MANIFEST.exists(), "run the client build (make setup) first"
    return dict(json.loads(MANIFEST.read_text()))


def streamed(response: object) -> bytes:
    return b"".join(response.streaming_content)


def test_webassembly_is_served_as_application_wasm(client: Client) -> None:
    url = f"/static/{manifest()['pyodide']}pyodide.asm.wasm"
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/wasm"
    assert streamed(response)[:4] == b"\0asm"


def test_es_modules_are_served_as_javascript(client: Client) -> None:
    response = client.get(f"/static/{manifest()['pyodide']}pyodide.mjs")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")


def test_the_engine_archive_is_served(client: Client) -> None:
    response = client.get(f"/static/{manifest()['engine']}")
    assert response.status_code == 200
    assert streamed(response)[:2] == b"PK"


def test_stylesheet_is_served(client: Client) -> None:
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")


def test_the_pinned_runtime_and_engine_are_cached_for_a_year(client: Client) -> None:
    for path in (f"{manifest()['pyodide']}pyodide.asm.wasm", manifest()["engine"]):
        response = client.get(f"/static/{path}")
        assert "immutable" in response["Cache-Control"]
        assert "max-age=315360000" in response["Cache-Control"]


def test_unversioned_files_are_revalidated(client: Client) -> None:
    response = client.get("/static/css/site.css")
    assert "immutable" not in response.get("Cache-Control", "")


def served(client: Client, path: str, accept: str) -> tuple[object, bytes]:
    response = client.get(f"/static/{path}", headers={"accept-encoding": accept})
    assert response.status_code == 200, path
    return response, streamed(response)


@pytest.mark.parametrize(("accept", "encoding"), [("gzip, deflate", "gzip"),
                                                  ("gzip, deflate, br", "br")])
def test_webassembly_is_sent_compressed_to_a_browser_that_accepts_it(
    client: Client, accept: str, encoding: str
) -> None:
    """The build's precompressed copies, whitenoise choosing by Accept-Encoding."""
    path = f"{manifest()['pyodide']}pyodide.asm.wasm"
    response, body = served(client, path, accept)
    assert response["Content-Encoding"] == encoding
    assert response["Content-Type"] == "application/wasm"
    assert "Accept-Encoding" in response["Vary"]
    plain = (REPO / "frontend" / "build" / path).read_bytes()
    assert decoded(body, encoding) == plain


def test_webassembly_is_sent_whole_to_a_client_that_accepts_no_encoding(client: Client) -> None:
    path = f"{manifest()['pyodide']}pyodide.asm.wasm"
    response, body = served(client, path, "identity")
    assert "Content-Encoding" not in response
    assert body[:4] == b"\0asm"


@pytest.mark.parametrize("accept", ["gzip", "br"])
def test_the_engine_snapshot_is_sent_compressed_and_cached_for_a_year(
    client: Client, accept: str
) -> None:
    path = manifest().get("snapshot")
    assert path, "the client build made no engine snapshot"
    response, body = served(client, path, accept)
    assert response["Content-Encoding"] == accept
    assert "immutable" in response["Cache-Control"]
    plain = (REPO / "frontend" / "build" / path).read_bytes()
    assert len(body) < len(plain) // 4
    assert decoded(body, accept) == plain


BROTLI_DECODE = ("process.stdout.write(require('zlib').brotliDecompressSync("
                 "require('fs').readFileSync(0)))")


def decoded(body: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(body)
    return subprocess.run(
        ["node", "-e", BROTLI_DECODE],
        input=body, capture_output=True, check=True).stdout


def test_the_worker_is_served_from_a_content_named_copy_cached_for_a_year(
    client: Client,
) -> None:
    """The manifest's worker: its two modules, byte for byte the sources, cached for good."""
    worker = manifest()["worker"]
    folder = worker.rsplit("/", 1)[0]
    for name in ("engine-worker.mjs", "engine-core.mjs"):
        response = client.get(f"/static/{folder}/{name}")
        assert response.status_code == 200, name
        assert response["Content-Type"].startswith("text/javascript"), name
        assert "immutable" in response["Cache-Control"], name
        assert streamed(response) == (REPO / "frontend" / "src" / "js" / name).read_bytes(), (
            f"{name}: the build's copy is stale: run python frontend/build.py")


def test_the_unhashed_worker_is_revalidated(client: Client) -> None:
    response = client.get("/static/js/engine-worker.mjs")
    assert "immutable" not in response.get("Cache-Control", "")
