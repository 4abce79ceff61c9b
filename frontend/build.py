"""Build the browser client's static files into frontend/build/.

- Copies the Pyodide runtime from node_modules (pinned in package.json), so the
  site serves every file itself: no CDN.
- Packages the engine (games/engine, the very same source and data files the
  server uses) as a zip that the Web Worker unpacks into Pyodide's file system. The file name
  carries a content hash, so it can be cached for a year.
- Copies uPlot's browser bundle (the charts of the history pages, pinned in
  package.json) into build/vendor/uplot-<version>/.
- Makes the engine's Pyodide memory snapshot (Node, tools/engine-snapshot.mjs):
  the heap after the engine is imported, which the worker restores in ~0.35 s
  instead of booting Python (2-4 s). Its name is keyed by the engine archive,
  the Pyodide build and the code that makes and restores it. Without Node, or
  if making it fails, the build says so and the worker boots Python.
- Copies the engine worker's two modules (src/js/engine-worker.mjs and the
  engine-core.mjs it imports) into build/engine/worker-<hash>/, named by their
  content, so a returning player's browser starts the worker from its cache
  without asking the site again (the unhashed js/ copies must be revalidated).
- Writes .gz and .br copies of the big files (tools/precompress.mjs), which
  whitenoise serves by the browser's Accept-Encoding.
- Writes build/manifest.json naming the hashed files for the templates.

Run: python frontend/build.py   (idempotent; quick when nothing changed)
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

FRONTEND = Path(__file__).resolve().parent
ROOT = FRONTEND.parent
BUILD = FRONTEND / "build"
PYODIDE_SRC = FRONTEND / "node_modules" / "pyodide"
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",
)
# Served compressed: the rest is small, or a zip already.
PYODIDE_COMPRESSED = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "pyodide-lock.json")
TOOLS = FRONTEND / "tools"
# What a snapshot depends on besides the engine archive and the Pyodide runtime.
SNAPSHOT_CODE = (FRONTEND / "src" / "js" / "engine-core.mjs", TOOLS / "engine-snapshot.mjs")
# The worker's modules, copied together under a content-hashed folder.
WORKER_CODE = (FRONTEND / "src" / "js" / "engine-worker.mjs",
               FRONTEND / "src" / "js" / "engine-core.mjs")
UPLOT_SRC = FRONTEND / "node_modules" / "uplot"
UPLOT_FILES = ("dist/uPlot.iife.min.js", "dist/uPlot.min.css", "LICENSE")
# A fixed timestamp keeps the archive, and so its hash, reproducible.
ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def engine_archive() -> bytes:
    """Zip games/__init__.py, games/engine/**.py and the engine's data (the
    exact analysis's tables, exact_tables.bin) in a stable order."""
    sources = [ROOT / "games" / "__init__.py"]
    sources += sorted((ROOT / "games" / "engine").rglob("*.py"))
    sources += sorted((ROOT / "games" / "engine").rglob("*.bin"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sources:
            info = zipfile.ZipInfo(path.relative_to(ROOT).as_posix(), ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def copy_pyodide() -> str:
    if not PYODIDE_SRC.is_dir():
        sys.exit("frontend/node_modules/pyodide is missing: run `npm ci` in frontend/ first.")
    version = json.loads((PYODIDE_SRC / "package.json").read_text())["version"]
    target = BUILD / "pyodide" / version
    target.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        source, dest = PYODIDE_SRC / name, target / name
        if not dest.exists() or dest.stat().st_size != source.stat().st_size:
            shutil.copy2(source, dest)
    return version


def copy_uplot() -> str:
    """Copy uPlot's minified browser bundle and stylesheet; returns its folder."""
    if not UPLOT_SRC.is_dir():
        sys.exit("frontend/node_modules/uplot is missing: run `npm ci` in frontend/ first.")
    version = json.loads((UPLOT_SRC / "package.json").read_text())["version"]
    target = BUILD / "vendor" / f"uplot-{version}"
    target.mkdir(parents=True, exist_ok=True)
    for name in UPLOT_FILES:
        source, dest = UPLOT_SRC / name, target / Path(name).name
        if not dest.exists() or dest.read_bytes() != source.read_bytes():
            shutil.copy2(source, dest)
    return f"vendor/uplot-{version}/"


def write_engine() -> str:
    data = engine_archive()
    digest = hashlib.sha256(data).hexdigest()[:12]
    engine_dir = BUILD / "engine"
    engine_dir.mkdir(parents=True, exist_ok=True)
    name = f"engine-{digest}.zip"
    for stale in engine_dir.glob("engine-*.zip"):
        if stale.name != name:
            stale.unlink()
    (engine_dir / name).write_bytes(data)
    return f"engine/{name}"


def write_worker() -> str:
    """engine/worker-<hash>/ with the worker's modules; returns the worker script's path."""
    digest = hashlib.sha256()
    for path in WORKER_CODE:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    folder = BUILD / "engine" / f"worker-{digest.hexdigest()[:12]}"
    folder.mkdir(parents=True, exist_ok=True)
    for path in WORKER_CODE:
        copy = folder / path.name
        if not copy.is_file() or copy.read_bytes() != path.read_bytes():
            shutil.copy2(path, copy)
    for stale in (BUILD / "engine").glob("worker-*"):
        if stale != folder:
            shutil.rmtree(stale)
    return f"engine/{folder.name}/{WORKER_CODE[0].name}"


def node_tool(*args: str) -> subprocess.CompletedProcess[str] | None:
    """Run a tools/*.mjs script under Node; None when Node is not installed."""
    node = shutil.which("node")
    if node is None:
        return None
    return subprocess.run([node, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, check=False)


def snapshot_key(engine: str, pyodide: str) -> str:
    """12 hex digits naming a snapshot of this engine archive, Pyodide build and code."""
    digest = hashlib.sha256()
    for path in (BUILD / engine, BUILD / pyodide / "pyodide.asm.wasm",
                 BUILD / pyodide / "pyodide.asm.mjs", *SNAPSHOT_CODE):
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:12]


def write_snapshot(engine: str, pyodide: str) -> str | None:
    """engine/snapshot-<key>.bin (and its .gz, .br), made unless it exists; None if it fails."""
    name = f"engine/snapshot-{snapshot_key(engine, pyodide)}.bin"
    target = BUILD / name
    if not target.is_file():
        run = node_tool(str(TOOLS / "engine-snapshot.mjs"), "--build", str(BUILD), "--pyodide",
                        pyodide, "--archive", str(BUILD / engine), "--out", str(target))
        if run is None or run.returncode != 0:
            why = "node is not on PATH" if run is None else (run.stderr.strip() or run.stdout)
            print(f"frontend: no engine snapshot, the worker will boot Python ({why})",
                  file=sys.stderr)
            return None
    for stale in (BUILD / "engine").glob("snapshot-*"):
        if not stale.name.startswith(target.name):
            stale.unlink()
    return name


def compress_pyodide(pyodide: str) -> None:
    files = [str(BUILD / pyodide / name) for name in PYODIDE_COMPRESSED]
    run = node_tool(str(TOOLS / "precompress.mjs"), *files)
    if run is None or run.returncode != 0:
        why = "node is not on PATH" if run is None else run.stderr.strip()
        print(f"frontend: Pyodide is served uncompressed ({why})", file=sys.stderr)


def main() -> None:
    BUILD.mkdir(parents=True, exist_ok=True)
    version = copy_pyodide()
    manifest: dict[str, str] = {"pyodide": f"pyodide/{version}/", "pyodide_version": version}
    manifest["engine"] = write_engine()
    manifest["worker"] = write_worker()
    compress_pyodide(manifest["pyodide"])
    snapshot = write_snapshot(manifest["engine"], manifest["pyodide"])
    if snapshot:
        manifest["snapshot"] = snapshot
    manifest["uplot"] = copy_uplot()
    (BUILD / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"frontend: Pyodide {version}, {manifest['engine']}, {snapshot or 'no snapshot'}")


if __name__ == "__main__":
    main()
