"""One JSON request in, one JSON answer out: the ``batch`` command and the browser worker.

Field names match the golden vector files, so a vector line (minus its
expected answer) is a valid request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from .cards import parse_cards
from .exact import exact
from .explore import explore, explore_settings, explore_sums
from .guide import guide_view
from .hands import (
    SettingDescription,
    all_settings,
    back_category,
    compare_back,
    compare_front,
    describe_setting,
    is_foul,
)
from .house_way import house_way
from .luck import LUCK_SAMPLES, LuckEstimate, luck
from .settle import settle
from .skill import skill

Request = dict[str, Any]


def _field(request: Request, name: str) -> Any:
    if name not in request:
        raise ValueError(f"The request needs a “{name}” field.")
    return request[name]


def _cards(request: Request, name: str) -> str | list[str]:
    value = _field(request, name)
    if isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    ):
        return value
    raise ValueError(f"The “{name}” field should be cards written as text, like \"As Kd\".")


def _house_way(r: Request) -> Request:
    hw = house_way(_cards(r, "cards"))
    return {"front": " ".join(hw.setting.front), "back": " ".join(hw.setting.back), "row": hw.row}


def _described(d: SettingDescription) -> Request:
    return {"front": " ".join(d.front), "back": " ".join(d.back), "front_name": d.front_name,
            "back_name": d.back_name, "foul": d.foul, "foul_reason": d.foul_reason}


def _describe(r: Request) -> Request:
    return _described(describe_setting(_cards(r, "front"), _cards(r, "back")))


def _house_way_detail(r: Request) -> Request:
    hw = house_way(_cards(r, "cards"))
    return {**_described(describe_setting(hw.setting.front, hw.setting.back)),
            "row": hw.row, "reason": hw.reason}


def _all_settings(r: Request) -> Request:
    cards = _cards(r, "cards")
    chosen = house_way(cards).setting
    return {"settings": [{**_described(describe_setting(s.front, s.back)), "house_way": s == chosen}
                         for s in all_settings(cards)]}


def _estimate(r: Request) -> LuckEstimate:
    return luck(_cards(r, "cards"), mode=_field(r, "mode"), side=r.get("side", "player"),
                samples=r.get("samples", LUCK_SAMPLES))


def _counts(e: LuckEstimate) -> Request:
    return {"wins": e.wins, "pushes": e.pushes, "losses": e.losses, "luck": e.luck,
            "low": e.low, "high": e.high, "shown": e.shown, "shown_low": e.shown_low,
            "shown_high": e.shown_high}


def _luck(r: Request) -> Request:
    return _counts(_estimate(r))


def _luck_detail(r: Request) -> Request:
    e = _estimate(r)
    return {"samples": e.samples, **_counts(e), "label": e.label()}


def _explore(r: Request) -> Request:
    x = explore(_cards(r, "cards"), mode=_field(r, "mode"), side=r.get("side", "player"),
                samples=r.get("samples", LUCK_SAMPLES))
    return {"samples": x.samples, "settings": [
        {"front": " ".join(s.front), "back": " ".join(s.back), "front_name": s.front_name,
         "back_name": s.back_name, "foul": s.foul, "wins": s.wins, "pushes": s.pushes,
         "losses": s.losses, "expected": s.expected, "house_way": s.house_way}
        for s in x.settings]}


def _explore_range(r: Request) -> Request:
    cards = _cards(r, "cards")
    sums = explore_sums(cards, mode=_field(r, "mode"), side=r.get("side", "player"),
                        start=_field(r, "start"), stop=_field(r, "stop"))
    return {"start": sums.start, "stop": sums.stop, "settings": [
        {"front": " ".join(s.front), "back": " ".join(s.back), "front_name": s.front_name,
         "back_name": s.back_name, "foul": s.foul, "house_way": s.house_way,
         "wins": sums.wins[k], "pushes": sums.pushes[k], "losses": sums.losses[k]}
        for k, s in enumerate(explore_settings(cards))],
        "products": [list(row) for row in sums.products]}


def _exact(r: Request) -> Request:
    return exact(_cards(r, "cards"), mode=_field(r, "mode"),
                 side=r.get("side", "player")).to_json()


def _settings(r: Request) -> dict[str, Any]:
    return {k: _cards(r, k) for k in ("front", "back", "other_front", "other_back")}


OPS: dict[str, Callable[[Request], Request]] = {
    "house_way": _house_way,
    "back": lambda r: {"category": back_category(_cards(r, "cards"))},
    "compare_back": lambda r: {"cmp": compare_back(_cards(r, "a"), _cards(r, "b"))},
    "compare_front": lambda r: {"cmp": compare_front(_cards(r, "a"), _cards(r, "b"))},
    "foul": lambda r: {"foul": is_foul(_cards(r, "front"), _cards(r, "back"))},
    "settle": lambda r: {"result": settle(mode=_field(r, "mode"), **_settings(r)).result},
    "skill": lambda r: {"skill": skill(mode=_field(r, "mode"), cards=_cards(r, "cards"),
                                       side=r.get("side", "player"), **_settings(r))},
    "luck": _luck,
    "sort": lambda r: {"cards": text_of(_cards(r, "cards"))},
    # Page-facing ops: the browser's worker asks these for what a player reads.
    "describe": _describe,
    "house_way_detail": _house_way_detail,
    "settings": _all_settings,
    "luck_detail": _luck_detail,
    "explore": _explore,
    # What the server sends a seat with its cards (engine.guide): names, fouls, coaching.
    "guide": lambda r: guide_view(_cards(r, "cards"),
                                  None if r.get("front") is None else _cards(r, "front")),
    # Opponents [start, stop) of the explorer's stream (the first 120 are luck's),
    # with the sums the page adds up chunk by chunk (engine.explore.explore_sums).
    "explore_range": _explore_range,
    # Every setting against all C(46, 7) house-way opponents, exactly (engine.exact):
    # well under a second once the pattern tables are built (seconds, once a process).
    "exact": _exact,
}


def text_of(cards: str | Iterable[str]) -> str:
    """Cards as space-separated codes in deck order.

    >>> text_of("Kd As")
    'As Kd'
    """
    return " ".join(parse_cards(cards))


def answer(request: object) -> dict[str, Any]:
    """Answer one request; a bad one gets ``{"error": sentence}``, never an exception.

    >>> answer({"op": "back", "cards": "Kh Qh Jh Th JK"})
    {'category': 'royal flush'}
    >>> answer({"op": "dance"})
    {'error': 'There is no operation called “dance”.'}
    """
    if not isinstance(request, dict):
        return {"error": "Each request is a JSON object with an “op” field."}
    op = request.get("op")
    handler = OPS.get(op) if isinstance(op, str) else None
    if handler is None:
        return {"error": f"There is no operation called “{op}”." if op is not None
                else "Each request needs an “op” field."}
    try:
        return handler(request)
    except (ValueError, TypeError) as exc:  # CardError is a ValueError
        return {"error": str(exc)}


def answer_line(line: str) -> str:
    """Answer one JSON line with one JSON line (no newline).

    >>> answer_line('{"op": "foul", "front": "9s 9h", "back": "Ks Qd 7c 4h 2s"}')
    '{"foul": true}'
    >>> answer_line("{nope")
    '{"error": "That line is not valid JSON."}'
    """
    try:
        request = json.loads(line)
    except ValueError:
        return json.dumps({"error": "That line is not valid JSON."}, ensure_ascii=False)
    return json.dumps(answer(request), ensure_ascii=False)


def run(lines: Iterable[str], out: TextIO) -> int:
    """Answer JSON Lines from ``lines`` onto ``out``, flushing each; returns the count."""
    count = 0
    for line in lines:
        if not line.strip():
            continue
        out.write(answer_line(line) + "\n")
        out.flush()
        count += 1
    return count


__all__ = ["OPS", "answer", "answer_line", "run"]
