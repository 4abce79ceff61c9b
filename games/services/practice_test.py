"""Writes of the 100-hand test (``/practice/test/``): start an attempt, lock
its hands one after another, score it, share its result.

Test number N deals everyone the same hands (``engine.test_hands``). The
player sets them in order with no hints: nothing here returns a figure before
the last lock. The last lock marks the attempt ``scoring`` and queues one task
(``games.practice_test_score``, on the costs queue, after the commit); the
task reads each hand's exact analysis from the cache or computes it on the
costs worker and stores it by class (``services.analysis``:
every C(46, 7) opponent, solo, the player's side, as a solo decision cost),
then each setting's cost and the totals, and adds the hands the player gave
up most on to their review deck (``services.review``). A run computes at most
``SCORE_BATCH`` hands and queues the next, so that none outlasts the
broker's visibility timeout. It never runs on a request's path, except
embedded, where Celery is eager.

One attempt per player and test number is ``playing`` at a time (a unique
constraint); a finished attempt can be retaken as a new attempt.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from .. import enqueue
from ..engine import TEST_HANDS, ExactAnalysis, hand_guide, house_way, test_hands
from ..engine.errors import GameError, InvalidSetting
from ..models import PracticeTest, PracticeTestHand
from . import review
from .analysis import exact_analysis_cached, exact_analysis_compute

# The mode and side the test is scored as: a solo hand against the dealer's house way.
MODE, SIDE = "solo", "player"
# How many of a scored attempt's hands are "the hands you gave up most on".
WORST_HANDS = 10
# Hands a scoring run computes at most (about 0.05 s of CPU each, longer on
# a busy machine): each run stays
# far inside the broker's visibility timeout (CELERY_VISIBILITY_TIMEOUT, 90 s),
# and one that stops short queues the next, which reads what it stored.
SCORE_BATCH = 10
# A scoring attempt older than this is queued again when its page is opened
# (a broker that was down, a task that was lost): the task is idempotent.
SCORING_AGAIN_AFTER = timedelta(minutes=5)


class PracticeTestNotFound(GameError):
    code = "practice_test_not_found"
    default_detail = "There is no such test attempt, or it is not yours: start a test instead."
    status = 404


class PracticeTestNumberInvalid(GameError):
    code = "practice_test_number_invalid"
    default_detail = "A test number is a whole number from 1 up: pick one and start again."
    status = 400


class PracticeTestFinished(GameError):
    code = "practice_test_finished"
    default_detail = (
        "You have set every hand of this attempt already: see its result, or take the test again."
    )


class PracticeTestOutOfOrder(GameError):
    code = "practice_test_out_of_order"
    default_detail = "The test's hands are set in order, once each."


def practice_test_hand_count() -> int:
    """How many hands a new attempt deals (setting ``PRACTICE_TEST_HANDS``, 100)."""
    return int(getattr(settings, "PRACTICE_TEST_HANDS", TEST_HANDS))


def practice_test_start(*, user: Any, number: Any, hands: int | None = None) -> PracticeTest:
    """The player's attempt at test ``number`` still being played, or a new one
    of ``hands`` hands (by default ``practice_test_hand_count()``): the first
    ``hands`` of ``engine.test_hands(number)``, each with its house way.

    Raises ``PracticeTestNumberInvalid`` for a number that is not one."""
    try:
        number = int(number)
        dealt = test_hands(number, count=hands or practice_test_hand_count())
    except (TypeError, ValueError):
        raise PracticeTestNumberInvalid() from None
    found = _playing(user, number)
    if found is not None:
        return found
    try:
        with transaction.atomic():
            attempt = PracticeTest.objects.create(player=user, number=number, hands=len(dealt))
            PracticeTestHand.objects.bulk_create(
                _hand(attempt, position, cards) for position, cards in enumerate(dealt, start=1)
            )
    except IntegrityError:  # the same player started it at the same moment elsewhere
        found = _playing(user, number)
        if found is None:
            raise
        return found
    return attempt


def _playing(user: Any, number: int) -> PracticeTest | None:
    return PracticeTest.objects.filter(player_id=user.pk, number=number, status="playing").first()


def _hand(attempt: PracticeTest, position: int, cards: tuple[str, ...]) -> PracticeTestHand:
    way = house_way(cards)
    return PracticeTestHand(test=attempt, position=position, cards=" ".join(cards),
                            house_front=" ".join(way.setting.front), house_row=way.row)


def practice_test_lock(*, user: Any, test_id: int, position: Any, front: Any
                       ) -> PracticeTestHand:
    """Lock the player's setting of hand ``position`` of an attempt (``front``:
    the two front cards, a list or a string).

    Refuses another player's attempt or a missing one (``PracticeTestNotFound``),
    a finished attempt (``PracticeTestFinished``), any hand but the next one
    (``PracticeTestOutOfOrder``: a hand locked already, or one further on) and
    a front that is not two of the hand's cards (``InvalidSetting``). The last
    lock queues the scoring once it commits."""
    with transaction.atomic():
        attempt = _own(user, test_id, lock=True)
        if attempt.status != "playing":
            raise PracticeTestFinished()
        hand = attempt.test_hands.filter(locked_at__isnull=True).order_by("position").first()
        if hand is None:  # unreachable while the status follows the locks
            raise PracticeTestFinished()
        if str(position) != str(hand.position):
            raise PracticeTestOutOfOrder(
                f"Hand {hand.position} of {attempt.hands} is the next one to set: the test's "
                "hands are set in order, once each. Reload the page to see it."
            )
        try:
            chosen = hand_guide(hand.card_list).setting(front)
        except ValueError:
            raise InvalidSetting(
                "Pick exactly two of your seven cards for the front, then lock."
            ) from None
        hand.front = " ".join(chosen.front)
        hand.locked_at = timezone.now()
        hand.save(update_fields=["front", "locked_at"])
        if hand.position == attempt.hands:
            attempt.status, attempt.finished_at = "scoring", hand.locked_at
            attempt.save(update_fields=["status", "finished_at"])
            enqueue.practice_test_score_later(test_id=attempt.pk)
    return hand


def _own(user: Any, test_id: int, *, lock: bool = False) -> PracticeTest:
    rows = PracticeTest.objects.filter(pk=test_id, player_id=user.pk)
    found = (rows.select_for_update() if lock else rows).first()
    if found is None:
        raise PracticeTestNotFound()
    return found


Analyse = Callable[[tuple[str, ...]], ExactAnalysis]


def _exact(cards: tuple[str, ...]) -> ExactAnalysis:
    # Stored by class, unlike a table hand's decision cost: test N's hands are
    # everyone's, so the next attempt at test N reads all of them.
    return exact_analysis_compute(cards=cards, mode=MODE, side=SIDE)


def practice_test_score(*, test_id: int, analyse: Analyse | None = None,
                        batch: int = SCORE_BATCH) -> bool:
    """Score a finished attempt: each hand's exact analysis (its class's
    stored one, else ``analyse``: by default computed and stored), what the
    player's setting and the house way's gave up against the best, and the
    totals; the hands given up most on enter the player's review deck
    (``services.review.review_cards_add_test_hands``). False when it is not
    scored by this run: no such attempt, still playing, scored already (a
    second run is a no-op), or more than
    ``batch`` hands had to be computed: those are stored, and the next run is
    queued (``enqueue.practice_test_score_later``) to go on from there.

    The analyses are computed before any lock is taken; the write is one
    transaction holding the attempt's row."""
    analyse = analyse or _exact
    if not PracticeTest.objects.filter(pk=test_id, status="scoring").exists():
        return False
    rows = list(PracticeTestHand.objects.filter(test_id=test_id).order_by("position"))
    analyses = _analyses(rows, analyse, batch)
    if analyses is None:
        enqueue.practice_test_score_later(test_id=test_id)
        return False
    scored = [_score(hand, analysis) for hand, analysis in zip(rows, analyses, strict=True)]
    with transaction.atomic():
        attempt = PracticeTest.objects.select_for_update().filter(pk=test_id).first()
        if attempt is None or attempt.status != "scoring":
            return False
        PracticeTestHand.objects.bulk_update(scored, ["best_front", "loss", "house_loss"])
        attempt.total_loss = sum(_losses(scored, "loss"))
        attempt.house_loss = sum(_losses(scored, "house_loss"))
        attempt.at_best = sum(hand.loss == 0 for hand in scored)
        attempt.status, attempt.scored_at = "scored", timezone.now()
        attempt.save(update_fields=["total_loss", "house_loss", "at_best", "status", "scored_at"])
        # The hands given up most on go to the player's review deck with the score.
        review.review_cards_add_test_hands(
            player_id=attempt.player_id,
            hands=practice_test_worst_hands(test_id=test_id, limit=WORST_HANDS))
    return True


def _analyses(rows: list[PracticeTestHand], analyse: Analyse, batch: int
              ) -> list[ExactAnalysis] | None:
    """Each hand's analysis, or None once ``batch`` hands were computed and
    another one is missing (the next run reads those from the cache)."""
    found, computed = [], 0
    for hand in rows:
        stored = exact_analysis_cached(cards=hand.card_list, mode=MODE, side=SIDE)
        if stored is None:
            if computed == batch:
                return None
            stored, computed = analyse(hand.card_list), computed + 1
        found.append(stored)
    return found


def practice_test_worst_hands(*, test_id: int, limit: int = WORST_HANDS) -> list[PracticeTestHand]:
    """The hands of a scored attempt the player gave up most on: those that
    gave up anything, worst first (the earlier first on a tie), at most
    ``limit``. Empty while the attempt is not scored. The result page lists
    them; the scoring adds those that gave up at least the review deck's
    threshold to it (``services.review.review_cards_add_test_hands``)."""
    return list(
        PracticeTestHand.objects.filter(test_id=test_id, test__status="scored", loss__gt=0)
        .order_by("-loss", "position")[:limit]
    )


def _score(hand: PracticeTestHand, analysis: ExactAnalysis) -> PracticeTestHand:
    by_front = {frozenset(row.front): row for row in analysis.settings}
    best = analysis.best
    chosen = by_front[frozenset(hand.front.split())]
    house = by_front[frozenset(hand.house_front.split())]
    hand.best_front = " ".join(best.front)
    hand.loss = best.expected - chosen.expected
    hand.house_loss = best.expected - house.expected
    return hand


def _losses(hands: Iterable[PracticeTestHand], field: str) -> list[float]:
    return [float(getattr(hand, field) or 0.0) for hand in hands]


def practice_test_score_again(*, test_id: int) -> bool:
    """Queue the scoring again of an attempt scoring for longer than
    ``SCORING_AGAIN_AFTER`` (its task lost, or a broker that was down); True
    when queued. The task itself is idempotent."""
    stale = timezone.now() - SCORING_AGAIN_AFTER
    with transaction.atomic():
        claimed = PracticeTest.objects.filter(
            pk=test_id, status="scoring", finished_at__lt=stale
        ).update(finished_at=timezone.now())
        if claimed:
            enqueue.practice_test_score_later(test_id=test_id)
    return bool(claimed)


def practice_test_share(*, user: Any, test_id: int, show_name: bool) -> PracticeTest:
    """Show the player's username on the attempt's shared result, or hide it."""
    with transaction.atomic():
        attempt = _own(user, test_id, lock=True)
        attempt.show_name = bool(show_name)
        attempt.save(update_fields=["show_name"])
    return attempt
