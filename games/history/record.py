"""A player's whole record across their tables, solo and friend: the /record/
page and ``GET /api/record/`` read it here, and only here.

One line for every revealed deal and one per mode: deals, wins, pushes and
losses, net chips in the actual and the "with 5%" ledgers (the ledger
entries the reveals wrote, added exactly), the luck average over completed
estimates (rules §6 and §8: the engine's exact ``luck_average`` of the stored
counts, shown half up), and decision skill (rules §7: the skill report's
totals, ``games.reports.skill_report``), and the progress of the decision
cost (``decision_progress``: exact costs only, the player's beside the
house way's on the same hands). Like every history read it starts
from the signed-in user, so it only ever holds that user's own hands.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, cast

from django.db.models import Count, F, Q, Sum

from .. import engine, reports
from ..engine.cost import LOSS_PLACES
from ..models import Deal, Hand, LedgerEntry, Table
from ..practice.selectors import practice_record
from .selectors import CENTS, LUCK_PLACES

REVEALED = Q(deal__status=Deal.Status.REVEALED)
COMPLETED = Q(luck_wins__isnull=False)


def _counts(user: Any) -> dict[str, dict[str, int]]:
    """Per mode, in one query: deals, each result, tables, completed luck
    estimates and their points (2 × wins + pushes)."""
    rows = (
        Hand.objects.filter(REVEALED, seat__user_id=user.pk)
        .values(mode=F("deal__table__mode"))
        .annotate(
            deals=Count("pk"),
            wins=Count("pk", filter=Q(result="win")),
            pushes=Count("pk", filter=Q(result="push")),
            losses=Count("pk", filter=Q(result="loss")),
            tables=Count("seat_id", distinct=True),
            luck_completed=Count("pk", filter=COMPLETED),
            luck_points=Sum(2 * F("luck_wins") + F("luck_pushes"), filter=COMPLETED),
        )
        .order_by()
    )
    found: dict[str, dict[str, int]] = {}
    for row in cast(list[dict[str, Any]], list(rows)):
        found[row["mode"]] = {k: int(v or 0) for k, v in row.items() if k != "mode"}
    return found


def _nets(user: Any) -> dict[tuple[str, str], Decimal]:
    """Per mode and ledger, the chips the user's revealed deals moved, added
    as decimals in Python (SQLite's SUM adds decimals as floats)."""
    nets: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    entries = LedgerEntry.objects.filter(
        seat__user_id=user.pk, deal__status=Deal.Status.REVEALED
    ).values_list("deal__table__mode", "ledger", "amount")
    for mode, ledger, amount in entries.iterator():
        nets[(mode, ledger)] += Decimal(amount)
    return nets


def _line(counts: dict[str, int], nets: tuple[Decimal, Decimal], skill: dict[str, Any]
          ) -> dict[str, Any]:
    deals, completed = counts.get("deals", 0), counts.get("luck_completed", 0)
    average = engine.luck_average(points=counts.get("luck_points", 0), estimates=completed)
    return {
        "deals": deals,
        "tables": counts.get("tables", 0),
        "wins": counts.get("wins", 0),
        "pushes": counts.get("pushes", 0),
        "losses": counts.get("losses", 0),
        "net_actual": nets[0].quantize(CENTS),
        "net_with_5": nets[1].quantize(CENTS),
        "luck_average": None if average is None else engine.half_up(average, LUCK_PLACES),
        "luck_shown": None if average is None else str(engine.half_up(average)),
        "luck_completed": completed,
        "luck_pending": deals - completed,
        "skill_total": skill["skill_sum"],
        "skill_mean": skill["skill_mean"],
        "departures": skill["departures"],
        # Decision cost (what the settings gave up against the best), as the
        # skill report sums it: the mean over the hands whose cost is in.
        "cost": skill["cost"],
    }


def player_record(*, user: Any) -> dict[str, Any]:
    """The user's record: ``total`` over every revealed deal and ``by_mode``
    (solo, then friend; a mode not played is left out), each a line of
    deals, tables, wins, pushes, losses, both nets, the luck average (to
    three places, and ``luck_shown`` with one decimal), how many estimates
    completed and are pending, the skill total and mean, and the deals that
    left the house way; and ``practice``, the practice table's record
    (``practice.selectors.practice_record``: no chips, so no mode)."""
    if not getattr(user, "is_authenticated", False):
        counts: dict[str, dict[str, int]] = {}
        nets: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    else:
        counts, nets = _counts(user), _nets(user)
    skill = reports.skill_report(user=user)
    skill_by_mode = {row["mode"]: row for row in skill["by_mode"]}
    actual, with_5 = LedgerEntry.Ledger.ACTUAL, LedgerEntry.Ledger.WITH_COMMISSION
    total_counts: dict[str, int] = defaultdict(int)
    for line in counts.values():
        for key, value in line.items():
            total_counts[key] += value
    modes = [m for m in Table.Mode.values if m in counts]
    return {
        "total": _line(
            total_counts,
            (sum((nets[(m, actual)] for m in modes), Decimal(0)),
             sum((nets[(m, with_5)] for m in modes), Decimal(0))),
            skill["total"],
        ),
        "by_mode": [
            {"mode": m, **_line(counts[m], (nets[(m, actual)], nets[(m, with_5)]),
                                skill_by_mode[m])}
            for m in modes
        ],
        "practice": _practice(user),
        "progress": decision_progress(user=user),
    }


def _practice(user: Any) -> dict[str, Any]:
    if not getattr(user, "is_authenticated", False):
        return {"hands": 0, "at_best": 0, "accuracy": None, "average_loss": None,
                "accuracy_text": "—", "average_loss_text": "—", "by_drill": []}
    return practice_record(user=user)


# The progress of the decision cost: at each decision the mean over the last
# WINDOW decisions, drawn over at most SERIES_LIMIT of the latest (a chart of
# a few hundred points says as much as one of thousands, and the read stays
# bounded). Only exact costs count, and only with the house way's own loss
# beside them, so the two lines always cover the same hands.
WINDOW = 50
SERIES_LIMIT = 300
SHOWN = Decimal("0.001")
EXACT_COST = Q(cost_method="exact", cost_house_loss__isnull=False)


def rolling_means(values: Sequence[float], *, window: int = WINDOW) -> list[float]:
    """At each point, the mean of the last ``window`` values up to it (of all
    of them before there are ``window``).

    >>> rolling_means([1.0, 3.0, 5.0, 7.0], window=2)
    [1.0, 2.0, 4.0, 6.0]
    >>> rolling_means([])
    []
    """
    windows = (values[max(0, i + 1 - window):i + 1] for i in range(len(values)))
    return [math.fsum(last) / len(last) for last in windows]


def shown(value: Decimal | float) -> str:
    """A cost as the pages show it: three decimals, rounded half up from the
    value itself (a float's exact binary value, not its nearest decimal).

    >>> shown(Decimal("0.0215")), shown(0.0), shown(Decimal("0.1"))
    ('0.022', '0.000', '0.100')
    """
    return str(Decimal(value).quantize(SHOWN, rounding=ROUND_HALF_UP))


def _decisions(user: Any) -> list[tuple[float, float]]:
    """(your loss, the house way's loss) of the latest exactly costed
    decisions, oldest first in order of reveal: the SERIES_LIMIT drawn and
    the WINDOW − 1 before them that their first means cover."""
    hands = (
        Hand.objects.filter(EXACT_COST, REVEALED, seat__user_id=user.pk)
        .order_by("-deal__revealed_at", "-deal_id")
        .values_list("cost_loss", "cost_house_loss")[:SERIES_LIMIT + WINDOW - 1]
    )
    # EXACT_COST leaves out a missing figure.
    return [(float(cast(Decimal, loss)), float(cast(Decimal, house)))
            for loss, house in reversed(list(hands))]


def _per_hand(total: Decimal, hands: int) -> Decimal:
    return (total / hands).quantize(LOSS_PLACES, rounding=ROUND_HALF_UP)


def _sentence(words: str, hands: int, yours: Decimal, house: Decimal) -> str:
    over = f"{hands} hand{'' if hands == 1 else 's'}"
    return (f"{words}: you give up {shown(yours)} per hand over {over}; the house way "
            f"gives up {shown(house)} on the same hands.")


def _by_row(user: Any) -> list[dict[str, Any]]:
    """Per house-way row, in one aggregate query over the exactly costed
    hands: how many, and what you and the house way gave up in all and per
    hand; most played first."""
    rows = (
        Hand.objects.filter(EXACT_COST, REVEALED, seat__user_id=user.pk)
        .values("house_row")
        .annotate(hands=Count("pk"), loss_sum=Sum("cost_loss"),
                  house_loss_sum=Sum("cost_house_loss"))
        .order_by("-hands", "house_row")
    )
    lines = []
    for row in rows:
        hands = row["hands"]
        # SQLite's SUM adds decimals as floats: back to the stored nine places.
        yours = Decimal(row["loss_sum"]).quantize(LOSS_PLACES, rounding=ROUND_HALF_UP)
        house = Decimal(row["house_loss_sum"]).quantize(LOSS_PLACES, rounding=ROUND_HALF_UP)
        words = engine.row_words(row["house_row"])
        lines.append({
            "row": row["house_row"], "words": words, "hands": hands,
            "loss_sum": yours, "loss_mean": _per_hand(yours, hands),
            "house_loss_sum": house, "house_loss_mean": _per_hand(house, hands),
            "sentence": _sentence(words, hands, yours / hands, house / hands),
        })
    return lines


def decision_progress(*, user: Any) -> dict[str, Any]:
    """What the player's decisions at the tables gave up against the best
    setting over time, beside what the house way gives up on the same hands.

    Exact costs only: ``exact`` revealed hands whose exact cost and house
    way's loss are in, ``pending`` revealed hands still being costed (or
    with an estimate only, until the sweep makes it exact).

    ``series``: over the latest ``SERIES_LIMIT`` of those decisions in order
    of reveal, at each (``decision``: its number among all of them) the mean
    loss over the last ``WINDOW`` decisions up to it, yours and the house
    way's; ``latest`` those means at the last decision as the page shows
    them, and over how many decisions. ``by_row``: per house-way row, the
    count, sums, means and a sentence ("Two pair, split: you give up 0.021
    per hand over 35 hands; the house way gives up 0.004 on the same
    hands."), most played first."""
    empty = {"window": WINDOW, "exact": 0, "pending": 0,
             "series": {"decision": [], "yours": [], "house": []}, "latest": None,
             "by_row": []}
    if not getattr(user, "is_authenticated", False):
        return empty
    counts = Hand.objects.filter(REVEALED, seat__user_id=user.pk).aggregate(
        exact=Count("pk", filter=EXACT_COST), pending=Count("pk", filter=~EXACT_COST))
    decisions = _decisions(user)
    yours = rolling_means([loss for loss, _ in decisions], window=WINDOW)[-SERIES_LIMIT:]
    house = rolling_means([loss for _, loss in decisions], window=WINDOW)[-SERIES_LIMIT:]
    exact = counts["exact"]
    return {
        **empty,
        "exact": exact,
        "pending": counts["pending"],
        "series": {
            "decision": list(range(exact - len(yours) + 1, exact + 1)),
            "yours": yours,
            "house": house,
        },
        "latest": None if not decisions else {
            "decisions": min(len(decisions), WINDOW),
            "yours": shown(yours[-1]), "house": shown(house[-1]),
        },
        "by_row": _by_row(user),
    }
