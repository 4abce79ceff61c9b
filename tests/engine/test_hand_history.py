"""engine.record_problems: an exported deal that the rules bear out passes,
and any change to what the rules decide is named."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games import engine
from games.engine.hand_history import example_record


def a_record(seed: int, mode: str, stake: int) -> dict[str, Any]:
    rng = random.Random(seed)
    deck = list(engine.shuffle_deck(rng))
    secret = f"{rng.getrandbits(128):032x}"
    mine, theirs = engine.deal_hands(deck)
    chosen = (rng.choice(engine.all_settings(mine)), rng.choice(engine.all_settings(theirs)))
    return example_record(deck, secret, engine.deck_commitment(deck, secret),
                          mode=mode, stake=stake, settings=chosen)


SEEDS = st.integers(0, 2**32)
MODES = st.sampled_from(["solo", "friend"])
STAKES = st.integers(1, 1000)


@settings(max_examples=150, deadline=None)
@given(SEEDS, MODES, STAKES)
def test_a_deal_as_exported_holds(seed: int, mode: str, stake: int) -> None:
    assert engine.record_problems(a_record(seed, mode, stake)) == []


@settings(max_examples=150, deadline=None)
@given(SEEDS, MODES, STAKES, st.sampled_from(["result", "ledger", "swap", "deck", "stake"]))
def test_a_change_to_what_the_rules_decide_is_named(
    seed: int, mode: str, stake: int, change: str
) -> None:
    record = a_record(seed, mode, stake)
    if change == "result":
        record["result"] = {"win": "loss", "loss": "push", "push": "win"}[record["result"]]
    elif change == "ledger":
        record["ledgers"]["with_5"]["delta"] = "1000000.00"
    elif change == "swap":  # one of your cards traded for one of the other side's
        mine, theirs = record["you"], record["other"]
        mine["back"][0], theirs["back"][0] = theirs["back"][0], mine["back"][0]
    elif change == "deck":
        record["deck"][20], record["deck"][30] = record["deck"][30], record["deck"][20]
    else:
        record["stake"] = stake + 1 if record["result"] != "push" else stake
        if record["result"] == "push":
            record["score"] = "0.25"
    assert engine.record_problems(record) != []


def test_a_record_of_another_format_or_version_is_refused() -> None:
    record = a_record(1, "solo", 5)
    assert engine.record_problems({**record, "version": 2}) == [
        "not a paigow-lab/hand-history record of version 1"
    ]
    assert engine.record_problems({**record, "format": "other"}) != []
    broken = {**record, "you": {"seat": 0}}
    assert engine.record_problems(broken)[0].startswith("the record cannot be read")
