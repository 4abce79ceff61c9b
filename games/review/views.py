"""The review pages: the deck (/review/) and one card (/review/<id>/), whose
answer is a plain form post (then a redirect to the card's result) or JSON
when the page's script asks for it (``Accept: application/json``): the card's
view with the result's HTML, or ``{"error", "detail"}`` with the error's
status. No request analyses a hand: the figures come from the exact
analysis's cache, queued when missing (``services.review.review_analysis``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from ..engine.errors import GameError, error_payload
from ..models import ReviewCard
from ..services import review as services
from ..services.analysis import AnalysisBudgetSpent
from . import selectors

PAGE_SIZE = 50


def _wants_json(request: HttpRequest) -> bool:
    return request.headers.get("Accept", "").startswith("application/json")


@login_required
@require_GET
def deck(request: HttpRequest) -> HttpResponse:
    services.review_deck_sync(user=request.user)
    page = Paginator(selectors.review_deck(user=request.user), PAGE_SIZE).get_page(
        request.GET.get("page"))
    now = timezone.now()
    return render(request, "games/review/deck.html", {
        "page": page, "rows": [selectors.deck_row(card, now) for card in page.object_list],
        "due": selectors.review_due_count(user=request.user),
        "next": selectors.review_next(user=request.user),
    })


def _own(request: HttpRequest, card_id: int) -> ReviewCard:
    try:
        return selectors.review_card(user=request.user, card_id=card_id)
    except services.ReviewCardNotFound as exc:
        raise Http404(exc.detail) from None


def _view(request: HttpRequest, card: ReviewCard) -> dict[str, Any]:
    try:
        found = services.review_analysis(user=request.user, card=card)
    except AnalysisBudgetSpent:
        # The page still deals the hand; its answer queues the analysis again
        # (and says so if the budget is still spent).
        found = None
    return selectors.review_view(card, found)


def _refused(exc: GameError) -> JsonResponse:
    answer = JsonResponse(error_payload(exc), status=exc.status)
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:  # when to send it again
        answer["Retry-After"] = str(retry_after)
    return answer


def _page(request: HttpRequest, card: ReviewCard, *, error: str = "",
          status: int = 200) -> HttpResponse:
    view = _view(request, card)
    named = [(code, view["names"][code]) for code in view["cards"]]
    following = selectors.review_next(user=request.user)
    return render(request, "games/review/card.html", {
        "view": view, "card": card, "named": named, "error": error,
        "source": selectors.source(card),
        "next": following if following is not None and following.pk != card.pk else None,
    }, status=status)


@login_required
@require_GET
def card(request: HttpRequest, card_id: int) -> HttpResponse:
    return _page(request, _own(request, card_id))


@login_required
@require_POST
def answer(request: HttpRequest, card_id: int) -> HttpResponse:
    front = request.POST.getlist("front")
    try:
        answered = services.review_answer(user=request.user, card_id=card_id, front=front)
    except GameError as exc:
        if _wants_json(request):
            return _refused(exc)
        if isinstance(exc, services.ReviewCardNotFound):
            raise Http404(exc.detail) from None
        return _page(request, _own(request, card_id), error=exc.detail, status=exc.status)
    if not _wants_json(request):
        return redirect("games:review_card", card_id=answered.pk)
    view = _view(request, answered)
    following = selectors.review_next(user=request.user)
    view["result_html"] = render_to_string("games/review/_result.html", {
        "view": view, "next": following,
    }, request=request)
    return JsonResponse(view)
