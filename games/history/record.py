"""A player's whole record across their tables, solo and friend: the /record/
page and ``GET /api/record/`` read it here, and only here.

One line for every revealed deal and one per mode: deals, wins, pushes and
losses, net chips in the actual and the "with 5%" ledgers (the ledger
entries the reveals wrote, added exactly), the luck average over completed
estimates (rules §6 and §8: the engine's exact ``luck_average`` of the stored
counts, shown half up), and decision skill (rules §7: the skill report's
totals, ``games.reports.skill_report``). Like every history read it starts
from the signed-in user, so it only ever holds that user's own hands.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any, cast

from django.db.models import Count, F, Q, Sum

from .. import engine, reports
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
    }


def _practice(user: Any) -> dict[str, Any]:
    if not getattr(user, "is_authenticated", False):
        return {"hands": 0, "at_best": 0, "accuracy": None, "average_loss": None,
                "accuracy_text": "—", "average_loss_text": "—", "by_drill": []}
    return practice_record(user=user)
