"""Helpers for the browser-engine tests: the build, Node, and CPython's answers.

The reference is always CPython running games.engine: `python -m games.engine
batch` answers every op, the page-facing ones included. The worker's Python glue
(extracted from frontend/src/js/engine-core.mjs and executed here) only
marshals, so under CPython it must answer exactly like batch.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "tests" / "vectors"
FRONTEND = REPO / "frontend"
BUILD = FRONTEND / "build"
ENGINE_CORE = FRONTEND / "src" / "js" / "engine-core.mjs"
NODE_HARNESS = FRONTEND / "tools" / "engine-node.mjs"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

# vector file -> (op, the fields that are the expected answer)
VECTOR_OPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "back": ("back", ("category",)),
    "back_compare": ("compare_back", ("cmp",)),
    "front_compare": ("compare_front", ("cmp",)),
    "foul": ("foul", ("foul",)),
    "house_way": ("house_way", ("front", "back", "row")),
    "luck": ("luck", ("wins", "pushes", "losses", "luck", "low", "high", "shown", "shown_low",
                      "shown_high")),
    "settle": ("settle", ("result",)),
    "skill": ("skill", ("skill",)),
}


def missing(reason: str, *, skip_outside_ci: bool = True) -> NoReturn:
    """Fail in CI (CI=true); elsewhere skip with the reason."""
    if IN_CI or not skip_outside_ci:
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def node_path() -> str:
    node = shutil.which("node")
    if node is None:
        missing("node (Node 20) is not on PATH: the Pyodide harness needs it")
    return node


def build_module() -> Any:
    spec = importlib.util.spec_from_file_location("frontend_build", FRONTEND / "build.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def ensure_build() -> dict[str, str]:
    """Build frontend/build from the current engine source and return its manifest.

    Building is quick and idempotent; it guarantees the archive under test is
    the engine in this checkout, not a stale one.
    """
    if not (FRONTEND / "node_modules" / "pyodide" / "package.json").is_file():
        missing("frontend/node_modules/pyodide is missing: run `make setup` (npm ci) first")
    run = subprocess.run([sys.executable, str(FRONTEND / "build.py")], cwd=REPO,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, f"frontend/build.py failed:\n{run.stdout}\n{run.stderr}"
    manifest: dict[str, str] = json.loads((BUILD / "manifest.json").read_text())
    archive = BUILD / manifest["engine"]
    assert archive.is_file(), archive
    assert archive.read_bytes() == build_module().engine_archive(), (
        "the engine archive in the build differs from games/engine in this checkout")
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
        assert (BUILD / manifest["pyodide"] / name).is_file(), name
    return manifest


def load_vectors(name: str) -> list[dict[str, Any]]:
    path = VECTORS / f"{name}.jsonl"
    if not path.is_file():
        pytest.fail(f"golden vectors missing: {path}", pytrace=False)
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def vector_request(name: str, line: dict[str, Any]) -> dict[str, Any]:
    """A vector line as a request: its op, minus the expected answer."""
    op, answer_keys = VECTOR_OPS[name]
    return {"op": op, **{k: v for k, v in line.items() if k not in answer_keys}}


def sample_vectors(per_file: int = 25) -> list[tuple[str, dict[str, Any]]]:
    """An evenly spaced, fixed sample of every vector file (all lines of small ones)."""
    if not VECTORS.is_dir():
        pytest.fail(f"golden vectors missing: {VECTORS}",
                    pytrace=False)
    out = []
    for name in VECTOR_OPS:
        lines = load_vectors(name)
        assert lines, f"{name}.jsonl is empty"
        step = max(1, len(lines) // per_file)
        out += [(name, line) for line in lines[::step][:per_file]]
    return out


def batch_cpython(requests: list[Any]) -> list[Any]:
    """Answers of `python -m games.engine batch` (this interpreter) to requests
    (objects or raw lines)."""
    stdin = "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n"
                    for r in requests)
    run = subprocess.run([sys.executable, "-m", "games.engine", "batch"], input=stdin,
                         capture_output=True, text=True, cwd=REPO, timeout=300, encoding="utf-8",
                         check=False)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


def batch_node(
    requests: list[Any], *, snapshot: bool | Path = False, build: Path = BUILD
) -> tuple[list[Any], str]:
    """Answers of the Node/Pyodide harness to the same requests, and its stderr.

    With ``snapshot`` the harness boots as the worker does from the build's
    memory snapshot (True) or from that file, falling back to booting Python
    when it is refused; its stderr says ``(boot: snapshot|python|fallback)``.
    """
    node = node_path()
    manifest = ensure_build()
    if snapshot is True and "snapshot" not in manifest:
        missing("the client build made no engine snapshot (frontend/build.py said why)")
    stdin = "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n"
                    for r in requests)
    command = [node, str(NODE_HARNESS), "--timing", "--build", str(build)]
    if snapshot:
        command += ["--snapshot"] + ([] if snapshot is True else [str(snapshot)])
    run = subprocess.run(command, input=stdin,
                         capture_output=True, text=True, cwd=REPO, timeout=600, encoding="utf-8",
                         check=False)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()], run.stderr


@cache
def _glue_handle() -> Any:
    source = ENGINE_CORE.read_text(encoding="utf-8")
    match = re.search(r"const GLUE = String\.raw`(.*?)`;", source, re.DOTALL)
    assert match, "engine-core.mjs no longer defines its GLUE string"
    namespace: dict[str, Any] = {"ENGINE_DIR": str(REPO)}
    exec(compile(match.group(1), str(ENGINE_CORE) + ":GLUE", "exec"), namespace)
    return namespace["handle"]


def glue_cpython(request: Any) -> Any:
    """The worker's answer computed by CPython 3.x running the same (marshalling) glue."""
    line = request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
    return json.loads(_glue_handle()(line))
