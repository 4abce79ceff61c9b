"""The 100-hand test's pages. A lock answers HTML (a plain form post, then a
redirect) or JSON when the page's script asks for it (``Accept:
application/json``): the next hand's view, or ``{"error", "detail"}`` with the
error's status. An attempt's page is the hand to set while it is played,
"Scoring…" (refreshing itself) while the worker scores it, then the result."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from ..engine.errors import GameError, error_payload
from ..models import PracticeTest
from ..services import practice_test as service
from . import selectors

SCORING_REFRESH_SECONDS = 3


def _wants_json(request: HttpRequest) -> bool:
    return request.headers.get("Accept", "").startswith("application/json")


def _home(request: HttpRequest, *, error: str = "", status: int = 200) -> HttpResponse:
    attempts = selectors.practice_test_attempts(user=request.user)
    return render(request, "games/practice_test/home.html", {
        "attempts": attempts, "playing": [a for a in attempts if a.status == "playing"],
        "hands": service.practice_test_hand_count(), "error": error,
        "next_number": max((a.number for a in attempts), default=0) + 1,
    }, status=status)


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return _home(request)


@login_required
@require_POST
def start(request: HttpRequest) -> HttpResponse:
    try:
        attempt = service.practice_test_start(user=request.user,
                                              number=request.POST.get("number", ""))
    except GameError as exc:
        return _home(request, error=exc.detail, status=exc.status)
    return redirect("practice_test:attempt", test_id=attempt.pk)


def _own(request: HttpRequest, test_id: int) -> PracticeTest:
    try:
        return selectors.practice_test_attempt(user=request.user, test_id=test_id)
    except GameError as exc:
        raise Http404(exc.detail) from None


def _result_page(request: HttpRequest, attempt: PracticeTest, template: str, *,
                 owner: bool = False, **extra: Any) -> HttpResponse:
    result = selectors.practice_test_result(attempt, owner=owner)
    if not result["scored"]:
        service.practice_test_score_again(test_id=attempt.pk)
    return render(request, template, {"result": result, "attempt": attempt,
                                      "refresh": SCORING_REFRESH_SECONDS, **extra})


@login_required
@require_GET
def attempt(request: HttpRequest, test_id: int) -> HttpResponse:
    found = _own(request, test_id)
    if found.status == "playing":
        return _play_page(request, found)
    return _result_page(request, found, "games/practice_test/result.html", owner=True)


def _play_page(request: HttpRequest, found: PracticeTest, *, error: str = "",
               status: int = 200) -> HttpResponse:
    view = selectors.practice_test_play(found)
    named = [(code, view["names"][code]) for code in view["cards"]]
    return render(request, "games/practice_test/play.html",
                  {"view": view, "named": named, "error": error}, status=status)


@login_required
@require_POST
def lock(request: HttpRequest, test_id: int) -> HttpResponse:
    try:
        service.practice_test_lock(user=request.user, test_id=test_id,
                                   position=request.POST.get("position", ""),
                                   front=request.POST.getlist("front"))
    except GameError as exc:
        if _wants_json(request):
            return JsonResponse(error_payload(exc), status=exc.status)
        found = _own(request, test_id)
        if found.status != "playing":
            return redirect("practice_test:attempt", test_id=found.pk)
        return _play_page(request, found, error=exc.detail, status=exc.status)
    if _wants_json(request):
        return JsonResponse(selectors.practice_test_play(_own(request, test_id)))
    return redirect("practice_test:attempt", test_id=test_id)


@login_required
@require_POST
def share(request: HttpRequest, test_id: int) -> HttpResponse:
    _own(request, test_id)
    service.practice_test_share(user=request.user, test_id=test_id,
                                show_name=request.POST.get("show_name") == "on")
    return redirect("practice_test:attempt", test_id=test_id)


@require_GET
def shared(request: HttpRequest, share_token: str) -> HttpResponse:
    try:
        found = selectors.practice_test_shared(token=share_token)
    except GameError as exc:
        raise Http404(exc.detail) from None
    return _result_page(request, found, "games/practice_test/shared.html")
