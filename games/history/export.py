"""The history exported: as CSV, one row a revealed deal, every cell safe to
open in a spreadsheet; and as a hand history in JSON lines
(docs/hand-history.md), one object a revealed deal with its deck and secret,
which ``manage.py verify_hand_history`` re-settles with the engine. Both are
the same records as the pages and the API (``games.history.selectors``),
read a chunk of hands at a time."""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from itertools import islice
from typing import Any

from asgiref.sync import sync_to_async

from .. import engine
from ..models import Deal, Hand
from .selectors import HandFilters, hand_records, revealed_hands

# CSV rows written a time while streaming.
STREAM_ROWS = 200

CSV_COLUMNS = (
    "deal_id", "table", "mode", "deal_number", "revealed_at", "stake",
    "cards", "front", "back", "foul", "other", "other_cards", "other_front", "other_back",
    "other_foul",
    "house_front", "house_back", "house_row", "left_house_way",
    "front_result", "back_result", "result", "score",
    "actual_delta", "actual_balance", "with_5_delta", "with_5_balance",
    "luck", "luck_low", "luck_high", "luck_label", "skill",
    "cost_status", "cost_loss", "cost_at_best", "cost_best_front", "cost_opponents",
)


# A spreadsheet runs a cell that starts with one of these as a formula (CSV
# injection, and the other player's name is theirs to choose: "+1+d905-A1").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: Any) -> Any:
    """``value`` as a spreadsheet reads it as written: text that would start a
    formula gets OWASP's leading single quote. Numbers (int, Decimal, float)
    are the server's own figures, so a negative one stays a number."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def csv_rows(*, user: Any, filters: HandFilters | None = None,
             chunk: int = 500) -> Iterator[list[Any]]:
    """The history as CSV rows (header first), a chunk of hands at a time,
    every cell safe to open in a spreadsheet."""
    yield list(CSV_COLUMNS)
    for row in _csv_records(user=user, filters=filters, chunk=chunk):
        yield [spreadsheet_cell(value) for value in row]


def _records(*, user: Any, filters: HandFilters | None,
             chunk: int) -> Iterator[tuple[Hand, dict[str, Any]]]:
    """The user's revealed hands with their records, newest first, a chunk at a time."""
    hands = revealed_hands(user=user, filters=filters)
    ids = list(hands.values_list("pk", flat=True))
    for start in range(0, len(ids), chunk):
        page = list(hands.filter(pk__in=ids[start:start + chunk]))
        yield from zip(page, hand_records(page), strict=True)


def _csv_records(*, user: Any, filters: HandFilters | None,
                 chunk: int) -> Iterator[list[Any]]:
    for _, r in _records(user=user, filters=filters, chunk=chunk):
        you, other, way, luck, cost = (
            r["you"], r["other"], r["house_way"], r["luck"], r["cost"]
        )
        yield [
            r["id"], r["table"], r["mode"], r["deal_number"], r["revealed_at"].isoformat(),
            r["stake"], " ".join(you["cards"]), " ".join(you["front"]), " ".join(you["back"]),
            _yes(you["foul"]), other["name"], " ".join(other["cards"]),
            " ".join(other["front"]), " ".join(other["back"]), _yes(other["foul"]),
            " ".join(way["front"]), " ".join(way["back"]),
            way["row"], _yes(not way["followed"]),
            r["parts"]["front"], r["parts"]["back"], r["result"], r["score"],
            r["ledgers"]["actual"]["delta"], r["ledgers"]["actual"]["balance"],
            r["ledgers"]["with_5"]["delta"], r["ledgers"]["with_5"]["balance"],
            "" if luck["value"] is None else luck["value"],
            "" if luck["low"] is None else luck["low"],
            "" if luck["high"] is None else luck["high"],
            luck["label"], r["skill"],
            cost["status"], "" if cost["loss"] is None else format(cost["loss"], "f"),
            "" if cost["at_best"] is None else _yes(cost["at_best"]),
            " ".join(cost["best_front"]),
            "" if cost["opponents"] is None else cost["opponents"],
        ]


class _Echo:
    def write(self, value: str) -> str:
        return value


def _take(rows: Iterator[Any], count: int) -> list[Any]:
    return list(islice(rows, count))


async def csv_stream(rows: Iterator[list[Any]]) -> AsyncIterator[str]:
    """Write the rows a chunk at a time; the database work runs in Django's
    sync thread, so a long history streams without being held in memory."""
    writer = csv.writer(_Echo())
    while chunk := await sync_to_async(_take)(rows, STREAM_ROWS):
        yield "".join(writer.writerow(row) for row in chunk)


def hand_history_lines(*, user: Any, filters: HandFilters | None = None,
                       chunk: int = 500) -> Iterator[str]:
    """The history as JSON lines (docs/hand-history.md), one revealed deal a
    line, newest first."""
    for hand, record in _records(user=user, filters=filters, chunk=chunk):
        yield json.dumps(hand_history_record(record, hand.deal), default=_json_value) + "\n"


def hand_history_record(record: dict[str, Any], deal: Deal) -> dict[str, Any]:
    """One line of the hand history: the history's record of a revealed
    deal, with the shuffle's commitment, deck and secret."""
    you, other, way, luck, cost = (
        record["you"], record["other"], record["house_way"], record["luck"], record["cost"]
    )
    return {
        "format": engine.hand_history.FORMAT,
        "version": engine.hand_history.VERSION,
        "deal_id": record["id"],
        "table_id": record["table"],
        "mode": record["mode"],
        "deal_number": record["deal_number"],
        "dealt_at": record["dealt_at"],
        "revealed_at": record["revealed_at"],
        "stake": record["stake"],
        "commitment": deal.commitment,
        "deck": list(deal.deck),
        "secret": deal.secret,
        "you": _side(you),
        "other": _side(other),
        "house_way": {"front": way["front"], "back": way["back"], "row": way["row"]},
        "parts": record["parts"],
        "result": record["result"],
        "score": record["score"],
        "skill": record["skill"],
        "ledgers": record["ledgers"],
        "luck": None if luck["value"] is None else {
            "value": luck["value"], "low": luck["low"], "high": luck["high"],
            "label": luck["label"], "wins": luck["wins"], "pushes": luck["pushes"],
            "losses": luck["losses"],
        },
        "cost": None if cost["status"] == "pending" else {
            "method": cost["status"], "loss": cost["loss"], "at_best": cost["at_best"],
            "best_front": cost["best_front"], "opponents": cost["opponents"],
        },
    }


def _side(side: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": side["name"], "seat": side["seat"], "cards": side["cards"],
        "front": side["front"], "back": side["back"], "foul": side["foul"],
    }


def _json_value(value: Any) -> Any:
    """Decimals as their exact text, never in exponent form ("0.000000000",
    not "0E-9"); times in ISO 8601 with their offset."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, dt.datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


async def lines_stream(lines: Iterator[str]) -> AsyncIterator[str]:
    """Send the lines a chunk at a time, read in Django's sync thread."""
    while chunk := await sync_to_async(_take)(lines, STREAM_ROWS):
        yield "".join(chunk)
