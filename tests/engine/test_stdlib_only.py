"""The engine runs in the browser too: standard library only, no Django."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"


def test_engine_imports_only_the_standard_library() -> None:
    files = sorted(ENGINE.glob("*.py"))
    assert files
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative imports stay inside the engine
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top != "django", f"{path.name} imports django"
                assert top in sys.stdlib_module_names, f"{path.name} imports {name}"
