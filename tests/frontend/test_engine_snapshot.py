"""The engine's Pyodide memory snapshot: pinned, keyed, and refused safely.

The snapshot options are underscore-private in Pyodide (`_makeSnapshot`,
`makeMemorySnapshot`, `_loadSnapshot`), so the pinned version is checked here
to still have them. A snapshot that Pyodide or the engine's digest check
refuses must not break the engine: the worker's boot (engine-core.mjs
`bootEngine`, run here through the Node harness) falls back to booting Python
and answers exactly like CPython. The parity of the snapshot path itself is in
test_pyodide_parity.py.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.frontend.engine_support import (
    BUILD,
    FRONTEND,
    batch_cpython,
    batch_node,
    build_module,
    ensure_build,
)

pytestmark = pytest.mark.slow

PYODIDE = FRONTEND / "node_modules" / "pyodide"
REQUESTS: list[Any] = [
    {"op": "house_way", "cards": "As Ah 8d 8c Ks 7h 4d"},
    {"op": "luck", "cards": "Kh Qh 9d 3d Kc 6c 4c", "mode": "solo", "side": "dealer"},
    {"op": "explore", "cards": "Js Ts 9h 4d 3c 2c JK", "mode": "friend", "samples": 7},
    {"op": "dance"},
]


def snapshot_bytes() -> bytes:
    manifest = ensure_build()
    if "snapshot" not in manifest:
        pytest.fail("the client build made no engine snapshot", pytrace=False)
    return (BUILD / manifest["snapshot"]).read_bytes()


def answers_after(snapshot: bool | Path, build: Path = BUILD) -> tuple[list[Any], str]:
    answers, stderr = batch_node(REQUESTS, snapshot=snapshot, build=build)
    assert answers == batch_cpython(REQUESTS), stderr
    return answers, stderr


def test_the_pinned_pyodide_has_the_snapshot_options() -> None:
    package = json.loads((FRONTEND / "package.json").read_text())
    assert package["dependencies"]["pyodide"] == "314.0.7"
    assert json.loads((PYODIDE / "package.json").read_text())["version"] == "314.0.7"
    typings = (PYODIDE / "pyodide.d.ts").read_text()
    for option in ("_makeSnapshot?: boolean;", "_loadSnapshot?: Uint8Array",
                   "static makeMemorySnapshot(", "createPyodideModule?: CreatePyodideModuleFn;"):
        assert option in typings, option
    loader = (PYODIDE / "pyodide.mjs").read_text()
    assert "_loadSnapshot" in loader
    # engine-worker.mjs answers these two globals with its kept WebAssembly.
    assert "{response:fetch(n,t?{integrity:t}:{})}" in loader
    assert "WebAssembly.instantiateStreaming(n,s)" in loader


def test_the_snapshot_is_named_by_what_it_holds() -> None:
    manifest = ensure_build()
    key = build_module().snapshot_key(manifest["engine"], manifest["pyodide"])
    assert manifest["snapshot"] == f"engine/snapshot-{key}.bin"
    for suffix in (".gz", ".br"):
        assert (BUILD / (manifest["snapshot"] + suffix)).is_file(), suffix


def test_the_build_s_snapshot_boots_without_python() -> None:
    _, stderr = answers_after(True)
    assert "(boot: snapshot)" in stderr, stderr


def test_a_garbled_snapshot_falls_back_to_booting_python(tmp_path: Path) -> None:
    garbled = tmp_path / "garbled.bin"
    garbled.write_bytes(b"\x00" * 64 + snapshot_bytes()[64:4096])
    _, stderr = answers_after(garbled)
    assert "(boot: fallback)" in stderr, stderr
    assert "invalid magic number" in stderr, stderr


def test_a_snapshot_of_another_pyodide_build_falls_back(tmp_path: Path) -> None:
    data = bytearray(snapshot_bytes())
    data[16:48] = bytes(32)  # the build id Pyodide writes in the header
    other = tmp_path / "other-build.bin"
    other.write_bytes(bytes(data))
    _, stderr = answers_after(other)
    assert "(boot: fallback)" in stderr, stderr
    assert "build id mismatch" in stderr, stderr


def test_a_snapshot_missing_on_disk_falls_back(tmp_path: Path) -> None:
    _, stderr = answers_after(tmp_path / "none.bin")
    assert "(boot: fallback)" in stderr, stderr


def test_a_snapshot_of_another_engine_archive_falls_back(tmp_path: Path) -> None:
    """The heap records the archive's SHA-256; a different archive refuses it."""
    manifest = ensure_build()
    build = tmp_path / "build"
    shutil.copytree(BUILD / manifest["pyodide"], build / manifest["pyodide"])
    (build / "engine").mkdir()
    archive = build / manifest["engine"]
    shutil.copyfile(BUILD / manifest["engine"], archive)
    with zipfile.ZipFile(archive, "a") as changed:
        changed.comment = b"another build of the engine"
    (build / "manifest.json").write_text(json.dumps(manifest))
    _, stderr = answers_after(BUILD / manifest["snapshot"], build=build)
    assert "(boot: fallback)" in stderr, stderr
    assert "The snapshot holds engine" in stderr, stderr
