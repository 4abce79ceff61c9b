"""The practice pages. Each action answers HTML (a plain form post, then a
redirect) or JSON when the page's script asks for it (``Accept:
application/json``): the hand's view, or ``{"error", "detail"}`` with the
error's status."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST

from .. import services
from ..engine import DRILL_LESSONS, DRILLS, by_rank
from ..engine.errors import GameError, PracticeHandNotFound, error_payload
from ..history.views import chart_assets
from . import selectors


def _wants_json(request: HttpRequest) -> bool:
    return request.headers.get("Accept", "").startswith("application/json")


def _drills(chosen: str) -> list[dict[str, Any]]:
    return [{"id": d, "label": label, "lesson": DRILL_LESSONS[d], "chosen": d == chosen}
            for d, label in DRILLS.items()]


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    drill = request.GET.get("drill", "any")
    return render(request, "games/practice/home.html", {
        "drills": _drills(drill if drill in DRILLS else "any"),
        "open": selectors.practice_open(user=request.user),
        "record": selectors.practice_record(user=request.user),
    })


def _hand_json(request: HttpRequest, view: dict[str, Any], status: int = 200) -> JsonResponse:
    payload = dict(view)
    if view["locked"]:
        payload["result_html"] = render_to_string(
            "games/practice/_result.html", {"view": view}, request=request)
    return JsonResponse(payload, status=status)


@login_required
@require_POST
def deal(request: HttpRequest) -> HttpResponse:
    try:
        hand = services.practice_deal(user=request.user, drill=request.POST.get("drill", "any"))
    except GameError as exc:
        if _wants_json(request):
            return JsonResponse(error_payload(exc), status=exc.status)
        return render(request, "games/practice/home.html", {
            "drills": _drills("any"), "error": exc.detail,
            "open": selectors.practice_open(user=request.user),
            "record": selectors.practice_record(user=request.user),
        }, status=exc.status)
    if _wants_json(request):
        return _hand_json(request, selectors.practice_view(hand), status=201)
    return redirect("practice:hand", hand_id=hand.pk)


def _hand_page(request: HttpRequest, view: dict[str, Any], *, error: str = "",
               status: int = 200) -> HttpResponse:
    # The cards in the table's order (``engine.by_rank``), as the script shows them.
    named = [(code, view["names"][code]) for code in by_rank(view["cards"])]
    context = {"view": view, "named": named, "picking": not view["locked"], "error": error}
    return render(request, "games/practice/hand.html", context, status=status)


@login_required
@require_GET
def hand(request: HttpRequest, hand_id: int) -> HttpResponse:
    try:
        found = selectors.practice_hand(user=request.user, hand_id=hand_id)
    except PracticeHandNotFound as exc:
        raise Http404(exc.detail) from None
    return _hand_page(request, selectors.practice_view(found))


@login_required
@require_POST
def lock(request: HttpRequest, hand_id: int) -> HttpResponse:
    front = request.POST.getlist("front")
    try:
        locked = services.practice_lock(user=request.user, hand_id=hand_id, front=front)
    except GameError as exc:
        if _wants_json(request):
            return JsonResponse(error_payload(exc), status=exc.status)
        if isinstance(exc, PracticeHandNotFound):
            raise Http404(exc.detail) from None
        found = selectors.practice_hand(user=request.user, hand_id=hand_id)
        return _hand_page(request, selectors.practice_view(found), error=exc.detail,
                          status=exc.status)
    if _wants_json(request):
        return _hand_json(request, selectors.practice_view(locked))
    return redirect("practice:hand", hand_id=locked.pk)


@login_required
@require_GET
def record(request: HttpRequest) -> HttpResponse:
    drill = request.GET.get("drill", "")
    if drill not in DRILLS:
        drill = ""
    progress = selectors.practice_progress(user=request.user, drill=drill or None)
    return render(request, "games/practice/record.html", {
        "record": selectors.practice_record(user=request.user),
        "progress": progress, "drill": drill, "drill_label": DRILLS.get(drill, "All drills"),
        "drills": DRILLS, **chart_assets(),
    })
