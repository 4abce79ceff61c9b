"""Shared helpers for the engine tests: where the golden vectors live."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# ../shared/vectors beside the repository root (CI clones shared/ next to it).
VECTORS = Path(__file__).resolve().parents[2].parent / "shared" / "vectors"
VECTOR_FILES = ("back", "back_compare", "front_compare", "foul", "house_way", "luck", "settle", "skill")


def load_vectors(name: str) -> list[dict[str, Any]]:
    """Every line of one vector file; fails loudly when the folder is missing."""
    path = VECTORS / f"{name}.jsonl"
    assert path.is_file(), f"golden vectors missing: {path} (shared/ must sit beside the repo)"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines, f"{path} is empty"
    return lines
