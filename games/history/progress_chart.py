"""The record's progress chart drawn on the server: the geometry of an inline
SVG (no script, no CDN, so it shows wherever the page does) of the rolling
mean decision cost, yours and the house way's, against the decision number.

The SVG scales to its box (a ``viewBox``), so one drawing serves a phone and
a desktop; its figures are also in a table beside it for screen readers.
"""

from __future__ import annotations

import math
from typing import Any

from .record import shown

WIDTH, HEIGHT = 480, 260
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 12, 36  # room for the axes' labels
STEPS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0)
X_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2500, 5000, 10_000)
TABLE_EVERY = 10  # the figures' table: every tenth decision and the last


def _top(highest: float) -> tuple[float, float]:
    """The y axis's top and tick step: the smallest step of ``STEPS`` that
    covers ``highest`` in at most four ticks.

    >>> _top(0.0), _top(0.034), _top(0.09)
    ((0.001, 0.001), (0.04, 0.01), (0.1, 0.025))
    """
    for step in STEPS:
        ticks = max(1, math.ceil(highest / step - 1e-9))
        if ticks <= 4:
            return round(ticks * step, 6), step
    return 1.0, 0.25


def _x_ticks(first: int, last: int) -> list[int]:
    """The first and last decision numbers and the round ones between them
    (at most three, none crowding an end).

    >>> _x_ticks(1, 1), _x_ticks(1, 120), _x_ticks(251, 550)
    ([1], [1, 50, 120], [251, 400, 500, 550])
    """
    if first == last:
        return [first]
    span = last - first
    step = next((s for s in X_STEPS if span / s <= 4), math.ceil(span / 4))
    inner = range(math.ceil(first / step) * step, last + 1, step)
    return [first, *(t for t in inner if min(t - first, last - t) >= step / 2), last]


def progress_chart(progress: dict[str, Any]) -> dict[str, Any] | None:
    """The drawing of ``record.decision_progress``'s series, or None before
    the first exactly costed decision."""
    series = progress["series"]
    decisions, yours, house = series["decision"], series["yours"], series["house"]
    if not decisions:
        return None
    top, step = _top(max(*yours, *house))
    first, last = decisions[0], decisions[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(decision: int) -> float:
        return LEFT + (plot_w * (decision - first) / (last - first) if last > first else 0)

    def y(value: float) -> float:
        return TOP + plot_h * (1 - value / top)

    def points(values: list[float]) -> str:
        return " ".join(f"{x(d):.1f},{y(v):.1f}" for d, v in zip(decisions, values, strict=True))

    ticks = [i * step for i in range(round(top / step) + 1)]
    rows = [i for i in range(len(decisions))
            if (decisions[i] % TABLE_EVERY == 0) or i == len(decisions) - 1]
    return {
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT,
        "top": TOP, "bottom": HEIGHT - BOTTOM, "label_y": HEIGHT - 10,
        "yours": points(yours), "house": points(house),
        "end": {"x": f"{x(last):.1f}", "yours": f"{y(yours[-1]):.1f}",
                 "house": f"{y(house[-1]):.1f}"},
        "y_ticks": [{"y": f"{y(t):.1f}", "label": shown(t)} for t in ticks],
        "x_ticks": [{"x": f"{x(t):.1f}", "label": t} for t in _x_ticks(first, last)],
        "first": first, "last": last,
        "table": [{"decision": decisions[i], "yours": shown(yours[i]),
                   "house": shown(house[i])} for i in rows],
    }
