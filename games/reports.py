"""The skill report (rules §7): built and read here, nowhere else.

Built: ``report_refresh`` (the Celery task ``games.report_refresh``, queued
after each reveal by ``games.enqueue.report_refresh_later``) groups a player's
revealed hands by mode, house-way row and day into ``ReportBucket`` rows in
one query, under the ``PlayerReport`` row's lock.

Read: ``skill_report`` sums those buckets while they still cover every
revealed hand and decision cost (``covered``) and the filters are
ones they can answer (mode and dates); otherwise it sums the hands
themselves. Both ways give the same figures (tests/background/test_tasks.py).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, F, Q, Sum, Value
from django.db.models.functions import Concat, Substr, TruncDate
from django.utils import timezone

from . import engine
from .engine.cost import LOSS_PLACES
from .history.selectors import (
    CENTS,
    HandFilters,
    cost_summary,
    mean,
    revealed_hands,
    worst_decisions,
)
from .models import Deal, Hand, PlayerReport, ReportBucket, Table

# --- building the buckets ---------------------------------------------------------


COSTED = ~Q(cost_method="")


def revealed_count(*, user_id: int) -> int:
    """How many revealed hands the player has."""
    return Hand.objects.filter(
        seat__user_id=user_id, deal__status=Deal.Status.REVEALED
    ).count()


def covered(*, user_id: int) -> tuple[int, int, int, Decimal]:
    """What the aggregates must cover to be current, in one query: the
    player's revealed hands, those with a decision cost, those with an exact
    one, and the sum of their losses (a cost arrives after its reveal, and an
    exact one replaces an estimate)."""
    totals = Hand.objects.filter(
        seat__user_id=user_id, deal__status=Deal.Status.REVEALED
    ).aggregate(
        hands=Count("pk"), costed=Count("pk", filter=COSTED),
        exact=Count("pk", filter=Q(cost_method="exact")), loss_sum=Sum("cost_loss"),
    )
    return (totals["hands"], totals["costed"], totals["exact"],
            Decimal(totals["loss_sum"] or 0).quantize(LOSS_PLACES))


def _covers(report: PlayerReport, now: tuple[int, int, int, Decimal]) -> bool:
    return (report.hands, report.costed, report.costed_exact,
            Decimal(report.cost_loss_sum).quantize(LOSS_PLACES)) == now


# "Left the house way" in SQL: the front is not the house way's two cards in
# either order (codes are two characters, so the other order is swapped by
# hand). The same rule as ``engine.left_house_way``, checked against it on
# many hands in tests/history/test_reports_sql.py.
SWAPPED_FRONT = Concat(Substr("front", 4, 2), Value(" "), Substr("front", 1, 2))
FOLLOWED = Q(front=F("house_front")) | Q(house_front=SWAPPED_FRONT)


def buckets_grouped(user_id: int) -> list[dict[str, Any]]:
    """The player's revealed hands grouped by mode, house-way row and day, in
    one query: deals, departures from the house way and the skill sum, and
    the decision costs: hands with one, exact ones, at the best, the losses' sum."""
    groups = (
        Hand.objects.filter(seat__user_id=user_id, deal__status=Deal.Status.REVEALED)
        .annotate(day=TruncDate("deal__revealed_at"), mode=F("deal__table__mode"))
        .values("mode", "house_row", "day")
        .annotate(deals=Count("pk"), departures=Count("pk", filter=~FOLLOWED),
                  skill_sum=Sum("skill"), costed=Count("pk", filter=COSTED),
                  exact=Count("pk", filter=Q(cost_method="exact")),
                  at_best=Count("pk", filter=Q(cost_at_best=True)), loss_sum=Sum("cost_loss"))
        .order_by()
    )
    return cast(list[dict[str, Any]], list(groups))


def report_refresh(*, user_id: int) -> bool:
    """Rebuild the player's skill-report aggregates when they are behind.
    Returns whether anything was written (False: already current, or no
    such player any more)."""
    if not get_user_model().objects.filter(pk=user_id).exists():
        return False
    PlayerReport.objects.get_or_create(user_id=user_id)
    with transaction.atomic():
        report = PlayerReport.objects.select_for_update().get(user_id=user_id)
        groups = buckets_grouped(user_id)
        now = (
            sum(g["deals"] for g in groups), sum(g["costed"] for g in groups),
            sum(g["exact"] for g in groups),
            sum((Decimal(g["loss_sum"] or 0) for g in groups), Decimal(0)).quantize(LOSS_PLACES),
        )
        if report.refreshed_at is not None and _covers(report, now):
            return False
        ReportBucket.objects.filter(report=report).delete()
        ReportBucket.objects.bulk_create(
            ReportBucket(
                report=report, mode=g["mode"], row=g["house_row"], day=g["day"],
                deals=g["deals"], departures=g["departures"],
                skill_sum=Decimal(g["skill_sum"] or 0), costed=g["costed"], exact=g["exact"],
                at_best=g["at_best"], loss_sum=Decimal(g["loss_sum"] or 0),
            )
            for g in groups
        )
        # The claim: only the version this call read moves on.
        claimed = PlayerReport.objects.filter(pk=report.pk, version=report.version).update(
            hands=now[0], costed=now[1], costed_exact=now[2], cost_loss_sum=now[3],
            version=report.version + 1, refreshed_at=timezone.now()
        )
        if not claimed:  # pragma: no cover - the row lock makes this unreachable
            transaction.set_rollback(True)
            return False
    return True


# --- reading the report -----------------------------------------------------------


@dataclass
class _Bucket:
    deals: int = 0
    departures: int = 0
    skill_sum: Decimal = Decimal(0)
    costed: int = 0
    exact: int = 0
    at_best: int = 0
    loss_sum: Decimal = Decimal(0)

    def add(self, skill: Decimal, left: bool, cost: tuple[str, bool | None, Any]) -> None:
        self.deals += 1
        self.departures += int(left)
        self.skill_sum += skill
        method, at_best, loss = cost
        if method:
            self.costed += 1
            self.exact += method == "exact"
            self.at_best += bool(at_best)
            self.loss_sum += Decimal(loss)

    def plus(self, deals: int, departures: int, skill_sum: Any, costed: int, exact: int,
             at_best: int, loss_sum: Any) -> None:
        self.deals += deals
        self.departures += departures
        self.skill_sum += Decimal(skill_sum)
        self.costed += costed
        self.exact += exact
        self.at_best += at_best
        self.loss_sum += Decimal(loss_sum)

    def record(self, **key: Any) -> dict[str, Any]:
        return {
            **key,
            "deals": self.deals,
            "departures": self.departures,
            "skill_sum": self.skill_sum.quantize(CENTS),
            "skill_mean": mean(self.skill_sum, self.deals),
            "cost": cost_summary(deals=self.deals, costed=self.costed, at_best=self.at_best,
                                 exact=self.exact, loss_sum=self.loss_sum),
        }


def _filled_from_aggregates(
    user: Any, filters: HandFilters | None, buckets: tuple[_Bucket, Any, Any, Any]
) -> bool:
    """Fill the report's buckets from the player's stored aggregates
    (``PlayerReport``, kept by ``report_refresh``) when they cover every
    revealed hand and the filters are ones they can answer (mode and dates).
    False: read the hands instead."""
    f = filters or HandFilters()
    if f.table is not None or f.result or not getattr(user, "is_authenticated", False):
        return False
    report = PlayerReport.objects.filter(user_id=user.pk, refreshed_at__isnull=False).first()
    if report is None or not _covers(report, covered(user_id=user.pk)):
        return False
    rows = ReportBucket.objects.filter(report=report)
    if f.mode:
        rows = rows.filter(mode=f.mode)
    if f.date_from is not None:
        rows = rows.filter(day__gte=f.date_from)
    if f.date_to is not None:
        rows = rows.filter(day__lte=f.date_to)
    total, by_row, by_mode, by_day = buckets
    for b in rows.values_list(
        "row", "mode", "day", "deals", "departures", "skill_sum", "costed", "exact", "at_best",
        "loss_sum",
    ):
        row, mode, day, deals, departures, skill_sum, costed, exact, at_best, loss_sum = b
        for bucket in (total, by_row[row], by_mode[mode], by_day[day]):
            bucket.plus(deals, departures, skill_sum, costed, exact, at_best, loss_sum)
    return True


def skill_report(*, user: Any, filters: HandFilters | None = None) -> dict[str, Any]:
    """Decision skill over every revealed deal (rules §7): by house-way row, by
    mode and by day, each with deals, departures from the house way, the skill
    sum and mean, and the decision cost (the mean loss against the best
    setting and the share set at the best); and the worst decisions to
    review, by house-way row. From the stored aggregates when they are
    current, else summed from the hands (the same figures either way)."""
    total = _Bucket()
    by_row: dict[str, _Bucket] = defaultdict(_Bucket)
    by_mode: dict[str, _Bucket] = defaultdict(_Bucket)
    by_day: dict[dt.date, _Bucket] = defaultdict(_Bucket)
    if not _filled_from_aggregates(user, filters, (total, by_row, by_mode, by_day)):
        rows = (
            revealed_hands(user=user, filters=filters)
            .order_by("deal__revealed_at", "deal_id")
            .values_list("front", "back", "house_front", "house_back", "house_row", "skill",
                         "deal__table__mode", "deal__revealed_at", "cost_method",
                         "cost_at_best", "cost_loss")
        )
        for (front, back, house_front, house_back, row, skill, mode, revealed_at,
             method, at_best, loss) in rows.iterator():
            assert revealed_at is not None  # set at the reveal
            assert skill is not None  # set at the reveal
            left = engine.left_house_way(front, back, house_front, house_back)
            value = Decimal(skill)
            for bucket in (total, by_row[row], by_mode[mode], by_day[revealed_at.date()]):
                bucket.add(value, left, (method, at_best, loss))
    running = Decimal(0)
    over_time = []
    for day in sorted(by_day):
        running += by_day[day].skill_sum
        over_time.append({**by_day[day].record(date=day), "cumulative": running.quantize(CENTS)})
    return {
        "total": total.record(),
        "by_row": sorted(
            (b.record(row=r) for r, b in by_row.items()), key=lambda x: (-x["deals"], x["row"])
        ),
        "by_mode": [by_mode[m].record(mode=m) for m in Table.Mode.values if m in by_mode],
        "over_time": over_time,
        "worst": worst_decisions(revealed_hands(user=user, filters=filters)),
    }
