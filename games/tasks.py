"""Celery tasks: thin wrappers that take ids and call the services
(``services.upkeep``, ``services.analysis``, ``services.practice``) or
``reports``. The services queue them by name once their transaction commits
(``games.enqueue``, which imports nothing from ``games``): a task's name is
what its queued messages carry, so the names never change.

Each task is idempotent (the work is claimed with a conditional update or a
unique row), so a retry or a duplicate delivery (``acks_late``) has one
effect. A database that is briefly unreachable is retried with exponential
backoff. The schedule is ``CELERY_BEAT_SCHEDULE`` in the settings.
"""

from __future__ import annotations

import os
from typing import Any

from celery import shared_task
from celery.signals import worker_init, worker_process_init
from django.conf import settings
from django.db import InterfaceError, OperationalError

from . import reports
from .engine.exact import build_tables
from .engine.hands import warm_tables
from .realtime import broadcast
from .services import analysis, practice, practice_test, upkeep

RETRY = {
    "bind": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": True,
    # Due within the visibility timeout (paigow.E002), or a waiting retry
    # would be delivered again and again.
    "retry_backoff_max": settings.TASK_RETRY_BACKOFF_MAX,
    "retry_jitter": True,
    "max_retries": 5,
    "acks_late": True,
    "ignore_result": True,  # the effect is in the database; nothing waits for a result
}


@shared_task(name="games.tables_close_idle", **RETRY)
def tables_close_idle(self: Any) -> int:
    return len(upkeep.tables_close_idle())


@shared_task(name="games.invites_expire", **RETRY)
def invites_expire(self: Any) -> int:
    return upkeep.invites_expire()


@shared_task(name="games.report_refresh", **RETRY)
def report_refresh(self: Any, user_id: int) -> bool:
    return reports.report_refresh(user_id=user_id)


@shared_task(name="games.report_refresh_users", **RETRY)
def report_refresh_users(self: Any, user_ids: list[int]) -> list[bool]:
    """``games.report_refresh`` for several players: what a web process's
    windowed refreshes of one ``REPORT_REFRESH_BATCH_SECONDS`` queue, one
    message for them all (``enqueue.report_refresh_later``)."""
    return [reports.report_refresh(user_id=user_id) for user_id in user_ids]


@shared_task(name="games.luck_verify", **RETRY)
def luck_verify(self: Any, hand_id: int) -> str | None:
    return upkeep.luck_verify(hand_id=hand_id)


@shared_task(name="games.luck_verify_hands", **RETRY)
def luck_verify_hands(self: Any, hand_ids: list[int]) -> list[str | None]:
    """``games.luck_verify`` for several hands: what ``enqueue.luck_verify_later``
    queues, one message for the estimates a process recorded together."""
    return upkeep.luck_verify_many(hand_ids=hand_ids)


@shared_task(name="games.luck_sweep", **RETRY)
def luck_sweep(self: Any) -> dict[str, int]:
    return upkeep.luck_sweep()


@shared_task(name="games.practice_analyse", **RETRY)
def practice_analyse(self: Any, hand_id: int, slot: str | None = None) -> bool:
    """A practice hand's analysis (on the analysis queue); gives back the
    player's analysis slot ``slot`` when done (``services.analysis``)."""
    try:
        return practice.practice_analyse(hand_id=hand_id)
    finally:
        analysis.analysis_budget_release(slot=slot)


@shared_task(name="games.exact_analyse", **RETRY)
def exact_analyse(self: Any, cards: str, mode: str, side: str, slot: str | None = None) -> int:
    """The exact analysis of a suit class (its representative's cards, the
    table's mode and the seat's side), stored once; a class already stored is
    read, not computed again. Returns the opponents counted. Gives back the
    asking player's analysis slot ``slot`` when done."""
    try:
        return analysis.exact_analysis_compute(cards=cards, mode=mode, side=side).opponents
    finally:
        analysis.analysis_budget_release(slot=slot)


@worker_init.connect
def _worker_nice(**_: Any) -> None:
    """Lower the worker's CPU priority by ``WORKER_NICE`` as it starts, before
    its pool forks (the pool's processes inherit it): on cores shared with
    the web processes, background work waits for idle CPU. (The heavy work's
    workers have CPUs of their own: docker-compose.yml.)"""
    if settings.WORKER_NICE:
        os.nice(settings.WORKER_NICE)


@worker_init.connect
@worker_process_init.connect
def _exact_tables_build(**_: Any) -> None:
    """A worker builds the exact analysis's pattern tables as it starts (a few
    seconds), so its first hand takes as long as the rest. Built in the main
    process (``worker_init``), forked pool processes inherit them and
    ``worker_process_init`` finds them built; never in eager mode. The
    back values' tables too (``hands.warm_tables``: the luck checks' draws
    read them)."""
    build_tables()
    warm_tables()


@worker_init.connect
@worker_process_init.connect
def _publish_from_own_loop(**_: Any) -> None:
    """A worker runs no event loop: its pushes to the sockets (a luck
    check's verdict) publish on one that lasts, with the channel layer's
    connections, instead of a new loop and new connections each time
    (``broadcast.publish_from_own_loop``)."""
    broadcast.publish_from_own_loop()


@shared_task(name="games.luck_audit", **RETRY)
def luck_audit(self: Any, size: int | None = None) -> dict[str, int]:
    return upkeep.luck_audit_sample(size=size)


@shared_task(name="games.decision_cost", **RETRY)
def decision_cost(self: Any, hand_id: int) -> str | None:
    return upkeep.decision_cost_estimate(hand_id=hand_id)


@shared_task(name="games.decision_cost_hands", **RETRY)
def decision_cost_hands(self: Any, hand_ids: list[int]) -> list[str | None]:
    """``games.decision_cost`` for several hands: what ``enqueue.decision_cost_later``
    queues, one message for the hands a process revealed together."""
    return [upkeep.decision_cost_estimate(hand_id=hand_id) for hand_id in hand_ids]


@shared_task(name="games.decision_costs_sweep", **RETRY)
def decision_costs_sweep(self: Any, size: int | None = None) -> int:
    return upkeep.decision_costs_sweep(size=size)


@shared_task(name="games.practice_cost_hands", **RETRY)
def practice_cost_hands(self: Any, hand_ids: list[int]) -> list[bool]:
    """Locked practice hands' figures made exact (on the costs queue): what
    ``enqueue.practice_cost_later`` queues, one message for the hands a
    process locked together."""
    return [upkeep.practice_cost_exact(hand_id=hand_id) for hand_id in hand_ids]


@shared_task(name="games.practice_costs_sweep", **RETRY)
def practice_costs_sweep(self: Any, size: int | None = None) -> int:
    return upkeep.practice_costs_sweep(size=size)


@shared_task(name="games.practice_test_score", **RETRY)
def practice_test_score(self: Any, test_id: int) -> bool:
    """Score a finished 100-hand test attempt (its hands' exact analyses), or
    compute a batch of them and queue the next run."""
    return practice_test.practice_test_score(test_id=test_id)


@shared_task(name="games.client_messages_forget", **RETRY)
def client_messages_forget(self: Any) -> int:
    return upkeep.client_messages_forget()
