"""Build the browser client's static files into frontend/build/.

- Copies the Pyodide runtime from node_modules (pinned in package.json), so the
  site serves every file itself: no CDN.
- Packages the engine (games/engine, the very same source the server uses) as a
  zip that the Web Worker unpacks into Pyodide's file system. The file name
  carries a content hash, so it can be cached for a year.
- Copies uPlot's browser bundle (the charts of the history pages, pinned in
  package.json) into build/vendor/uplot-<version>/.
- Writes build/manifest.json naming the hashed files for the templates.

Run: python frontend/build.py   (idempotent; quick when nothing changed)
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
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
UPLOT_SRC = FRONTEND / "node_modules" / "uplot"
UPLOT_FILES = ("dist/uPlot.iife.min.js", "dist/uPlot.min.css", "LICENSE")
# A fixed timestamp keeps the archive, and so its hash, reproducible.
ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def engine_archive() -> bytes:
    """Zip games/__init__.py and games/engine/**.py in a stable order."""
    sources = [ROOT / "games" / "__init__.py"]
    sources += sorted((ROOT / "games" / "engine").rglob("*.py"))
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


def main() -> None:
    BUILD.mkdir(parents=True, exist_ok=True)
    version = copy_pyodide()
    manifest = {"pyodide": f"pyodide/{version}/", "pyodide_version": version}
    manifest["engine"] = write_engine()
    manifest["uplot"] = copy_uplot()
    (BUILD / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"frontend: Pyodide {version}, {manifest['engine']}")


if __name__ == "__main__":
    main()
