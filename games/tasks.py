"""Celery tasks, and the queueing of the ones a transition asks for.

The tasks are thin wrappers that take ids and call ``games.upkeep`` (or
``games.reports``). ``report_refresh_later``, ``luck_verify_later`` and
``decision_cost_later`` queue
them once the current transaction commits, from the process's one queueing
thread, so the socket's answer never waits for the cache or the broker.

Each task is idempotent (the work is claimed with a conditional update or a
unique row), so a retry or a duplicate delivery (``acks_late``) has one
effect. A database that is briefly unreachable is retried with exponential
backoff. The schedule is ``CELERY_BEAT_SCHEDULE`` in the settings.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from celery import shared_task
from celery.signals import worker_init, worker_process_init
from django.conf import settings
from django.core.cache import BaseCache, caches
from django.db import InterfaceError, OperationalError, transaction

from . import reports, upkeep
from .engine.exact import build_tables
from .engine.hands import warm_tables
from .realtime import broadcast

log = logging.getLogger(__name__)

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
    message for them all."""
    return [reports.report_refresh(user_id=user_id) for user_id in user_ids]


@shared_task(name="games.luck_verify", **RETRY)
def luck_verify(self: Any, hand_id: int) -> str | None:
    return upkeep.luck_verify(hand_id=hand_id)


@shared_task(name="games.luck_verify_hands", **RETRY)
def luck_verify_hands(self: Any, hand_ids: list[int]) -> list[str | None]:
    """``games.luck_verify`` for several hands: what ``luck_verify_later``
    queues, one message for the estimates a process recorded together."""
    return upkeep.luck_verify_many(hand_ids=hand_ids)


@shared_task(name="games.luck_sweep", **RETRY)
def luck_sweep(self: Any) -> dict[str, int]:
    return upkeep.luck_sweep()


@shared_task(name="games.practice_analyse", **RETRY)
def practice_analyse(self: Any, hand_id: int, slot: str | None = None) -> bool:
    """A practice hand's analysis (on the analysis queue); gives back the
    player's analysis slot ``slot`` when done (``services.analysis``)."""
    from .services.analysis import analysis_budget_release
    from .services.practice import practice_analyse as analyse

    try:
        return analyse(hand_id=hand_id)
    finally:
        analysis_budget_release(slot=slot)


@shared_task(name="games.exact_analyse", **RETRY)
def exact_analyse(self: Any, cards: str, mode: str, side: str, slot: str | None = None) -> int:
    """The exact analysis of a suit class (its representative's cards, the
    table's mode and the seat's side), stored once; a class already stored is
    read, not computed again. Returns the opponents counted. Gives back the
    asking player's analysis slot ``slot`` when done."""
    from .services.analysis import analysis_budget_release, exact_analysis_compute

    try:
        return exact_analysis_compute(cards=cards, mode=mode, side=side).opponents
    finally:
        analysis_budget_release(slot=slot)


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
    """``games.decision_cost`` for several hands: what ``decision_cost_later``
    queues, one message for the hands a process revealed together."""
    return [upkeep.decision_cost_estimate(hand_id=hand_id) for hand_id in hand_ids]


@shared_task(name="games.decision_costs_sweep", **RETRY)
def decision_costs_sweep(self: Any, size: int | None = None) -> int:
    return upkeep.decision_costs_sweep(size=size)


@shared_task(name="games.client_messages_forget", **RETRY)
def client_messages_forget(self: Any) -> int:
    return upkeep.client_messages_forget()


# --- queueing on commit ---------------------------------------------------------


@functools.cache
def _marks() -> BaseCache:
    """The default cache, one client for the whole process.
    (``django.core.cache.cache`` keeps a client per context, and each table
    socket's calls run in a context of their own: with Redis, every socket
    would open connections of its own.)"""
    return caches.create_connection("default")


def shared_cache() -> BaseCache:
    """The process's one client of the default cache (``_marks``), for the
    services' counters (the analysis budget)."""
    return _marks()


def report_refresh_later(*, user_ids: list[int]) -> None:
    """After the current transaction commits, queue a refresh of each player's
    aggregates, at most one a ``REPORT_REFRESH_SECONDS`` window (a failing
    broker or cache is logged, never raised into the reveal).

    A refresh rebuilds all of a player's buckets, and a player can reveal a
    deal every few seconds: one rebuild a window, run just after the window
    ends, covers every reveal in it. Until then the report sums the hands
    (``reports.skill_report``), so it is never behind, only slower to read.
    With a worker, the players a process hands over in one
    ``REPORT_REFRESH_BATCH_SECONDS`` are queued together (``_Refreshes``)."""
    window = settings.REPORT_REFRESH_SECONDS

    def queue() -> None:
        task = report_refresh
        for user_id in user_ids:
            if not window:
                task.delay(user_id)
            elif _marks().add(f"report-refresh:{user_id}", True, timeout=window):
                # Due after the mark expires: a reveal the mark held back has
                # committed before this runs.
                task.apply_async((user_id,), countdown=window + 1)

    if not window or _eager():  # the refresh runs in this process: as before
        transaction.on_commit(queue, robust=True)
        return
    # Deferred, the refresh is due a window later anyway: handed to the
    # process's batch, which the queueing thread sends, so the reveal's answer
    # waits for neither the cache nor the broker (on_commit hooks run before
    # the socket can answer; under load they took up to 0.4 s there, and a
    # publish a player was 3.9% of a web process's time, docs/benchmarks.md).
    transaction.on_commit(lambda: _refreshes.add(user_ids), robust=True)


class _Refreshes:
    """Players waiting for a windowed refresh, from this process. The first
    one starts a timer; after ``REPORT_REFRESH_BATCH_SECONDS`` the queueing
    thread marks each (the cache's ``report-refresh:<id>``, for the window)
    and publishes one ``games.report_refresh_users`` for those it marked, due
    a window and a second after the marks: every reveal the marks hold back
    has committed by then."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting: set[int] = set()

    def add(self, user_ids: list[int]) -> None:
        with self.lock:
            first = not self.waiting
            self.waiting.update(user_ids)
        if first:
            timer = threading.Timer(
                settings.REPORT_REFRESH_BATCH_SECONDS, lambda: _queueing().submit(self.publish)
            )
            timer.daemon = True
            timer.start()

    def publish(self) -> None:
        with self.lock:
            waiting, self.waiting = sorted(self.waiting), set()
        if waiting:
            _logged(functools.partial(self._publish, waiting))

    @staticmethod
    def _publish(user_ids: list[int]) -> None:
        window = settings.REPORT_REFRESH_SECONDS
        due = [u for u in user_ids if _marks().add(f"report-refresh:{u}", True, timeout=window)]
        if due:
            report_refresh_users.apply_async((due,), countdown=window + 1)


_refreshes = _Refreshes()


def _eager() -> bool:
    return bool(report_refresh.app.conf.task_always_eager)


@functools.cache
def _queueing() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(1, thread_name_prefix="report-refresh-queue")


def _logged(
    queue: Callable[[], None],
    failed: str = "queueing a report refresh failed; the report sums the hands meanwhile",
) -> None:
    try:
        queue()
    except Exception:
        log.exception(failed)


def refreshes_queued_wait() -> None:
    """Wait until every refresh handed to the queueing thread is queued (a
    batch of windowed refreshes waiting for its timer is sent now)."""
    _queueing().submit(_refreshes.publish).result()




def _after_commit(queue: Callable[[], None], failed: str) -> None:
    """Run ``queue`` once the current transaction commits (not at all if it
    rolls back): embedded (eager) in the callback itself; otherwise on the
    process's queueing thread, so no answer waits for the broker, a failure
    logged as ``failed``."""
    if _eager():
        transaction.on_commit(queue, robust=True)
        return
    transaction.on_commit(lambda: _queueing().submit(_logged, queue, failed), robust=True)


class _Batches:
    """Hand ids waiting for the queueing thread, by task: each task is
    published once for all the hands a process handed it in one
    ``TASK_BATCH_SECONDS``, instead of once a hand. (Publishing a task cost
    the socket processes about a tenth of their CPU under load when each hand
    had messages of its own: docs/benchmarks.md.)"""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting: dict[str, tuple[Any, str, list[int]]] = {}

    def add(self, task: Any, failed: str, hand_ids: list[int]) -> bool:
        """Add ``hand_ids`` for ``task``; True when nothing was waiting (so a
        publish must be scheduled)."""
        with self.lock:
            first = not self.waiting
            self.waiting.setdefault(task.name, (task, failed, []))[2].extend(hand_ids)
            return first

    def publish(self) -> None:
        """Wait a moment for more, then publish each task once for its hands."""
        time.sleep(settings.TASK_BATCH_SECONDS)
        with self.lock:
            waiting, self.waiting = self.waiting, {}
        for task, failed, hand_ids in waiting.values():
            _logged(functools.partial(task.delay, hand_ids), failed.format(hand_ids=hand_ids))


_batches = _Batches()


def _hands_after_commit(task: Any, hand_ids: list[int], failed: str) -> None:
    """Once the current transaction commits, queue ``task`` for ``hand_ids``:
    embedded (eager) in the callback itself; otherwise batched on the
    process's queueing thread (``_Batches``), so no answer waits for the
    broker, a failure logged as ``failed`` (``{hand_ids}`` filled in)."""
    if _eager():
        transaction.on_commit(lambda: task.delay(hand_ids), robust=True)
        return

    def add() -> None:
        if _batches.add(task, failed, hand_ids):
            _queueing().submit(_batches.publish)

    transaction.on_commit(add, robust=True)


def luck_verify_later(*, hand_id: int) -> None:
    """Once the current transaction commits, queue ``games.luck_verify_hands``
    for the hand (not at all if it rolls back). As with the report refresh,
    the broker is reached from the process's queueing thread, so the socket's
    answer does not wait for it (embedded, the check runs at once, in the
    callback); a broker that is down is logged, and the beat audit checks the
    estimate later."""
    _hands_after_commit(
        luck_verify_hands, [hand_id],
        "queueing the luck check of hands {hand_ids} failed; the beat audit checks them later",
    )


def practice_analyse_later(*, hand_id: int, slot: str | None = None) -> None:
    """Once the deal of a practice hand commits, queue its analysis
    (``games.practice_analyse``, with the player's analysis slot ``slot``):
    embedded, it runs at once in the callback; otherwise a worker computes it
    while the player sets the hand. Queued at most once every
    ``EXACT_QUEUE_SECONDS`` a hand (a lock that comes first asks again). A
    broker that is down is logged (and the slot given back): the page's lock
    queues it again."""

    def queue() -> None:
        if _eager():
            practice_analyse.delay(hand_id, slot=slot)
            return
        mark = f"practice-analyse:{hand_id}"
        if not _marks().add(mark, True, timeout=EXACT_QUEUE_SECONDS):
            _release(slot)  # queued a moment ago (a lock that came first asks again)
            return
        try:
            practice_analyse.delay(hand_id, slot=slot)
        except Exception:
            _marks().delete(mark)  # not queued: the next lock queues it
            _release(slot)
            raise

    _after_commit(
        queue, f"queueing the analysis of practice hand {hand_id} failed; the lock queues it again"
    )


def _release(slot: str | None) -> None:
    from .services.analysis import analysis_budget_release

    analysis_budget_release(slot=slot)


def decision_cost_later(*, hand_ids: list[int]) -> None:
    """Once the current transaction commits, queue ``games.decision_cost_hands``
    for the hands (revealed hands of players): the estimate of what each
    setting gave up against the best, over ``DECISION_COST_SAMPLES``
    opponents, off the socket's path. As with the luck check, the broker is
    reached from the process's queueing thread (embedded, the estimates run at
    once, in the callback); a broker that is down is logged, and the beat's
    ``games.decision_costs_sweep`` estimates the hands later."""
    if hand_ids:
        _hands_after_commit(
            decision_cost_hands, list(hand_ids),
            "queueing the decision cost of hands {hand_ids} failed; the beat sweep estimates them",
        )


EXACT_QUEUE_SECONDS = 30  # while one is queued, another request for the class queues nothing


def exact_mark(*, cards: str, mode: str, side: str) -> str:
    """The cache key that says a class's analysis was queued a moment ago."""
    return f"exact-analyse:{mode}:{side}:{cards.replace(' ', '.')}"


def exact_queued(*, cards: str, mode: str, side: str) -> bool:
    """Whether the class's analysis was queued in the last
    ``EXACT_QUEUE_SECONDS`` (never embedded: there it runs at once)."""
    return not _eager() and _marks().get(exact_mark(cards=cards, mode=mode, side=side)) is not None


def exact_analyse_later(*, cards: str, mode: str, side: str, slot: str | None = None) -> None:
    """Once the current transaction commits (at once outside one), queue
    ``games.exact_analyse`` for a suit class's representative (with the asking
    player's analysis slot ``slot``), at most once every
    ``EXACT_QUEUE_SECONDS`` a class (the explorer asks every few seconds while
    it waits). Embedded, it runs at once, in the callback; a broker or cache
    that is down is logged (and the slot given back), and a later request
    queues again."""

    def queue() -> None:
        if _eager():
            exact_analyse.delay(cards, mode, side, slot=slot)
            return
        mark = exact_mark(cards=cards, mode=mode, side=side)
        if not _marks().add(mark, True, timeout=EXACT_QUEUE_SECONDS):
            _release(slot)  # another request queued it a moment ago
            return
        try:
            exact_analyse.delay(cards, mode, side, slot=slot)
        except Exception:
            _marks().delete(mark)  # not queued: the next request tries again
            _release(slot)
            raise

    _after_commit(
        queue, f"queueing the exact analysis of {mode} {side} {cards} failed; asked again later"
    )


def decision_costs_sweep_later() -> None:
    """Queue another ``games.decision_costs_sweep`` run (a run whose batch was
    full: more hands may wait), behind what the costs queue holds already. Not
    when eager (embedded: it would run inside this run); a broker that is
    down is logged, and the beat's next run goes on."""
    if not _eager():
        _after_commit(decision_costs_sweep.delay,
                      "queueing the next decision costs sweep failed; the beat's next run goes on")
