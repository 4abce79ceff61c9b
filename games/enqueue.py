"""Queueing background tasks by name once the current transaction commits.

The services call these functions; the tasks (``games.tasks``) call the
services. This module imports nothing from ``games``: a task is named by its
Celery name (``current_app.tasks[name]``), so the arrows run one way and the
names, the routes (``CELERY_TASK_ROUTES``) and the messages already in Redis
stay what they were (``send``). Embedded (``task_always_eager``), a task runs at once,
in the commit's callback.

With a broker, nothing is sent from the caller's thread: the messages go from
the process's one queueing thread, so a socket's answer never waits for the
broker or the cache (on-commit hooks run before the socket can answer; under
load they took up to 0.4 s there, docs/benchmarks.md). A broker or cache that
is down is logged, never raised into the caller; the beat's sweeps, or the
next request, queue the work again.

One batching mechanism (``_Batches``): the luck checks, the decision costs and
the report refreshes a process asks for within a moment (``TASK_BATCH_SECONDS``;
the refreshes, due a window later anyway, ``REPORT_REFRESH_BATCH_SECONDS``)
go as one message a task. (Publishing cost the socket processes about a
tenth of their CPU under load when each hand had messages of its own.)
"""

from __future__ import annotations

import atexit
import functools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.cache import BaseCache, caches
from django.db import transaction

log = logging.getLogger(__name__)

# The tasks' names (games.tasks): a queued message carries its task's name,
# so these never change.
REPORT_REFRESH = "games.report_refresh"
REPORT_REFRESH_USERS = "games.report_refresh_users"
LUCK_VERIFY_HANDS = "games.luck_verify_hands"
DECISION_COST_HANDS = "games.decision_cost_hands"
DECISION_COSTS_SWEEP = "games.decision_costs_sweep"
PRACTICE_ANALYSE = "games.practice_analyse"
EXACT_ANALYSE = "games.exact_analyse"
PRACTICE_COST_HANDS = "games.practice_cost_hands"
PRACTICE_TEST_SCORE = "games.practice_test_score"

EXACT_QUEUE_SECONDS = 30  # while one is queued, another request for it queues nothing


def send(name: str, *args: Any, countdown: float | None = None, **kwargs: Any) -> None:
    """Queue the task ``name`` now (run it at once when eager), routed by the
    settings like any call of it. Found by name in the app's registry
    (``games.apps`` registers the tasks as every process starts)."""
    task = current_app.tasks[name]
    if countdown is None:
        task.delay(*args, **kwargs)
    else:
        task.apply_async(args, countdown=countdown, **({"kwargs": kwargs} if kwargs else {}))


def _eager() -> bool:
    return bool(current_app.conf.task_always_eager)


@functools.cache
def shared_cache() -> BaseCache:
    """The default cache, one client for the whole process, for the queueing
    marks and the services' counters (the analysis budget).
    (``django.core.cache.cache`` keeps a client per context, and each table
    socket's calls run in a context of their own: with Redis, every socket
    would open connections of its own.)"""
    return caches.create_connection("default")


@functools.cache
def _queueing() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(1, thread_name_prefix="task-queue")


def _logged(queue: Callable[[], None], failed: str) -> None:
    try:
        queue()
    except Exception:
        log.exception(failed)


def _after_commit(queue: Callable[[], None], failed: str) -> None:
    """Run ``queue`` once the current transaction commits (not at all if it
    rolls back): embedded in the callback itself; otherwise on the queueing
    thread, a failure logged as ``failed``."""
    if _eager():
        transaction.on_commit(queue, robust=True)
        return
    transaction.on_commit(lambda: _queueing().submit(_logged, queue, failed), robust=True)


# --- batches ---------------------------------------------------------------------


@dataclass(frozen=True)
class Batched:
    """A task sent once for the ids a process handed it within ``seconds()``
    (read when the batch starts, so a test's settings apply): ``publish``
    sends the ids; ``failed`` is logged, ``{ids}`` filled in, if it raises."""

    name: str
    seconds: Callable[[], float]
    publish: Callable[[list[int]], None]
    failed: str


class _Batches:
    """Ids waiting for the queueing thread, by task. The first id of a task
    starts a timer; when it ends the queueing thread sends that task once
    for all its ids."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting: dict[str, tuple[Batched, list[int]]] = {}

    def add(self, batched: Batched, ids: list[int]) -> None:
        with self.lock:
            first = batched.name not in self.waiting
            self.waiting.setdefault(batched.name, (batched, []))[1].extend(ids)
        if first:
            timer = threading.Timer(
                batched.seconds(), lambda: _queueing().submit(self.publish, batched.name)
            )
            timer.daemon = True
            timer.start()

    def publish(self, name: str | None = None) -> None:
        """Send the batch of task ``name`` (every batch when None)."""
        with self.lock:
            names = list(self.waiting) if name is None else [name]
            due = [self.waiting.pop(n) for n in names if n in self.waiting]
        for batched, ids in due:
            _logged(functools.partial(batched.publish, ids), batched.failed.format(ids=ids))


_batches = _Batches()
# A process that exits (a deploy, a management command) sends what its
# batches still hold rather than lose it with the timers' daemon threads.
atexit.register(_batches.publish)


def _batched_after_commit(batched: Batched, ids: list[int]) -> None:
    """Once the current transaction commits, hand ``ids`` to the batch of
    ``batched`` (embedded: publish them at once, in the callback)."""
    if _eager():
        transaction.on_commit(lambda: batched.publish(ids), robust=True)
        return
    transaction.on_commit(lambda: _batches.add(batched, ids), robust=True)


def wait() -> None:
    """Wait until everything handed to the queueing thread is sent (the
    batches still waiting for their timers are sent now)."""
    _queueing().submit(_batches.publish).result()


# --- the report refresh ------------------------------------------------------------


def _refresh_mark(user_id: int) -> str:
    return f"report-refresh:{user_id}"


def _refreshes_publish(user_ids: list[int]) -> None:
    """Mark each player (the cache's ``report-refresh:<id>``, for the window)
    and queue one ``games.report_refresh_users`` for those marked now, due a
    window and a second after the marks: every reveal the marks hold back has
    committed by then."""
    window = settings.REPORT_REFRESH_SECONDS
    marks = shared_cache()
    due = [u for u in sorted(set(user_ids)) if marks.add(_refresh_mark(u), True, timeout=window)]
    if due:
        send(REPORT_REFRESH_USERS, due, countdown=window + 1)


_REFRESHES = Batched(
    REPORT_REFRESH_USERS,
    lambda: settings.REPORT_REFRESH_BATCH_SECONDS,
    _refreshes_publish,
    "queueing a report refresh of players {ids} failed; the report sums the hands meanwhile",
)


def report_refresh_later(*, user_ids: list[int]) -> None:
    """After the current transaction commits, queue a refresh of each player's
    aggregates, at most one a ``REPORT_REFRESH_SECONDS`` window.

    A refresh rebuilds all of a player's buckets, and a player can reveal a
    deal every few seconds: one rebuild a window, run just after the window
    ends, covers every reveal in it. Until then the report sums the hands
    (``reports.skill_report``), so it is never behind, only slower to read.
    With a worker, the players a process hands over within
    ``REPORT_REFRESH_BATCH_SECONDS`` are queued together (``_Batches``)."""
    window = settings.REPORT_REFRESH_SECONDS
    if window and not _eager():
        _batched_after_commit(_REFRESHES, list(user_ids))
        return

    def queue() -> None:  # the refresh runs in this process, or at once
        for user_id in user_ids:
            if not window:
                send(REPORT_REFRESH, user_id)
            elif shared_cache().add(_refresh_mark(user_id), True, timeout=window):
                send(REPORT_REFRESH, user_id, countdown=window + 1)

    transaction.on_commit(queue, robust=True)


# --- luck checks and decision costs ------------------------------------------------


def _hands(name: str, failed: str) -> Batched:
    return Batched(
        name, lambda: settings.TASK_BATCH_SECONDS, lambda ids: send(name, ids), failed
    )


_LUCK_CHECKS = _hands(
    LUCK_VERIFY_HANDS,
    "queueing the luck check of hands {ids} failed; the beat audit checks them later",
)
_DECISION_COSTS = _hands(
    DECISION_COST_HANDS,
    "queueing the decision cost of hands {ids} failed; the beat sweep estimates them",
)


_PRACTICE_COSTS = _hands(
    PRACTICE_COST_HANDS,
    "queueing the exact cost of practice hands {ids} failed; the beat sweep makes it",
)


def luck_verify_later(*, hand_id: int) -> None:
    """Once the current transaction commits, queue ``games.luck_verify_hands``
    for the hand (not at all if it rolls back), batched; a broker that is
    down is logged, and the beat's sweep and audit check the estimate later."""
    _batched_after_commit(_LUCK_CHECKS, [hand_id])


def decision_cost_later(*, hand_ids: list[int]) -> None:
    """Once the current transaction commits, queue ``games.decision_cost_hands``
    for the hands (revealed hands of players), batched, off the socket's path;
    a broker that is down is logged, and the beat's
    ``games.decision_costs_sweep`` costs the hands later."""
    if hand_ids:
        _batched_after_commit(_DECISION_COSTS, list(hand_ids))


def practice_cost_later(*, hand_id: int) -> None:
    """Once a practice hand's lock commits, queue ``games.practice_cost_hands``
    for it, batched: its figures made exact on the costs queue, off the
    lock's path; a broker that is down is logged, and the beat's
    ``games.practice_costs_sweep`` makes them exact later."""
    _batched_after_commit(_PRACTICE_COSTS, [hand_id])


def practice_test_score_later(*, test_id: int) -> None:
    """Once a 100-hand test attempt's last lock commits, queue its scoring
    (``games.practice_test_score``, the costs queue); a broker that is down
    is logged, and the result page queues it again after a while
    (``services.practice_test.practice_test_score_again``)."""
    _after_commit(functools.partial(send, PRACTICE_TEST_SCORE, test_id),
                  f"queueing the scoring of practice test {test_id} failed; asked again later")


def decision_costs_sweep_later() -> None:
    """Queue another ``games.decision_costs_sweep`` run (a run whose batch was
    full: more hands may wait), behind what the costs queue holds already. Not
    when eager (embedded: it would run inside this run); a broker that is
    down is logged, and the beat's next run goes on."""
    if not _eager():
        _after_commit(functools.partial(send, DECISION_COSTS_SWEEP),
                      "queueing the next decision costs sweep failed; the beat's next run goes on")


# --- the analyses players ask for --------------------------------------------------


def _once(mark: str, name: str, args: tuple[Any, ...], slot: str | None, failed: str) -> None:
    """Once the current transaction commits, queue ``name`` with ``args`` and
    the asking player's analysis slot ``slot`` (a key of ``shared_cache``
    that the task deletes when done, ``services.analysis``), at most once
    every ``EXACT_QUEUE_SECONDS`` a ``mark``. Not queued (a moment ago, or the
    broker is down), the slot is given back here; embedded, it runs at once."""

    def release() -> None:
        if slot:
            shared_cache().delete(slot)

    def queue() -> None:
        if _eager():
            send(name, *args, slot=slot)
            return
        if not shared_cache().add(mark, True, timeout=EXACT_QUEUE_SECONDS):
            release()  # queued a moment ago
            return
        try:
            send(name, *args, slot=slot)
        except Exception:
            shared_cache().delete(mark)  # not queued: the next request tries again
            release()
            raise

    _after_commit(queue, failed)


def practice_analyse_later(*, hand_id: int, slot: str | None = None) -> None:
    """Once the deal of a practice hand commits, queue its analysis
    (``games.practice_analyse``, with the player's analysis slot ``slot``):
    a worker computes it while the player sets the hand. At most once every
    ``EXACT_QUEUE_SECONDS`` a hand (a lock that comes first asks again); a
    broker that is down is logged, and the page's lock queues it again."""
    _once(f"practice-analyse:{hand_id}", PRACTICE_ANALYSE, (hand_id,), slot,
          f"queueing the analysis of practice hand {hand_id} failed; the lock queues it again")


def exact_mark(*, cards: str, mode: str, side: str) -> str:
    """The cache key that says a class's analysis was queued a moment ago."""
    return f"exact-analyse:{mode}:{side}:{cards.replace(' ', '.')}"


def exact_queued(*, cards: str, mode: str, side: str) -> bool:
    """Whether the class's analysis was queued in the last
    ``EXACT_QUEUE_SECONDS`` (never embedded: there it runs at once)."""
    mark = exact_mark(cards=cards, mode=mode, side=side)
    return not _eager() and shared_cache().get(mark) is not None


def exact_analyse_later(*, cards: str, mode: str, side: str, slot: str | None = None) -> None:
    """Once the current transaction commits (at once outside one), queue
    ``games.exact_analyse`` for a suit class's representative (with the asking
    player's analysis slot ``slot``), at most once every
    ``EXACT_QUEUE_SECONDS`` a class (the explorer asks every few seconds while
    it waits); a broker or cache that is down is logged (and the slot given
    back), and a later request queues again."""
    _once(exact_mark(cards=cards, mode=mode, side=side), EXACT_ANALYSE, (cards, mode, side),
          slot, f"queueing the exact analysis of {mode} {side} {cards} failed; asked again later")
