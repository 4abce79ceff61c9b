"""Writes of the review deck: a player's costly decisions, dealt again.

A revealed table hand (solo or friend) or a locked practice hand whose exact
decision cost is at least ``REVIEW_THRESHOLD`` enters its player's deck
(``review_deck_sync``, run whenever the deck is read: a card is made the
first time the deck is read after the cost became exact). Sampled costs never
enter: an estimate's loss is noise at this size. The hands a 100-hand test
attempt gave up most on enter when it is scored, those that gave up that much
(``review_cards_add_test_hands``, in the scoring's transaction).

Each card sits in a Leitner box. Set at the best (the best expected score, or
within ``TIE`` of it), the card moves to the next box and comes back after
the days ``BOX_DAYS`` names for it: 1, 3, 7, then 21 days (the last box keeps
21). Any other setting sends it back to box 1, due again the next day, so the
answer just shown is not what the player repeats. A new card is in box 1 and
due at once.

Judging a setting needs the hand's exact analysis, which is read from its
suit class's cache (``services.analysis``) and never computed here: a card
whose class is not analysed yet queues the analysis and refuses the answer
(``ReviewAnalysing``) until it is there.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal
from typing import Any, cast

from django.db import transaction
from django.utils import timezone

from ..engine import ExactAnalysis, hand_guide
from ..engine.errors import GameError, InvalidSetting
from ..models import Hand, PracticeHand, PracticeTestHand, ReviewCard
from . import analysis

# A decision enters the deck from this exact cost (expected score per hand).
REVIEW_THRESHOLD = Decimal("0.005")
# Expected scores within this of the best count as the best (float rounding).
TIE = 1e-9
# The box a hit moves a card to -> the days until it is due again.
BOX_DAYS = {2: 1, 3: 3, 4: 7, 5: 21}
LAST_BOX = 5
# A miss: back to box 1, due again after this many days.
MISS_DAYS = 1
# Every reviewed seat is a player's (the dealer's hands are nobody's).
SIDE = "player"
# The practice table plays against the dealer's copies, as solo does.
PRACTICE_MODE = "solo"


class ReviewCardNotFound(GameError):
    code = "review_card_not_found"
    default_detail = "There is no such hand in your review deck."
    status = 404


class ReviewNotDue(GameError):
    code = "review_not_due"
    default_detail = (
        "This hand is not due for review yet: it comes back on the date your deck shows."
    )


class ReviewAnalysing(GameError):
    code = "review_analysing"
    default_detail = (
        "The exact figures of this hand are still being worked out: set it again in a few "
        "seconds."
    )
    retry_after = 2


def review_deck_sync(*, user: Any) -> int:
    """Add to the player's deck every qualifying hand that has no card yet:
    revealed table hands with an exact cost of at least ``REVIEW_THRESHOLD``
    and locked practice hands analysed exactly with a loss that large. One
    query for each kind finds the missing ones; one insert adds them, due at
    once, in box 1. Returns how many were added.

    Two syncs at once may find the same hand missing; the unique constraints
    keep one card and the other insert skips it (``ignore_conflicts``)."""
    now = timezone.now()
    hands = (
        Hand.objects.filter(seat__user_id=user.pk, cost_method="exact",
                            cost_loss__gte=REVIEW_THRESHOLD, review_cards__isnull=True)
        .values_list("pk", "cards", "front", "cost_loss", "deal__table__mode")
    )
    practice = (
        PracticeHand.objects.filter(player_id=user.pk, exact=True, locked_at__isnull=False,
                                    loss__gte=float(REVIEW_THRESHOLD),
                                    review_cards__isnull=True)
        .values_list("pk", "cards", "front", "loss")
    )
    # The filters (``__gte``) leave no hand without a cost: the casts say so.
    new = [ReviewCard(user_id=user.pk, hand_id=pk, cards=cards, front=front,
                      cost=cast(Decimal, cost), mode=mode, due=now)
           for pk, cards, front, cost, mode in hands]
    new += [ReviewCard(user_id=user.pk, practice_hand_id=pk, cards=cards, front=front,
                       cost=_decimal(cast(float, loss)), mode=PRACTICE_MODE, due=now)
            for pk, cards, front, loss in practice]
    if not new:
        return 0
    return len(ReviewCard.objects.bulk_create(new, ignore_conflicts=True))


def review_cards_add_test_hands(*, player_id: int, hands: Iterable[PracticeTestHand]
                                ) -> list[ReviewCard]:
    """Add to the player's deck those of a scored test attempt's hands
    (``practice_test_worst_hands``: the ones they gave up most on) whose
    exact loss is at least ``REVIEW_THRESHOLD`` and that have no card yet:
    box 1, due at once, solo (the test is scored against the dealer's house
    way, as a solo hand). Returns the cards added. Run inside the scoring's
    transaction, so an attempt is scored and its cards made together; a
    second run adds nothing (the unique constraint keeps one card a hand)."""
    costly = [hand for hand in hands
              if hand.loss is not None and hand.loss >= float(REVIEW_THRESHOLD)]
    if not costly:
        return []
    carded = set(ReviewCard.objects.filter(test_hand__in=costly)
                 .values_list("test_hand_id", flat=True))
    now = timezone.now()
    new = [ReviewCard(user_id=player_id, test_hand_id=hand.pk, cards=hand.cards,
                      front=hand.front, cost=_decimal(cast(float, hand.loss)),
                      mode=PRACTICE_MODE, due=now)
           for hand in costly if hand.pk not in carded]
    return ReviewCard.objects.bulk_create(new, ignore_conflicts=True)


def _decimal(loss: float) -> Decimal:
    # A practice loss is a float; the card keeps nine places, as a table hand's cost.
    return Decimal(repr(loss)).quantize(Decimal("0.000000001"))


def review_analysis(*, user: Any, card: ReviewCard) -> ExactAnalysis | None:
    """The card's exact analysis from its suit class's cache, or None after
    queueing it for the player ``user`` on the analysis queue
    (``games.exact_analyse``, once the transaction commits; at most once a
    few seconds a class). It takes one of the player's analysis slots:
    ``AnalysisBudgetSpent`` (429) when none is left. Never computed here:
    only embedded, where Celery runs eagerly, does the queued task run at
    once."""
    found = analysis.exact_analysis_cached(cards=card.cards, mode=card.mode, side=SIDE)
    if found is None and analysis.exact_analysis_request(
            user=user, cards=card.cards, mode=card.mode, side=SIDE):
        # Embedded (eager, outside a transaction) it was computed just now.
        found = analysis.exact_analysis_cached(cards=card.cards, mode=card.mode, side=SIDE)
    return found


def at_best(found: ExactAnalysis, front: tuple[str, ...]) -> bool:
    """Whether the setting with this front scores the best expected score (ties within ``TIE``)."""
    chosen = next(row for row in found.settings if set(row.front) == set(front))
    return chosen.expected >= found.best.expected - TIE


def review_answer(*, user: Any, card_id: int, front: Any) -> ReviewCard:
    """Judge the player's setting of a due card and move it between boxes.

    ``front`` is the two cards for the front (codes, a list or a string).
    Refuses a card that is not the player's (``ReviewCardNotFound``), a
    front that is not two of its cards (``InvalidSetting``), a card not due
    yet (``ReviewNotDue``: a second press of the same answer changes
    nothing), a card whose analysis is not there yet (``ReviewAnalysing``,
    after queueing it) and, when it must be queued, a player whose analysis
    budget is spent (``AnalysisBudgetSpent``, 429). One transaction holding the card's row."""
    card = _own(user, card_id)
    try:
        chosen = hand_guide(card.card_list).setting(front)
    except ValueError:
        raise InvalidSetting(
            "Pick exactly two of your seven cards for the front, then set the hand."
        ) from None
    found = review_analysis(user=user, card=card)
    if found is None:
        raise ReviewAnalysing()
    hit = at_best(found, chosen.front)
    with transaction.atomic():
        card = _own(user, card_id, lock=True)
        now = timezone.now()
        if card.due > now:
            raise ReviewNotDue()
        if hit:
            card.box = min(card.box + 1, LAST_BOX)
            card.due = now + timedelta(days=BOX_DAYS[card.box])
        else:
            card.box = 1
            card.due = now + timedelta(days=MISS_DAYS)
        card.last_front = " ".join(chosen.front)
        card.last_at_best = hit
        card.last_reviewed_at = now
        card.reviews += 1
        card.save(update_fields=["box", "due", "last_front", "last_at_best",
                                 "last_reviewed_at", "reviews"])
    return card


def _own(user: Any, card_id: int, *, lock: bool = False) -> ReviewCard:
    rows = ReviewCard.objects.filter(pk=card_id, user_id=user.pk)
    found = (rows.select_for_update() if lock else rows).first()
    if found is None:
        raise ReviewCardNotFound()
    return found
