"""frontend/test/fixtures/exact.json is the exact endpoint's ready answer today.

The page's exact table (explorer.mjs: exactModel) is tested in Node against
it: the hand of explore-range.json, solo, a player's side, as
``GET /api/tables/{id}/deals/{number}/exact/`` answers it (``games.api.views.ExactView``).
After an intended change of the engine, rewrite it with
`.venv/bin/python -m tests.frontend.test_exact_fixture`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from games.engine import exact
from tests.frontend.test_explorer_fixture import CARDS

FIXTURE = Path(__file__).resolve().parents[2] / "frontend/test/fixtures/exact.json"


def current() -> dict[str, Any]:
    return {"status": "ready", **exact(CARDS, mode="solo", side="player").to_json()}


def test_the_pages_exact_fixture_is_what_the_endpoint_answers() -> None:
    assert json.loads(FIXTURE.read_text(encoding="utf-8")) == current()


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(current(), ensure_ascii=False, indent=1) + "\n",
                       encoding="utf-8")
