"""Checking an exported hand history (docs/hand-history.md) with the rules alone.

One record is one revealed deal from one player's side. ``record_problems``
re-derives everything the rules decide from the deck and the two settings,
and says what does not agree: the shuffle's commitment, the cards each side
was dealt, that each setting uses exactly its seven cards, the house way,
the settlement (each part, the result, the foul, the score), the decision
skill and both ledgers' moves. Luck (an estimate from random opponents) and
the decision cost (an analysis the site ran) are reported, not re-derived.
Nothing here needs the site: the engine is the standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from .cards import CardError, sort_cards
from .fair import deal_hands, verify_shuffle
from .hands import Setting
from .house_way import house_way
from .settle import ledger_delta, settle
from .skill import skill

FORMAT = "paigow-lab/hand-history"
VERSION = 1


def record_problems(record: Mapping[str, Any]) -> list[str]:
    """What in one exported record the rules do not bear out (empty: all of it does).

    >>> from .fair import deck_commitment
    >>> from .cards import DECK
    >>> deck = list(DECK)
    >>> record = example_record(deck, "secret", deck_commitment(deck, "secret"))
    >>> record_problems(record)
    []
    >>> record_problems({**record, "secret": "guess"})
    ['the deck and secret do not match the commitment published before the deal']
    >>> record_problems({**record, "result": "win"})
    ["result: the record says 'win', the rules say 'push'"]
    """
    if record.get("format") != FORMAT or record.get("version") != VERSION:
        return [f"not a {FORMAT} record of version {VERSION}"]
    try:
        return list(_problems(record))
    except (CardError, KeyError, TypeError, ValueError, InvalidOperation) as error:
        return [f"the record cannot be read: {error}"]


def _problems(record: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    deck, you, other = record["deck"], record["you"], record["other"]
    if not verify_shuffle(deck, record["secret"], record["commitment"]):
        problems.append("the deck and secret do not match the commitment published before the deal")
    dealt = deal_hands(deck)
    for side, label in ((you, "your"), (other, "the other side's")):
        if sort_cards(side["cards"]) != dealt[side["seat"]]:
            problems.append(f"{label} cards are not the ones the deck dealt to seat {side['seat']}")
        if sort_cards([*side["front"], *side["back"]]) != sort_cards(side["cards"]):
            problems.append(f"{label} setting does not use exactly its seven cards")
    if problems:
        return problems
    mode, stake = record["mode"], record["stake"]
    way = house_way(you["cards"]).setting
    shown = record["house_way"]
    if (way.front, way.back) != (sort_cards(shown["front"]), sort_cards(shown["back"])):
        problems.append("the house way shown is not the one the rules set")
    settled = settle(mode=mode, front=you["front"], back=you["back"],
                     other_front=other["front"], other_back=other["back"])
    expected = {
        "front": settled.front, "back": settled.back, "result": settled.result,
        "foul": settled.foul, "other foul": settled.other_foul,
    }
    found = {
        "front": record["parts"]["front"], "back": record["parts"]["back"],
        "result": record["result"], "foul": you["foul"], "other foul": other["foul"],
    }
    problems += _differences(found, expected)
    problems += _differences(
        {"score": Decimal(record["score"])}, {"score": Decimal(str(settled.score))}
    )
    if record["skill"] is not None:
        derived = skill(mode=mode, cards=you["cards"], front=you["front"], back=you["back"],
                        other_front=other["front"], other_back=other["back"])
        problems += _differences(
            {"skill": Decimal(record["skill"])}, {"skill": Decimal(str(derived))}
        )
    delta = ledger_delta(settled.result, stake)
    problems += _differences(
        {"actual ledger": Decimal(record["ledgers"]["actual"]["delta"]),
         "with-5% ledger": Decimal(record["ledgers"]["with_5"]["delta"])},
        {"actual ledger": Decimal(delta.actual), "with-5% ledger": delta.with_commission},
    )
    return problems


def _differences(found: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    return [
        f"{name}: the record says {found[name]!r}, the rules say {expected[name]!r}"
        for name in expected
        if found[name] != expected[name]
    ]


def example_record(
    deck: Sequence[str], secret: str, commitment: str, *, mode: str = "solo", stake: int = 10,
    settings: tuple[Setting, Setting] | None = None,
) -> dict[str, Any]:
    """A record of a deal from ``deck`` as the site exports it, each side set
    as ``settings`` says (by default by the house way): the docs' example
    and the tests' start.

    >>> from .cards import DECK
    >>> example_record(list(DECK), "s", "c")["result"]
    'push'
    """
    mine, theirs = deal_hands(deck)
    way = house_way(mine)
    you, dealer = settings or (way.setting, house_way(theirs).setting)
    settled = settle(mode=mode, front=you.front, back=you.back,
                     other_front=dealer.front, other_back=dealer.back)
    delta = ledger_delta(settled.result, stake)
    judged = skill(mode=mode, cards=mine, front=you.front, back=you.back,
                   other_front=dealer.front, other_back=dealer.back)
    return {
        "format": FORMAT, "version": VERSION, "deal_id": 1, "table_id": 1, "mode": mode,
        "deal_number": 1, "dealt_at": "2026-12-05T12:00:00+00:00",
        "revealed_at": "2026-12-05T12:00:30+00:00", "stake": stake,
        "commitment": commitment, "deck": list(deck), "secret": secret,
        "you": {"name": "ada", "seat": 0, "cards": list(mine), "front": list(you.front),
                "back": list(you.back), "foul": settled.foul},
        "other": {"name": "Dealer", "seat": 1, "cards": list(theirs),
                  "front": list(dealer.front), "back": list(dealer.back),
                  "foul": settled.other_foul},
        "house_way": {"front": list(way.setting.front), "back": list(way.setting.back),
                      "row": way.row},
        "parts": {"front": settled.front, "back": settled.back},
        "result": settled.result, "score": str(Decimal(str(settled.score))),
        "skill": str(Decimal(str(judged))),
        "ledgers": {
            "actual": {"delta": str(delta.actual), "balance": str(1000 + delta.actual)},
            "with_5": {"delta": str(delta.with_commission),
                       "balance": str(Decimal(1000) + delta.with_commission)},
        },
        "luck": None, "cost": None,
    }
