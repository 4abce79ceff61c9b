"""The history pages: the player's deals, one deal's replay, sessions, the
skill report, the whole record (/record/) and the CSV export. Reads come
from ``selectors``, ``record``, ``export`` and ``games.reports`` only, and
the filters are the API's (``filters``), so the pages show exactly what the
API does: the player's own revealed deals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from .. import engine, reports
from . import export, record, selectors
from .filters import HistoryFilter
from .progress_chart import progress_chart

PAGE_SIZE = 25
CHART_POINTS = 500


@cache
def _manifest() -> dict[str, str]:
    path = Path(settings.BASE_DIR) / "frontend" / "build" / "manifest.json"
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return {}


def chart_assets() -> dict[str, str]:
    """Static paths of the pinned uPlot bundle (frontend/build/vendor/)."""
    folder = _manifest().get("uplot", "")
    if not folder:
        return {}
    return {"uplot_js": f"{folder}uPlot.iife.min.js", "uplot_css": f"{folder}uPlot.min.css"}


def _query_without_page(request: HttpRequest) -> str:
    params = request.GET.copy()
    params.pop("page", None)
    return params.urlencode()


@login_required
@require_GET
def hands(request: HttpRequest) -> HttpResponse:
    filterset = HistoryFilter.for_page(request)
    queryset = selectors.revealed_hands(user=request.user, filters=filterset.hand_filters())
    page = Paginator(queryset, PAGE_SIZE).get_page(request.GET.get("page"))
    records = selectors.hand_records(page.object_list)
    recent = list(
        queryset.values_list("deal_id", "luck", "score", "skill")[:CHART_POINTS]
    )[::-1]
    running, cumulative = 0.0, []
    for _, _, _, skill in recent:
        running += float(skill or 0)  # a revealed hand's skill is set
        cumulative.append(running)
    charts = {
        "luck_outcome": {
            "luck": [luck for _, luck, _, _ in recent],
            "score": [float(score or 0) for _, _, score, _ in recent],
        },
        "skill_running": {"deal": list(range(1, len(recent) + 1)), "skill": cumulative},
    }
    return render(request, "games/history/hands.html", {
        "form": filterset.form, "page": page, "records": records, "charts": charts,
        "query": _query_without_page(request), "export_query": request.GET.urlencode(),
        **chart_assets(),
    })


@login_required
@require_GET
def deal(request: HttpRequest, deal_id: int) -> HttpResponse:
    record = selectors.hand_detail(user=request.user, deal_id=deal_id)
    if record is None:
        raise Http404("There is no such revealed deal in your history.")
    return render(request, "games/history/deal.html", {"r": record})


@login_required
@require_GET
def sessions(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.sessions(user=request.user), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    records = [selectors.session_record(seat) for seat in page.object_list]
    return render(request, "games/history/sessions.html", {"page": page, "records": records})


@login_required
@require_GET
def session(request: HttpRequest, table_id: int) -> HttpResponse:
    record = selectors.session_detail(user=request.user, table_id=table_id)
    if record is None:
        raise Http404("There is no such session in your history.")
    series = record["series"]
    charts = {
        "ledgers": {
            "deal": [p["deal_number"] for p in series],
            "actual": [float(p["actual_balance"]) for p in series],
            "with_5": [float(p["with_5_balance"]) for p in series],
            "start": record["starting_stack"],
        },
        "luck_outcome": {
            "luck": [p["luck"] for p in series],
            "score": [float(p["score"]) for p in series],
        },
    }
    return render(request, "games/history/session.html", {
        "s": record, "charts": charts, **chart_assets(),
    })


def _skill_time(request: HttpRequest, filterset: HistoryFilter, total: float) -> dict[str, Any]:
    """The running skill total at each of the latest ``CHART_POINTS`` deals'
    reveal times (Unix seconds), starting from the total before them."""
    hands = selectors.revealed_hands(user=request.user, filters=filterset.hand_filters())
    recent = list(hands.values_list("deal__revealed_at", "skill")[:CHART_POINTS])[::-1]
    running = total - sum(float(skill or 0) for _, skill in recent)
    at, cumulative = [], []
    for revealed_at, skill in recent:
        running += float(skill or 0)
        at.append(revealed_at.timestamp() if revealed_at else None)  # revealed: set
        cumulative.append(round(running, 2))
    return {"at": at, "cumulative": cumulative}


@login_required
@require_GET
def skill_report(request: HttpRequest) -> HttpResponse:
    filterset = HistoryFilter.for_page(request)
    report = reports.skill_report(user=request.user, filters=filterset.hand_filters())
    charts = {
        "skill_rows": {
            # The rows in words on the chart; the ids stay in the API and the CSV.
            "rows": [engine.row_words(r["row"]) for r in report["by_row"]],
            "sum": [float(r["skill_sum"]) for r in report["by_row"]],
            "mean": [float(r["skill_mean"] or 0) for r in report["by_row"]],
        },
        "skill_time": _skill_time(request, filterset, float(report["total"]["skill_sum"])),
    }
    return render(request, "games/history/skill.html", {
        "form": filterset.form, "report": report, "charts": charts, **chart_assets(),
    })


@login_required
@require_GET
def player_record(request: HttpRequest) -> HttpResponse:
    """/record/: the player's whole record across their tables (``record``)."""
    found = record.player_record(user=request.user)
    return render(request, "games/history/record.html", {
        "record": found, "chart": progress_chart(found["progress"]),
    })


@login_required
@require_GET
def export_csv(request: HttpRequest) -> StreamingHttpResponse:
    """The history as CSV (the same filters as the page), streamed."""
    filters = HistoryFilter.for_page(request).hand_filters()
    rows = export.csv_rows(user=request.user, filters=filters)
    response = StreamingHttpResponse(
        export.csv_stream(rows), content_type="text/csv; charset=utf-8"
    )
    stamp = timezone.now().strftime("%Y%m%d")
    response["Content-Disposition"] = f'attachment; filename="paigow-history-{stamp}.csv"'
    return response


@login_required
@require_GET
def export_hand_history(request: HttpRequest) -> StreamingHttpResponse:
    """The hand history in JSON lines (docs/hand-history.md), the same filters
    as the page, streamed."""
    filters = HistoryFilter.for_page(request).hand_filters()
    return hand_history_response(export.hand_history_lines(user=request.user, filters=filters))


def hand_history_response(lines: Iterator[str]) -> StreamingHttpResponse:
    """A download of hand-history lines (the page's and the API's)."""
    response = StreamingHttpResponse(
        export.lines_stream(lines), content_type="application/jsonl; charset=utf-8"
    )
    stamp = timezone.now().strftime("%Y%m%d")
    response["Content-Disposition"] = f'attachment; filename="paigow-hands-{stamp}.jsonl"'
    return response
