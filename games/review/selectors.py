"""Reads of the review deck: the due count, the deck in order, one card as
its page shows it and, once set, the exact figures of all 21 settings beside
the setting then, the setting now and the house way with its reason."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from django.db.models import BooleanField, Case, QuerySet, Value, When
from django.urls import reverse
from django.utils import timezone

from ..engine import ExactAnalysis, card_name, guide_view, hand_guide
from ..models import ReviewCard
from ..practice.selectors import decimals
from ..services.review import LAST_BOX, TIE, ReviewCardNotFound

SOURCES = {"solo": "Solo table", "friend": "Friend table"}


def review_due_count(*, user: Any) -> int:
    """How many of the player's cards are due now: one COUNT on (user, due)."""
    return ReviewCard.objects.filter(user_id=user.pk, due__lte=timezone.now()).count()


def review_deck(*, user: Any) -> QuerySet[ReviewCard]:
    """The player's deck: the due cards first, then the others; worst first in each."""
    now = timezone.now()
    return (
        ReviewCard.objects.filter(user_id=user.pk)
        .annotate(is_due=Case(When(due__lte=now, then=Value(True)), default=Value(False),
                              output_field=BooleanField()))
        .select_related("hand", "practice_hand", "test_hand__test")
        .order_by("-is_due", "-cost", "id")
    )


def review_next(*, user: Any) -> ReviewCard | None:
    """The worst of the player's due cards, if any is due."""
    return (ReviewCard.objects.filter(user_id=user.pk, due__lte=timezone.now())
            .order_by("-cost", "id").first())


def review_card(*, user: Any, card_id: int) -> ReviewCard:
    """The player's own card, or ``ReviewCardNotFound``."""
    card = (ReviewCard.objects.filter(pk=card_id, user_id=user.pk)
            .select_related("hand", "practice_hand", "test_hand__test").first())
    if card is None:
        raise ReviewCardNotFound()
    return card


def when_text(moment: datetime, now: datetime | None = None) -> str:
    """When a card is due, in words: "now", "tomorrow", "in 3 days (8 December)"."""
    now = now or timezone.now()
    if moment <= now:
        return "now"
    days = (timezone.localdate(moment) - timezone.localdate(now)).days
    if days <= 0:
        return "later today"
    if days == 1:
        return "tomorrow"
    return f"in {days} days ({timezone.localtime(moment):%-d %B})"


def source(card: ReviewCard) -> dict[str, str]:
    """Where the decision was made: its label, date and page."""
    if card.hand is not None:
        return {"label": SOURCES.get(card.mode, "Table"),
                "url": reverse("history:deal", args=[card.hand.deal_id]),
                "link": "the deal in your history"}
    if card.test_hand is not None:
        test_hand = card.test_hand
        url = reverse("practice_test:attempt", args=[test_hand.test_id])
        return {"label": f"Test {test_hand.test.number}",
                "url": f"{url}#test-hand-{test_hand.position}",
                "link": f"hand {test_hand.position} of your test's result"}
    hand = card.practice_hand
    assert hand is not None
    return {"label": "Practice", "url": reverse("practice:hand", args=[hand.pk]),
            "link": "the practice hand"}


def deck_row(card: ReviewCard, now: datetime) -> dict[str, Any]:
    """A card as the deck page and the API list it."""
    return {
        "id": card.pk, "cards": card.cards, "front": card.front, "cost": card.cost,
        "cost_text": decimals(float(card.cost)), "box": card.box, "due": card.due,
        "is_due": card.due <= now, "due_text": when_text(card.due, now),
        "reviews": card.reviews, "last_reviewed_at": card.last_reviewed_at,
        "source": source(card), "url": reverse("games:review_card", args=[card.pk]),
    }


def review_view(card: ReviewCard, found: ExactAnalysis | None) -> dict[str, Any]:
    """A card as its page shows it (JSON-ready): its cards and names; while
    due, each setting's names and foul (the guide without the house way: the
    review asks the player) and whether its exact figures are ready; once
    set and not due, the result."""
    now = timezone.now()
    cards = list(card.card_list)
    due = card.due <= now
    view: dict[str, Any] = {
        "id": card.pk, "cards": cards, "names": {c: card_name(c) for c in cards},
        "mode": card.mode, "box": card.box, "due": due, "due_text": when_text(card.due, now),
        "locked": not due, "ready": found is not None,
        "urls": {"page": reverse("games:review_card", args=[card.pk]),
                 "answer": reverse("games:review_answer", args=[card.pk]),
                 "deck": reverse("games:review")},
    }
    if due:
        view["settings"] = [
            {key: row[key] for key in ("front", "front_name", "back_name", "foul_reason")
             if key in row}
            for row in cast("list[dict[str, Any]]", guide_view(cards)["settings"])
        ]
    elif card.last_front and found is not None:
        view["result"] = review_result(card, found)
    return view


def _setting(found: ExactAnalysis, front: str | tuple[str, ...]) -> dict[str, Any]:
    wanted = set(front.split() if isinstance(front, str) else front)
    row = next(r for r in found.settings if set(r.front) == wanted)
    loss = max(found.best.expected - row.expected, 0.0)
    return {
        "front": list(row.front), "back": list(row.back), "front_name": row.front_name,
        "back_name": row.back_name, "foul": row.foul,
        "expected": row.expected, "expected_text": decimals(row.expected, 4),
        "loss": loss, "loss_text": decimals(loss, 4), "at_best": loss <= TIE,
    }


def _next_text(card: ReviewCard, now: datetime) -> str:
    when = when_text(card.due, now)
    if not card.last_at_best:
        return f"Back to box 1: this hand comes back {when}."
    return f"Now in box {card.box} of {LAST_BOX}: this hand comes back {when}."


def review_result(card: ReviewCard, found: ExactAnalysis) -> dict[str, Any]:
    """The figures after a review: the 21 settings best first (each with its
    exact expected score and what it gives up against the best), the
    setting then (at the table, in practice or in a test), the setting now, the
    best and the house way with its row and reason."""
    now = timezone.now()
    guide = hand_guide(card.card_list)
    then, latest = _setting(found, card.front), _setting(found, card.last_front)
    house = _setting(found, guide.house_way.front) | {"row": guide.row, "reason": guide.reason}
    best = _setting(found, found.best.front)
    fronts = {key: set(value["front"]) for key, value in
              (("then", then), ("now", latest), ("house", house))}
    rows = []
    for row in found.settings:
        figures = _setting(found, row.front)
        marks = [label for key, label in (("then", "your setting then"),
                                          ("now", "your setting now"),
                                          ("house", "the house way"))
                 if fronts[key] == set(row.front)]
        rows.append(figures | {"marks": marks})
    if latest["at_best"]:
        verdict = "Set at the best: nothing given up."
    else:
        verdict = (f"Not the best: your setting now gives up {latest['loss_text']} of a point "
                   f"per hand against the best (expected score {latest['expected_text']} "
                   f"against {best['expected_text']}).")
    return {
        "at_best": latest["at_best"], "verdict": verdict, "next": _next_text(card, now),
        "then": then, "now": latest, "house_way": house, "best": best, "rows": rows,
        "same_as_then": fronts["then"] == fronts["now"],
        "opponents": found.opponents, "source": source(card), "box": card.box,
    }
