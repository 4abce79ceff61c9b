"""The history as CSV: one row a revealed deal, every cell safe to open in a
spreadsheet. The rows are the same records as the pages and the API
(``games.history.selectors``), read a chunk of hands at a time."""

from __future__ import annotations

import csv
from collections.abc import AsyncIterator, Iterator
from itertools import islice
from typing import Any

from asgiref.sync import sync_to_async

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


def _csv_records(*, user: Any, filters: HandFilters | None,
                 chunk: int) -> Iterator[list[Any]]:
    hands = revealed_hands(user=user, filters=filters)
    ids = list(hands.values_list("pk", flat=True))
    for start in range(0, len(ids), chunk):
        page = list(hands.filter(pk__in=ids[start:start + chunk]))
        for r in hand_records(page):
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


def _take(rows: Iterator[list[Any]], count: int) -> list[list[Any]]:
    return list(islice(rows, count))


async def csv_stream(rows: Iterator[list[Any]]) -> AsyncIterator[str]:
    """Write the rows a chunk at a time; the database work runs in Django's
    sync thread, so a long history streams without being held in memory."""
    writer = csv.writer(_Echo())
    while chunk := await sync_to_async(_take)(rows, STREAM_ROWS):
        yield "".join(writer.writerow(row) for row in chunk)
