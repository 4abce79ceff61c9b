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

The analyses a player asks for (these, and a practice hand's) share one
queue, and each account has a budget there (``analysis_budget_claim``): at
most ``ANALYSIS_AT_ONCE`` queued or running at once and
``ANALYSIS_PER_MINUTE`` a minute (``accounts.limits.Limiter``), past which
the request is refused with ``AnalysisBudgetSpent`` (429). The budget lives
in the cache (Redis in production) and every part of it expires by itself: a worker killed before
it gives back its slot locks nobody out for longer than
``ANALYSIS_SLOT_SECONDS``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from django.conf import settings

from accounts.limits import Limiter

from .. import enqueue
from ..engine import ExactAnalysis, canonical, exact, exact_for, exact_key
from ..engine.errors import GameError
from ..models import ExactAnalysisCache


class AnalysisBudgetSpent(GameError):
    """An account asked for more analyses than its budget (429)."""

    code = "analysis_budget"
    status = 429
    default_detail = "You have asked for many analyses at once: wait a minute, then ask again."

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


# The cache keys' prefix (a test makes its own).
BUDGET_SCOPE = "analysis"


def _per_minute() -> Limiter:
    """The per-minute half of the budget: ``accounts.limits``' fixed window."""
    return Limiter(f"{BUDGET_SCOPE}-minute", {"user": settings.ANALYSIS_PER_MINUTE}, window=60)


def analysis_budget_claim(*, user_id: int) -> str:
    """Claim one of the account's ``ANALYSIS_AT_ONCE`` slots and count it in
    its minute's ``ANALYSIS_PER_MINUTE``; the slot's key, which the task
    gives back (``analysis_budget_release``) when it is done.

    A slot is a cache key added with a timeout (``ANALYSIS_SLOT_SECONDS``), so
    one never given back frees itself; the minute's count expires with its
    window. Raises ``AnalysisBudgetSpent`` with a sentence that says how long
    to wait."""
    per_minute, account = _per_minute(), ("user", str(user_id))
    minutes = per_minute.minutes_left(account)
    if minutes:
        raise AnalysisBudgetSpent(
            f"You have asked for {settings.ANALYSIS_PER_MINUTE} analyses within a minute, as "
            "many as one player may: wait a minute, then ask again.",
            retry_after=60 * minutes,
        )
    cache = enqueue.shared_cache()
    for number in range(settings.ANALYSIS_AT_ONCE):
        slot = f"{BUDGET_SCOPE}-slot:{user_id}:{number}"
        if cache.add(slot, True, timeout=settings.ANALYSIS_SLOT_SECONDS):
            per_minute.record_failure(account)  # counted: a "failure" is an attempt there
            return slot
    raise AnalysisBudgetSpent(
        f"You already have {settings.ANALYSIS_AT_ONCE} analyses waiting for the server: wait "
        "a few seconds for them to finish, then ask again.",
        retry_after=5,
    )


def analysis_budget_release(*, slot: str | None) -> None:
    """Give a slot back (its task is done); nothing for None (embedded
    callers and tasks queued before budgets existed have none)."""
    if slot:
        enqueue.shared_cache().delete(slot)


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
    *, user: Any, cards: str | Iterable[str], mode: str, side: str = "player"
) -> bool:
    """Queue the analysis of the hand's class (``games.exact_analyse``, once the
    current transaction commits) for the player ``user`` unless it is
    cached or queued a moment ago; True when it was queued.

    It takes one of the player's analysis slots (``analysis_budget_claim``;
    ``AnalysisBudgetSpent`` when none is left), which the task gives back.
    The task gets the class's representative, never the hand itself: the
    broker learns only the suit class. A broker that is down is logged, and
    the next request queues it again."""
    if ExactAnalysisCache.objects.filter(key=exact_key(cards, mode=mode, side=side)).exists():
        return False
    representative = canonical(cards)[0]
    if enqueue.exact_queued(cards=representative, mode=mode, side=side):
        return False  # the explorer asks every few seconds while it waits
    slot = analysis_budget_claim(user_id=user.pk)
    enqueue.exact_analyse_later(cards=representative, mode=mode, side=side, slot=slot)
    return True
