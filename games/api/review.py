"""/api/review/: the signed-in player's review deck (``games.review``), read
like the page: missing cards are added first (``review_deck_sync``), then the
deck is listed, the due cards first, the worst first, 25 a page."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from ..review import selectors
from ..services import review
from .serializers import ModeField


class ReviewCardSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The card's id; its page is /review/{id}/.")
    cards = serializers.ListField(
        child=serializers.CharField(), help_text="The seven cards, as codes (“As”, “JK”)."
    )
    # A field named "source" (DRF's metaclass takes it out of the class, so
    # Field.source is untouched; mypy sees the attribute).
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=["table", "practice", "test"],
        help_text="Where the decision was made: a solo or friend table, practice, or a "
                  "100-hand test (one of the hands you gave up most on).",
    )
    mode = ModeField(
        help_text="The analysis's mode: the table's, or “solo” for practice and a test."
    )
    front = serializers.ListField(
        child=serializers.CharField(), help_text="The front you set then: two card codes."
    )
    cost = serializers.DecimalField(
        max_digits=10, decimal_places=9,
        help_text="What that setting gave up against the best: exact expected score per hand.",
    )
    box = serializers.IntegerField(help_text="Its Leitner box, 1 (new or missed) to 5.")
    due = serializers.BooleanField(help_text="Whether it is due for review now.")
    next_review = serializers.DateTimeField(
        help_text="When it is due (in the past when due now)."
    )
    reviews = serializers.IntegerField(help_text="How many times you have reviewed it.")
    last_reviewed_at = serializers.DateTimeField(
        allow_null=True, help_text="When you last reviewed it, or null."
    )


def _source(card: Any) -> str:
    return "table" if card.hand_id else "test" if card.test_hand_id else "practice"


def _row(card: Any, now: Any) -> dict[str, Any]:
    return {
        "id": card.pk, "cards": card.cards.split(),
        "source": _source(card), "mode": card.mode,
        "front": card.front.split(), "cost": card.cost, "box": card.box,
        "due": card.due <= now, "next_review": card.due, "reviews": card.reviews,
        "last_reviewed_at": card.last_reviewed_at,
    }


class ReviewDeckView(generics.ListAPIView):
    serializer_class = ReviewCardSerializer

    def get_queryset(self) -> Any:
        return selectors.review_deck(user=self.request.user)

    @extend_schema(
        summary="Your review deck",
        description=(
            "Your settings that gave up 0.005 of a point per hand or more against the best, "
            "by their exact cost, from solo and friend tables, from practice and from the "
            "hands you gave up most on in a 100-hand test: the cards "
            "due now first, then the others, the worst first in each, 25 a page. Each has its "
            "Leitner box (1 to 5) and when it is due again: set at the best it moves up a box "
            "and comes back after 1, 3, 7, then 21 days; otherwise it goes back to box 1."
        ),
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        review.review_deck_sync(user=request.user)
        page = self.paginate_queryset(self.get_queryset())
        now = timezone.now()
        return self.get_paginated_response(
            ReviewCardSerializer([_row(card, now) for card in page or []], many=True).data
        )
