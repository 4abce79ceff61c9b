"""Every line of every golden vector file, through the Python API and through `batch`."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine import (
    back_category,
    compare_back,
    compare_front,
    house_way,
    is_foul,
    luck,
    settle,
    skill,
)
from tests.engine.vector_files import VECTOR_FILES, VECTORS, load_vectors

REPO = Path(__file__).resolve().parents[2]
FLOAT_FIELDS = ("luck", "low", "high")


def _expected(name: str, line: dict[str, Any]) -> dict[str, Any]:
    keys = {
        "back": ("category",), "back_compare": ("cmp",), "front_compare": ("cmp",),
        "foul": ("foul",), "house_way": ("front", "back", "row"), "settle": ("result",),
        "skill": ("skill",),
        "luck": (
            "wins", "pushes", "losses", "luck", "low", "high", "shown", "shown_low", "shown_high"
        ),
    }[name]
    return {k: line[k] for k in keys}


def _request(name: str, line: dict[str, Any]) -> dict[str, Any]:
    op = {"back_compare": "compare_back", "front_compare": "compare_front"}.get(name, name)
    answer_keys = set(_expected(name, line))
    if name == "house_way":
        answer_keys -= {"front", "back"}
        request = {"op": op, "cards": line["cards"]}
    else:
        request = {"op": op, **{k: v for k, v in line.items() if k not in answer_keys}}
    return request


def _assert_matches(name: str, got: dict[str, Any], line: dict[str, Any]) -> None:
    want = _expected(name, line)
    assert set(got) >= set(want), (got, line)
    for key, value in want.items():
        if key in FLOAT_FIELDS:
            assert math.isclose(got[key], value, abs_tol=1e-6), (key, got, line)
        else:
            assert got[key] == value, (key, got, line)


def _via_api(name: str, d: dict[str, Any]) -> dict[str, Any]:
    if name == "back":
        return {"category": back_category(d["cards"])}
    if name == "back_compare":
        return {"cmp": compare_back(d["a"], d["b"])}
    if name == "front_compare":
        return {"cmp": compare_front(d["a"], d["b"])}
    if name == "foul":
        return {"foul": is_foul(d["front"], d["back"])}
    if name == "house_way":
        hw = house_way(d["cards"])
        return {
            "front": " ".join(hw.setting.front), "back": " ".join(hw.setting.back), "row": hw.row
        }
    sides = ("front", "back", "other_front", "other_back")
    parts = {k: d[k] for k in sides} if name in ("settle", "skill") else {}
    if name == "settle":
        return {"result": settle(mode=d["mode"], **parts).result}
    if name == "skill":
        return {"skill": skill(mode=d["mode"], cards=d["cards"], **parts)}
    e = luck(d["cards"], mode=d["mode"], side=d["side"], samples=d["samples"])
    return {k: getattr(e, k) for k in _expected("luck", d)}


def test_vector_folder_is_present() -> None:
    assert VECTORS.is_dir(), f"golden vectors missing: {VECTORS}"
    for name in VECTOR_FILES:
        assert (VECTORS / f"{name}.jsonl").is_file(), name


@pytest.mark.parametrize("name", VECTOR_FILES)
def test_every_vector_line_passes_through_the_api(name: str) -> None:
    lines = load_vectors(name)
    for line in lines:
        _assert_matches(name, _via_api(name, line), line)


@pytest.mark.parametrize("name", VECTOR_FILES)
def test_every_vector_line_passes_through_batch(name: str) -> None:
    lines = load_vectors(name)
    stdin = "".join(json.dumps(_request(name, line)) + "\n" for line in lines)
    run = subprocess.run(
        [sys.executable, "-m", "games.engine", "batch"], input=stdin, capture_output=True,
        text=True, cwd=REPO, timeout=120, check=True,
    )
    answers = [json.loads(out) for out in run.stdout.splitlines()]
    assert len(answers) == len(lines)
    for got, line in zip(answers, lines, strict=True):
        assert "error" not in got, (got, line)
        _assert_matches(name, got, line)


def test_the_repository_copy_is_in_step_with_the_shared_vectors() -> None:
    """The vectors are generated beside the rules; where that folder sits next
    to the checkout (the team's machines and CI), the copy must match it byte
    for byte. A fresh clone without it runs on the copy alone."""
    shared = REPO.parent / "shared" / "vectors"
    if not shared.is_dir():
        pytest.skip("no shared/vectors beside this checkout: the copy under tests/ is used alone")
    names = sorted(path.name for path in shared.glob("*.jsonl"))
    assert names == sorted(path.name for path in VECTORS.glob("*.jsonl"))
    for name in names:
        assert (VECTORS / name).read_bytes() == (shared / name).read_bytes(), name
