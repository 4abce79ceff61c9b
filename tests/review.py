"""Helpers for the review deck's tests: hands with exact costs made through
the real services, and their suit classes' exact analyses in the cache (each
class computed once per test process: the engine's first call builds its
tables, later ones take a fraction of a second)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.utils import timezone

from games import engine, services
from games.engine import ExactAnalysis, canonical, exact_for, exact_key, explore_settings
from games.engine.cost import EXACT_OPPONENTS
from games.models import (
    ExactAnalysisCache,
    Hand,
    PracticeHand,
    PracticeTest,
    PracticeTestHand,
    Table,
)

# Solo, against the dealer; what each front gives up, exactly (engine.exact):
WEAK = "Js 9h 7d 5c 4s 3h 2c"  # best 9h 7d; 7d 5c gives up 0.0076, Js 4s (a foul) 0.018
STRONG = "As Ah Kd Kc Qs Qh 2d"  # best As Ah; Kd Kc gives up 0.0012, As Kd 0.198
DEALER = "Ks Qd 9h 7c 5s 4d 2h"


@functools.cache
def _class_payload(cards: str, mode: str) -> str:
    import json

    return json.dumps(engine.exact(canonical(cards)[0], mode=mode).to_json())


def analysed(cards: str, mode: str = "solo") -> ExactAnalysis:
    """Store the hand's suit class's exact analysis (as the task would) and
    return the hand's own."""
    import json

    payload = json.loads(_class_payload(cards, mode))
    ExactAnalysisCache.objects.get_or_create(
        key=exact_key(cards, mode=mode, side="player"),
        defaults={"payload": payload, "seconds": 0.0})
    return exact_for(cards, ExactAnalysis.from_json(payload))


def record_exact_cost(hand: Hand, mode: str = "solo") -> Decimal:
    """Record the hand's exact cost through the service; returns the loss."""
    found = analysed(hand.cards, mode)
    front = set(hand.front.split())
    chosen = next(row for row in found.settings if set(row.front) == front)
    services.hand_cost_record(
        hand_id=hand.pk, chosen_expected=chosen.expected, best_expected=found.best.expected,
        best_front=list(found.best.front), opponents=found.opponents, exact=True)
    hand.refresh_from_db()
    assert hand.cost_loss is not None
    return hand.cost_loss


def played(play_solo: Callable[..., Any], user: Any, cards: str, front: str, *,
           table: Table | None = None, cost: str = "exact") -> Hand:
    """A revealed solo hand of ``user`` set with ``front``; its cost recorded
    exactly (``cost="exact"``), as an estimate ("sampled") or not at all ("")."""
    table = table or services.table_start(user=user, mode="solo")
    deal = play_solo(user, table, cards, DEALER, front=front.split())
    hand = Hand.objects.get(deal=deal, seat_number=0)
    if cost == "exact":
        record_exact_cost(hand)
    elif cost == "sampled":
        services.hand_cost_record(hand_id=hand.pk, chosen_expected=0.2, best_expected=0.6,
                                  best_front=front.split(), opponents=10_000, exact=False)
    return hand


def with_cost(hand: Hand, loss: str) -> Hand:
    """Give a revealed hand an exact cost of exactly ``loss`` (for thresholds)."""
    Hand.objects.filter(pk=hand.pk).update(
        cost_loss=Decimal(loss), cost_at_best=Decimal(loss) == 0, cost_best_front=hand.front,
        cost_method="exact", cost_opponents=EXACT_OPPONENTS, cost_at=timezone.now())
    hand.refresh_from_db()
    return hand


def practised(user: Any, cards: str, front: str, *, exact: bool = True,
              loss: float | None = None) -> PracticeHand:
    """A locked practice hand set with ``front``: analysed exactly (``exact``)
    or by an estimate; its loss is the analysis's unless ``loss`` is given."""
    found = analysed(cards, "solo")
    expected = {frozenset(r.front): r.expected for r in found.settings}
    rows = [expected[frozenset(s.front)] for s in explore_settings(cards)]
    chosen = expected[frozenset(front.split())]
    house = engine.house_way(cards)
    if loss is None:
        loss = found.best.expected - chosen
    return PracticeHand.objects.create(
        player=user, drill="any", cards=cards, house_front=" ".join(house.setting.front),
        house_row=house.row, expected=rows, opponents=EXACT_OPPONENTS if exact else 20_000,
        exact=exact, front=front, locked_at=timezone.now(),
        best_front=" ".join(found.best.front), loss=loss, at_best=loss == 0)


def scored_test(user: Any, hands: list[tuple[str, str]], *, number: int = 1) -> PracticeTest:
    """A scored test attempt of ``user`` dealt ``hands`` (cards, front) in
    order, each set with its front, scored through the real service (each
    suit class's exact analysis stored first, as the worker would)."""
    from games.services import practice_test

    attempt = practice_test.practice_test_start(user=user, number=number, hands=len(hands))
    for row, (cards, _) in zip(attempt.test_hands.order_by("position"), hands, strict=True):
        house = engine.house_way(cards)
        PracticeTestHand.objects.filter(pk=row.pk).update(
            cards=cards, house_front=" ".join(house.setting.front), house_row=house.row)
        analysed(cards)
    for position, (_, front) in enumerate(hands, start=1):
        practice_test.practice_test_lock(user=user, test_id=attempt.pk, position=position,
                                         front=front.split())
    assert practice_test.practice_test_score(test_id=attempt.pk)
    attempt.refresh_from_db()
    return attempt
