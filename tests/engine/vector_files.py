"""Shared helpers for the engine tests: where the golden vectors live."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# The repository's own copy of the golden vectors, kept byte for byte in step
# with the ones generated from the rules (docs/rules.md).
VECTORS = Path(__file__).resolve().parents[1] / "vectors"
VECTOR_FILES = (
    "back", "back_compare", "front_compare", "foul", "house_way", "luck", "settle", "skill"
)


def load_vectors(name: str) -> list[dict[str, Any]]:
    """Every line of one vector file; fails loudly when the folder is missing."""
    path = VECTORS / f"{name}.jsonl"
    assert path.is_file(), f"golden vectors missing: {path}"
    text = path.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert lines, f"{path} is empty"
    return lines


# Hands that reach many house-way rows: two pair, three pair, five aces, a
# straight flush with pairs, quads and joker straights.
SAMPLE_HANDS = (
    "As Ah 8d 8c Ks 7h 4d",
    "9s 2s Th 5h 2h Kd Kc",
    "Kh Qh 9d 3d Kc 6c 4c",
    "As Ah Kh Ad Kd Ac JK",
    "9s 9h 8h 7h 6h 5h 5c",
    "7s 7h 7d 7c Ah Jd 3c",
    "Js Ts 9h 4d 3c 2c JK",
)
