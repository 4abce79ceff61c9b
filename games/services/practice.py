"""Writes of the practice table: deal a hand, analyse it, lock a setting.

Practice has no stake, no ledger and no opponent hand: a ``PracticeHand``
belongs to its player alone and never to a table, so nothing here touches
chips, the history or the skill report. Each write is one transaction.

The analysis (each setting's expected score, ``engine.practice``, about
180 ms of CPU) is computed once per hand, by the background task the deal
queues on the analysis queue (``games.practice_analyse``; eager, in the
deal's own commit, when embedded), never in a web process: a lock that comes
before it is refused with ``PracticeAnalysing`` (the page locks again a
moment later, and shows the result once the analysis is there), and queues
it again if its task was lost. A deal takes one of the player's analysis
slots (``services.analysis.analysis_budget_claim``). It is sampled
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

from .. import enqueue
from ..engine import PRACTICE_OPPONENTS as DEFAULT_OPPONENTS
from ..engine import (
    Analysis,
    check_drill,
    deal_drill,
    decision_cost,
    exact,
    explore_settings,
    hand_guide,
    sampled_analysis,
)
from ..engine.errors import (
    GameError,
    InvalidSetting,
    PracticeAlreadyLocked,
    PracticeHandNotFound,
    UnknownDrill,
)
from ..engine.practice import analysis_from_rows
from ..models import PracticeHand
from .analysis import analysis_budget_claim, analysis_budget_release, exact_analysis_cached

# The exact analysis a practice hand is costed with: the practice table plays
# against the dealer's copies, as a solo table does, from the player's seat.
EXACT_MODE, EXACT_SIDE = "solo", "player"


class PracticeAnalysing(GameError):
    """A lock that came before the hand's analysis (the page locks again)."""

    code = "practice_analysing"
    default_detail = (
        "Your hand is still being analysed (it takes a moment): lock it again in a second."
    )
    retry_after = 1


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

    Raises ``UnknownDrill`` for a drill that does not exist, and
    ``AnalysisBudgetSpent`` (nothing dealt) when the player has as many
    analyses waiting, or dealt as many this minute, as one player may."""
    try:
        check_drill(drill)
    except ValueError as exc:
        raise UnknownDrill(str(exc)) from None
    cards = deal_drill(drill, rng or random.SystemRandom())
    guide = hand_guide(cards)
    slot = analysis_budget_claim(user_id=user.pk)
    try:
        with transaction.atomic():
            hand = PracticeHand.objects.create(
                player=user, drill=drill, cards=" ".join(cards),
                house_front=" ".join(guide.house_way.front), house_row=guide.row,
            )
            enqueue.practice_analyse_later(hand_id=hand.pk, slot=slot)
    except BaseException:
        analysis_budget_release(slot=slot)  # nothing was queued
        raise
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
    a hand already locked (``PracticeAlreadyLocked``), a front that is not
    two of the hand's cards (``InvalidSetting``) and a hand whose analysis
    has not arrived yet (``PracticeAnalysing``: nothing changes; its task is
    queued again if it was lost). A foul may be locked: it is practice, and
    the result says what it cost."""
    hand = _own(user, hand_id)
    if hand.locked:
        raise PracticeAlreadyLocked()
    try:
        chosen = hand_guide(hand.card_list).setting(front)
    except ValueError:
        raise InvalidSetting(
            "Pick exactly two of your seven cards for the front, then lock."
        ) from None
    if hand.expected is None:
        enqueue.practice_analyse_later(hand_id=hand.pk)  # unless queued a moment ago
        raise PracticeAnalysing()
    with transaction.atomic():
        hand = _own(user, hand_id, lock=True)
        if hand.locked:
            raise PracticeAlreadyLocked()
        cost = decision_cost(stored_analysis(hand), chosen.front)
        hand.front = " ".join(cost.front)
        hand.best_front = " ".join(cost.best_front)
        hand.loss, hand.at_best = cost.loss, cost.at_best
        hand.locked_at = timezone.now()
        hand.save()
        if not hand.exact:
            enqueue.practice_cost_later(hand_id=hand.pk)
    return hand


def practice_cost_exact(*, hand_id: int) -> bool:
    """Make a locked practice hand's figures exact (the costs queue's
    ``games.practice_cost_hands``, queued by the lock): its 21 expected
    scores, what its setting gave up and whether it was the best, from the
    exact analysis, as a revealed table hand's cost is made exact
    (``services.costs``). False when there is nothing to do (no such locked
    hand, or exact already: a second run is a no-op). Only exact costs enter
    the review deck (``services.review``)."""
    hand = PracticeHand.objects.filter(pk=hand_id, locked_at__isnull=False, exact=False).first()
    return hand is not None and _record_exact(hand)


def practice_costs_sweep(*, size: int) -> int:
    """Make exact up to ``size`` locked practice hands whose figures are an
    estimate, oldest lock first (a lost task, a broker that was down, hands
    locked before practice hands were costed exactly). Returns how many."""
    hands = list(PracticeHand.objects.filter(locked_at__isnull=False, exact=False)
                 .order_by("locked_at", "pk")[:size])
    return sum(_record_exact(hand) for hand in hands)


def _record_exact(hand: PracticeHand) -> bool:
    # From its suit class's stored analysis if someone asked for it, else
    # worked out here (on the costs worker, which has CPUs of its own) and not
    # stored, as ``services.costs`` does; before any lock: a locked setting
    # never changes.
    cards = hand.card_list
    found = (exact_analysis_cached(cards=cards, mode=EXACT_MODE, side=EXACT_SIDE)
             or exact(cards, mode=EXACT_MODE, side=EXACT_SIDE))
    by_front = {frozenset(row.front): row.expected for row in found.settings}
    expected = [by_front[frozenset(s.front)] for s in explore_settings(cards)]
    rows = [{"front": list(s.front), "expected": e}
            for s, e in zip(explore_settings(cards), expected, strict=True)]
    cost = decision_cost(analysis_from_rows(cards, rows, opponents=found.opponents, exact=True),
                         tuple(hand.front.split()))
    with transaction.atomic():
        return bool(PracticeHand.objects.filter(
            pk=hand.pk, locked_at__isnull=False, exact=False,
        ).update(expected=expected, opponents=found.opponents, exact=True,
                 best_front=" ".join(cost.best_front), loss=cost.loss, at_best=cost.at_best))


def _own(user: Any, hand_id: int, *, lock: bool = False) -> PracticeHand:
    rows = PracticeHand.objects.filter(pk=hand_id, player_id=user.pk)
    found = (rows.select_for_update() if lock else rows).first()
    if found is None:
        raise PracticeHandNotFound()
    return found
