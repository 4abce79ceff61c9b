"""The codes a table, a deal and a hand are recorded with, as plain tuples,
and the label a person reads for each: the one list that models, forms,
serializers and the engine's own checks build their choices from.

>>> RESULTS, PARTS
(('win', 'push', 'loss'), ('win', 'loss', 'copy'))
>>> choices(MODES)
[('solo', 'Solo'), ('friend', 'Friend')]
>>> choices(RESULTS, blank="Any result")[:2]
[('', 'Any result'), ('win', 'Win')]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

Mode = Literal["solo", "friend"]
Result = Literal["win", "push", "loss"]
Part = Literal["win", "loss", "copy"]
Side = Literal["player", "dealer"]
TableStatus = Literal["waiting", "betting", "playing", "finished"]
DealStatus = Literal["dealt", "revealed"]
Ledger = Literal["actual", "with_5"]

# A table is played alone against the dealer, or with a friend.
MODES: tuple[Mode, ...] = ("solo", "friend")
# A side's result of a deal, and of each of its two parts (a ``copy`` is a tie
# of one part, before the copy and foul rules decide the deal).
RESULTS: tuple[Result, ...] = ("win", "push", "loss")
PARTS: tuple[Part, ...] = ("win", "loss", "copy")
# Which side a hand is for luck and skill: the dealer only in solo.
SIDES: tuple[Side, ...] = ("player", "dealer")
# Waiting for the friend, agreeing a stake, a deal in progress, a stack at 0.
TABLE_STATUSES: tuple[TableStatus, ...] = ("waiting", "betting", "playing", "finished")
DEAL_STATUSES: tuple[DealStatus, ...] = ("dealt", "revealed")
# The actual chips, and the "with 5%" what-if ledger (rules §5).
LEDGERS: tuple[Ledger, ...] = ("actual", "with_5")

LABELS: dict[str, str] = {
    "solo": "Solo",
    "friend": "Friend",
    "win": "Win",
    "push": "Push",
    "loss": "Loss",
    "copy": "Copy",
    "player": "Player",
    "dealer": "Dealer",
    "waiting": "Waiting for a friend",
    "betting": "Agreeing a stake",
    "playing": "Deal in progress",
    "finished": "Finished",
    "dealt": "Dealt",
    "revealed": "Revealed",
    "actual": "Actual",
    "with_5": "With 5%",
}


def choices(codes: Iterable[str], *, blank: str | None = None) -> list[tuple[str, str]]:
    """``(code, label)`` pairs, as Django's ``choices`` take them; ``blank``,
    when given, is the label of an empty first choice (a filter's "any").

    >>> choices(LEDGERS)
    [('actual', 'Actual'), ('with_5', 'With 5%')]
    """
    pairs = [(code, LABELS[code]) for code in codes]
    return [("", blank), *pairs] if blank is not None else pairs
