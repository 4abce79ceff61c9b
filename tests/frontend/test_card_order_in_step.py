"""The review pages draw a hand in the table page's order: the engine's
``by_rank`` (the server-rendered pages) sorts every card as js/cards.mjs's
``byRank`` (the table, the practice page) does."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from games import engine
from tests.conftest import REPO

CARDS = REPO / "frontend" / "src" / "js" / "cards.mjs"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_by_rank_is_the_tables_order_for_every_card() -> None:
    deck = list(engine.DECK)
    random.Random(45).shuffle(deck)
    hands = [deck, *(deck[i:i + 7] for i in range(0, 49, 7)), ["2c", "JK", "2s", "Ah", "2h"]]
    script = (f"import {{ byRank }} from {json.dumps(CARDS.as_uri())};"
              f"console.log(JSON.stringify({json.dumps(hands)}.map(byRank)));")
    done = subprocess.run(["node", "--input-type=module", "-e", script], check=True,
                          capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout) == [list(engine.by_rank(hand)) for hand in hands]
