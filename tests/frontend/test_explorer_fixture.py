"""frontend/test/fixtures/explore-range.json is what the engine answers today.

The page's explorer (frontend/src/js/explorer.mjs) is tested in Node against
that file: two chunks of the engine's explore_range and the estimates the
engine's own explore_estimates makes of their sum, float for float. This test
keeps the file true to the engine; after an intended change of the engine,
rewrite it with `.venv/bin/python -m tests.frontend.test_explorer_fixture`.
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

from games.engine import explore_estimates, explore_settings, explore_sums
from games.engine.batch import answer

FIXTURE = Path(__file__).resolve().parents[2] / "frontend/test/fixtures/explore-range.json"
CARDS = "7d 3h 6c As Jc Ts 4s"  # no pair: many settings close together
REQUEST = {"op": "explore_range", "cards": CARDS, "mode": "solo", "side": "player"}
STOPS = (0, 120, 1000)


def current() -> dict[str, Any]:
    chunks = [answer({**REQUEST, "start": a, "stop": b}) for a, b in pairwise(STOPS)]
    hw = next(k for k, s in enumerate(explore_settings(CARDS)) if s.house_way)
    estimates = {}
    for stop in STOPS[1:]:
        sums = explore_sums(CARDS, mode="solo", start=0, stop=stop)
        estimates[str(stop)] = [
            {"index": e.index, "expected": e.expected, "low": e.low, "high": e.high,
             "behind": e.behind, "behindLow": e.behind_low, "behindHigh": e.behind_high,
             "standing": e.standing}
            for e in explore_estimates(sums, hw)
        ]
    return {"request": REQUEST, "chunks": chunks, "estimates": estimates}


def write() -> None:
    FIXTURE.write_text(json.dumps(current(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def test_the_pages_explorer_fixture_is_what_the_engine_answers() -> None:
    assert json.loads(FIXTURE.read_text(encoding="utf-8")) == current()


if __name__ == "__main__":
    write()
