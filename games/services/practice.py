"""Writes of the practice table: deal a hand, analyse it, lock a setting.

Practice has no stake, no ledger and no opponent hand: a ``PracticeHand``
belongs to its player alone and never to a table, so nothing here touches
chips, the history or the skill report. Each write is one transaction.

The analysis (each setting's expected score, ``engine.practice``) is
computed once per hand: by the background task the deal queues
(``games.practice_analyse``; eager when embedded), or by the lock when the
task has not run yet, so a lock never waits for a worker. It is sampled
(``PRACTICE_OPPONENTS`` opponents of the explorer's stream); ``hand_analysis``
is the one place that chooses how a hand is analysed, so exact figures can
replace the estimate there.
"""

from __future__ import annotations

import random
import time
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .. import tasks
from ..engine import PRACTICE_OPPONENTS as DEFAULT_OPPONENTS
from ..engine import (
    Analysis,
    check_drill,
    deal_drill,
    decision_cost,
    explore_settings,
    hand_guide,
    sampled_analysis,
)
from ..engine.errors import (
    InvalidSetting,
    PracticeAlreadyLocked,
    PracticeHandNotFound,
    UnknownDrill,
)
from ..engine.practice import analysis_from_rows
from ..models import PracticeHand


def practice_opponents() -> int:
    """How many opponents a sampled practice analysis meets (setting ``PRACTICE_OPPONENTS``)."""
    return int(getattr(settings, "PRACTICE_OPPONENTS", DEFAULT_OPPONENTS))


def hand_analysis(cards: tuple[str, ...]) -> tuple[Analysis, int]:
    """The analysis of a hand's 21 settings and the milliseconds it took.

    The seam for exact figures: today a sampled estimate over
    ``practice_opponents()`` opponents, the same ones for all 21 settings."""
    started = time.perf_counter()
    analysis = sampled_analysis(cards, opponents=practice_opponents())
    return analysis, round((time.perf_counter() - started) * 1000)


def stored_analysis(hand: PracticeHand) -> Analysis:
    """The analysis stored with a hand (``expected``: the explorer's order)."""
    rows = [{"front": list(s.front), "expected": e}
            for s, e in zip(explore_settings(hand.card_list), hand.expected or (), strict=True)]
    return analysis_from_rows(hand.card_list, rows, opponents=hand.opponents or 0,
                              exact=hand.exact)


def practice_deal(
    *, user: Any, drill: str, rng: random.Random | None = None
) -> PracticeHand:
    """Deal the player a practice hand of a drill's family (``engine.drills``).

    Raises ``UnknownDrill`` for a drill that does not exist."""
    try:
        check_drill(drill)
    except ValueError as exc:
        raise UnknownDrill(str(exc)) from None
    cards = deal_drill(drill, rng or random.SystemRandom())
    guide = hand_guide(cards)
    with transaction.atomic():
        hand = PracticeHand.objects.create(
            player=user, drill=drill, cards=" ".join(cards),
            house_front=" ".join(guide.house_way.front), house_row=guide.row,
        )
        tasks.practice_analyse_later(hand_id=hand.pk)
    return hand


def practice_analyse(*, hand_id: int) -> bool:
    """Analyse a hand that has no analysis yet; False when it had one (or is gone).

    Computed outside the transaction; written only if still missing, so a
    lock that analysed it first is never overwritten."""
    cards = (PracticeHand.objects.filter(pk=hand_id, expected__isnull=True)
             .values_list("cards", flat=True).first())
    if cards is None:
        return False
    analysis, ms = hand_analysis(tuple(cards.split()))
    with transaction.atomic():
        return bool(PracticeHand.objects.filter(pk=hand_id, expected__isnull=True).update(
            expected=list(analysis.expected), opponents=analysis.opponents,
            exact=analysis.exact, analysis_ms=ms,
        ))


def practice_lock(*, user: Any, hand_id: int, front: Any) -> PracticeHand:
    """Lock the player's setting of a practice hand and record what it gave up.

    ``front`` is the two cards for the front (codes, a list or a string).
    Refuses another player's hand or a missing one (``PracticeHandNotFound``),
    a hand already locked (``PracticeAlreadyLocked``) and a front that is not
    two of the hand's cards (``InvalidSetting``). A foul may be locked: it is
    practice, and the result says what it cost."""
    hand = _own(user, hand_id)
    if hand.locked:
        raise PracticeAlreadyLocked()
    try:
        chosen = hand_guide(hand.card_list).setting(front)
    except ValueError:
        raise InvalidSetting(
            "Pick exactly two of your seven cards for the front, then lock."
        ) from None
    fresh = None if hand.expected is not None else hand_analysis(hand.card_list)
    with transaction.atomic():
        hand = _own(user, hand_id, lock=True)
        if hand.locked:
            raise PracticeAlreadyLocked()
        if hand.expected is None and fresh is not None:
            analysis, ms = fresh
            hand.expected, hand.opponents = list(analysis.expected), analysis.opponents
            hand.exact, hand.analysis_ms = analysis.exact, ms
        cost = decision_cost(stored_analysis(hand), chosen.front)
        hand.front = " ".join(cost.front)
        hand.best_front = " ".join(cost.best_front)
        hand.loss, hand.at_best = cost.loss, cost.at_best
        hand.locked_at = timezone.now()
        hand.save()
    return hand


def _own(user: Any, hand_id: int, *, lock: bool = False) -> PracticeHand:
    rows = PracticeHand.objects.filter(pk=hand_id, player_id=user.pk)
    found = (rows.select_for_update() if lock else rows).first()
    if found is None:
        raise PracticeHandNotFound()
    return found
