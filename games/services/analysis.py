"""The exact analysis of a hand (``engine.exact``), cached by suit class.

Every hand that differs from another only by a permutation of suits has the
same counts: one ``ExactAnalysisCache`` row per class (``engine.exact_key``),
holding the analysis of the class's representative (``engine.canonical``);
a member hand's own analysis is relabelled from it (``engine.exact_for``).

It takes about 0.3 s a hand (several seconds the first time in a process,
while the engine builds its tables), so it never runs on a socket's or a
request's path: ``exact_analysis_request`` queues ``games.exact_analyse`` on
commit, and a worker calls ``exact_analysis_compute`` (usable from any task).
Embedded, Celery runs eagerly: the task runs at once, in the callback.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from .. import tasks
from ..engine import ExactAnalysis, canonical, exact, exact_for, exact_key
from ..models import ExactAnalysisCache


def exact_analysis_cached(
    *, cards: str | Iterable[str], mode: str, side: str = "player"
) -> ExactAnalysis | None:
    """The hand's own exact analysis if its suit class is analysed, else None."""
    key = exact_key(cards, mode=mode, side=side)
    payload = ExactAnalysisCache.objects.filter(key=key).values_list("payload", flat=True).first()
    if payload is None:
        return None
    return exact_for(cards, ExactAnalysis.from_json(payload))


def exact_analysis_compute(
    *, cards: str | Iterable[str], mode: str, side: str = "player"
) -> ExactAnalysis:
    """The hand's own exact analysis: read from its class's row, or computed for
    the class's representative and stored first.

    Storing is ``INSERT … ON CONFLICT DO NOTHING`` on the unique key, so two
    workers analysing the same class at once both succeed and one row is kept
    (either's: they are equal)."""
    cards = tuple(cards.split()) if isinstance(cards, str) else tuple(cards)
    found = exact_analysis_cached(cards=cards, mode=mode, side=side)
    if found is not None:
        return found
    representative, _ = canonical(cards)
    started = time.process_time()
    analysis = exact(representative, mode=mode, side=side)
    seconds = time.process_time() - started
    ExactAnalysisCache.objects.bulk_create(
        [ExactAnalysisCache(key=exact_key(cards, mode=mode, side=side),
                            payload=analysis.to_json(), seconds=seconds)],
        ignore_conflicts=True,
    )
    return exact_for(cards, analysis)


def exact_analysis_request(
    *, cards: str | Iterable[str], mode: str, side: str = "player"
) -> bool:
    """Queue the analysis of the hand's class (``games.exact_analyse``, once the
    current transaction commits) unless it is cached; True when it was queued.

    The task gets the class's representative, never the hand itself: the
    broker learns only the suit class. A broker that is down is logged, and
    the next request queues it again."""
    if ExactAnalysisCache.objects.filter(key=exact_key(cards, mode=mode, side=side)).exists():
        return False
    tasks.exact_analyse_later(cards=canonical(cards)[0], mode=mode, side=side)
    return True
