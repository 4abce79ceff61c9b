"""The browser's engine (Pyodide 3.14 in Node) answers exactly like CPython's.

One fixed set of requests goes through `python -m games.engine batch` and
through frontend/tools/engine-node.mjs, which loads the built Pyodide runtime and
the served engine archive through the Web Worker's own glue
(frontend/src/js/engine-core.mjs). Answers must be identical, luck counts,
explorer tallies, floats and error sentences included. Every test runs twice:
with Python booted and the engine imported, and with the engine restored from
the build's memory snapshot (the worker's path when the manifest names one). The page-facing ops
(describe, house_way_detail, settings, luck_detail, explore) are batch ops like
the rest.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tests.engine.vector_files import SAMPLE_HANDS as HANDS
from tests.frontend.engine_support import (
    VECTOR_OPS,
    batch_cpython,
    batch_node,
    glue_cpython,
    sample_vectors,
    vector_request,
)

pytestmark = pytest.mark.slow


def luck_requests() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for cards in HANDS:
        out.append({"op": "luck", "cards": cards, "mode": "solo"})  # side defaults to player
        out.append({"op": "luck", "cards": cards, "mode": "solo", "side": "player", "samples": 120})
        out.append({"op": "luck", "cards": cards, "mode": "solo", "side": "dealer", "samples": 120})
        out.append(
            {"op": "luck", "cards": cards, "mode": "friend", "side": "player", "samples": 120}
        )
    out.append({"op": "luck", "cards": HANDS[1], "mode": "solo", "side": "dealer", "samples": 2})
    out.append({"op": "luck", "cards": HANDS[2], "mode": "friend", "samples": 400})
    out.append({"op": "luck", "cards": HANDS[0].split(), "mode": "solo", "side": "player"})
    return out


# The page-facing ops the worker's pages ask for.
PAGE_REQUESTS: list[Any] = [
    *({"op": "settings", "cards": cards} for cards in HANDS),
    *({"op": "house_way_detail", "cards": cards} for cards in HANDS),
    {"op": "describe", "front": "9s 9h", "back": "Ks Qd 7c 4h 2s"},
    {"op": "describe", "front": "Ad Kd", "back": "As Qd 7c 4h 2s"},
    {"op": "describe", "front": "Kd JK", "back": "As Ac 7c 4h 2s"},
    {"op": "luck_detail", "cards": HANDS[0], "mode": "solo", "side": "dealer"},
    {"op": "luck_detail", "cards": HANDS[1], "mode": "friend"},
    *({"op": "explore", "cards": cards, "mode": "solo"} for cards in HANDS),
    {"op": "explore", "cards": HANDS[0], "mode": "solo", "side": "dealer", "samples": 120},
    {"op": "explore", "cards": HANDS[1], "mode": "friend", "samples": 120},
    {"op": "explore", "cards": HANDS[6].split(), "mode": "friend", "samples": 7},
    # The server's guide (engine.guide) is the same engine on Python 3.14.
    *({"op": "guide", "cards": cards} for cards in HANDS),
    {"op": "guide", "cards": HANDS[0], "front": HANDS[0].split()[:2]},
    # The progressive explorer's chunks, in order (the stream continued) and not.
    {"op": "explore_range", "cards": HANDS[0], "mode": "solo", "start": 0, "stop": 120},
    {"op": "explore_range", "cards": HANDS[0], "mode": "solo", "start": 120, "stop": 1000},
    {"op": "explore_range", "cards": HANDS[1], "mode": "solo", "side": "dealer", "start": 0,
     "stop": 300},
    {"op": "explore_range", "cards": HANDS[2], "mode": "friend", "start": 500, "stop": 700},
]

ERROR_REQUESTS: list[Any] = [
    "{nope",
    "[1, 2]",
    '"house_way"',
    "{}",
    {"op": "dance"},
    {"op": 7},
    {"op": "house_way"},
    {"op": "house_way", "cards": "As Ah 8d 8c Ks 7h"},
    {"op": "house_way", "cards": "As As 8d 8c Ks 7h 4d"},
    {"op": "house_way", "cards": "As Ah 8d 8c Ks 7h Zz"},
    {"op": "house_way", "cards": 7},
    {"op": "house_way", "cards": ["As", 5, "8d", "8c", "Ks", "7h", "4d"]},
    {"op": "back", "cards": "Kh Qh Jh Th"},
    {"op": "compare_front", "a": "As", "b": "Kd Kc"},
    {"op": "foul", "front": "9s 9h"},
    {"op": "settle", "mode": "duo", "front": "8h 6d", "back": "Js Qh 5d Tc JK",
     "other_front": "Ac 5c", "other_back": "Ks 3s Ah 9h 6c"},
    {"op": "skill", "mode": "solo", "cards": "8s 6s Jh 9h 9c 8c 3c", "front": "6s 9h",
     "back": "8s Jh 9c 8c 2c", "other_front": "3h 7c", "other_back": "Ad Qd 6d 3d 2d"},
    {"op": "luck", "cards": HANDS[0], "mode": "friend", "side": "dealer"},
    {"op": "luck", "cards": HANDS[0], "mode": "solo", "side": "house"},
    {"op": "luck", "cards": HANDS[0], "mode": "solo", "samples": 1},
    {"op": "luck", "cards": HANDS[0], "mode": "solo", "samples": True},
    {"op": "luck", "cards": HANDS[0], "mode": "solo", "samples": "120"},
    {"op": "luck", "cards": HANDS[0]},
    {"op": "luck", "cards": "Ａs Ah 8d 8c Ks 7h 4d", "mode": "solo"},  # noqa: RUF001 - a fullwidth A
    {"op": "describe", "front": "9s"},
    {"op": "settings", "cards": "As Ah"},
    {"op": "house_way_detail", "cards": "As As 8d 8c Ks 7h 4d"},
    {"op": "luck_detail", "cards": HANDS[0], "mode": "friend", "side": "dealer"},
    {"op": "explore", "cards": HANDS[0], "mode": "friend", "side": "dealer"},
    {"op": "explore", "cards": HANDS[0], "mode": "solo", "samples": 0},
    {"op": "explore", "cards": HANDS[0], "mode": "solo", "samples": True},
    {"op": "explore", "cards": HANDS[0]},
    {"op": "explore", "cards": "As Ah 8d 8c Ks 7h", "mode": "solo"},
    {"op": "guide", "cards": HANDS[0], "front": "2c 3c"},
    {"op": "guide", "cards": "As Ah 8d 8c Ks 7h"},
    {"op": "explore_range", "cards": HANDS[0], "mode": "solo", "start": 10, "stop": 5},
    {"op": "explore_range", "cards": HANDS[0], "mode": "solo", "start": 0, "stop": 50_001},
]


@pytest.fixture(scope="module")
def sampled() -> list[tuple[str, dict[str, Any]]]:
    lines = sample_vectors(per_file=25)
    assert {name for name, _ in lines} == set(VECTOR_OPS)
    assert 150 <= len(lines) <= 250, len(lines)
    return lines


@pytest.fixture(scope="module")
def cpython_runs(sampled: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    requests = [vector_request(name, line) for name, line in sampled]
    requests += luck_requests() + PAGE_REQUESTS + ERROR_REQUESTS
    return {"requests": requests, "cpython": batch_cpython(requests)}


@pytest.fixture(scope="module", params=["python", "snapshot"])
def runs(request: pytest.FixtureRequest, cpython_runs: dict[str, Any]) -> dict[str, Any]:
    boot = request.param
    node, stderr = batch_node(cpython_runs["requests"], snapshot=boot == "snapshot")
    return {**cpython_runs, "node": node, "stderr": stderr, "boot": boot}


def test_every_request_gets_one_answer(runs: dict[str, Any]) -> None:
    assert len(runs["cpython"]) == len(runs["requests"]) == len(runs["node"])
    assert "loaded in" in runs["stderr"], runs["stderr"]


def test_the_engine_booted_the_way_asked(runs: dict[str, Any]) -> None:
    # A refused snapshot would fall back to booting Python and still answer.
    assert f"(boot: {runs['boot']})" in runs["stderr"], runs["stderr"]


def test_pyodide_answers_equal_cpython_batch(runs: dict[str, Any]) -> None:
    mismatches = [
        (request, want, got)
        for request, want, got in zip(runs["requests"], runs["cpython"], runs["node"], strict=True)
        if want != got or json.dumps(want, sort_keys=True) != json.dumps(got, sort_keys=True)
    ]
    assert not mismatches, mismatches[:5]


def test_pyodide_answers_match_the_vectors(
    runs: dict[str, Any], sampled: list[tuple[str, dict[str, Any]]]
) -> None:
    # The vectors come first; the node's answers go on to the other requests.
    for (name, line), got in zip(sampled, runs["node"], strict=False):
        assert "error" not in got, (name, line, got)
        for key in VECTOR_OPS[name][1]:
            if isinstance(line[key], float) and name == "luck":
                assert math.isclose(got[key], line[key], abs_tol=1e-6), (name, key, line, got)
            else:
                assert got[key] == line[key], (name, key, line, got)


def test_luck_covers_both_modes_and_sides(runs: dict[str, Any]) -> None:
    lucks = [(r, a) for r, a in zip(runs["requests"], runs["node"], strict=True)
             if isinstance(r, dict) and r.get("op") == "luck" and "error" not in a]
    kinds = {(r["mode"], r.get("side", "player")) for r, _ in lucks}
    assert kinds == {("solo", "player"), ("solo", "dealer"), ("friend", "player")}
    for request, answer in lucks:
        assert answer["wins"] + answer["pushes"] + answer["losses"] == request.get("samples", 120)


def test_page_ops_are_answered_in_pyodide(runs: dict[str, Any]) -> None:
    answered = {r["op"] for r, a in zip(runs["requests"], runs["node"], strict=True)
                if isinstance(r, dict) and "error" not in a}
    assert {"describe", "house_way_detail", "settings", "luck_detail", "explore",
            "explore_range"} <= answered
    explores = [(r, a) for r, a in zip(runs["requests"], runs["node"], strict=True)
                if isinstance(r, dict) and r.get("op") == "explore" and "error" not in a]
    assert {(r["mode"], r.get("side", "player")) for r, _ in explores} == {
        ("solo", "player"), ("solo", "dealer"), ("friend", "player")}
    for request, answer in explores:
        assert answer["samples"] == request.get("samples", 120)
        assert len(answer["settings"]) == 21
        assert sum(s["house_way"] for s in answer["settings"]) == 1


def test_errors_are_answers_with_the_same_sentences(runs: dict[str, Any]) -> None:
    start = len(runs["requests"]) - len(ERROR_REQUESTS)
    for request, got in zip(ERROR_REQUESTS, runs["node"][start:], strict=True):
        assert set(got) == {"error"}, (request, got)
        assert got["error"].strip(), request


def test_the_worker_glue_only_marshals() -> None:
    """Under CPython the worker's glue answers every request exactly like batch."""
    from games.engine.batch import answer_line

    for request in luck_requests()[:3] + PAGE_REQUESTS + ERROR_REQUESTS:
        line = request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
        assert glue_cpython(request) == json.loads(answer_line(line)), request


def test_page_ops_report_engine_results() -> None:
    from games.engine import (
        all_settings,
        back_name,
        explore,
        foul_reason,
        front_name,
        house_way,
        luck,
    )
    from games.engine.batch import answer

    for cards in HANDS:
        settings = answer({"op": "settings", "cards": cards})["settings"]
        assert len(settings) == 21
        assert [s["front"] for s in settings] == [" ".join(s.front) for s in all_settings(cards)]
        assert sum(s["house_way"] for s in settings) == 1
        hw = house_way(cards)
        chosen = next(s for s in settings if s["house_way"])
        assert chosen["front"] == " ".join(hw.setting.front)
        detail = answer({"op": "house_way_detail", "cards": cards})
        assert (detail["row"], detail["reason"]) == (hw.row, hw.reason)
        assert detail["front_name"] == front_name(hw.setting.front)
        assert detail["back_name"] == back_name(hw.setting.back)
        for s in settings:
            assert s["foul_reason"] == foul_reason(s["front"], s["back"])
            assert s["foul"] == (s["foul_reason"] is not None)
        explored = answer({"op": "explore", "cards": cards, "mode": "solo"})
        row = next(s for s in explored["settings"] if s["house_way"])
        e = luck(cards, mode="solo", side="player")
        assert (row["wins"], row["pushes"], row["losses"]) == (e.wins, e.pushes, e.losses)
        expected = explore(cards, mode="solo").settings[0].expected
        assert explored["settings"][0]["expected"] == expected
    shown = answer({"op": "luck_detail", "cards": HANDS[1], "mode": "solo"})
    label = luck(HANDS[1], mode="solo", side="player").label()
    assert shown["label"] == label == "Luck 7.2 (6.6–7.7)"
    assert "error" in answer({"op": "describe", "front": "9s"})
