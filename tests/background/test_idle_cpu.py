"""The worker's decision costs on a thread of the idle scheduling class, and
its database work on its own thread (``games.idle_cpu``)."""

from __future__ import annotations

import os
import select
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from games import idle_cpu, services, tasks, upkeep
from games.models import Deal, Hand
from tests.support import STRONG, WEAK, house_front

linux_only = pytest.mark.skipif(not idle_cpu.supported(), reason="no SCHED_IDLE here")


@pytest.fixture
def enabled() -> Iterator[None]:
    idle_cpu.enable()
    yield
    idle_cpu.disable()


def test_it_runs_in_place_until_enabled() -> None:
    assert idle_cpu.run(threading.get_ident) == threading.get_ident()


@linux_only
def test_enabled_it_runs_on_an_idle_class_thread_and_leaves_the_caller_as_it_was(
    enabled: None,
) -> None:
    assert idle_cpu.run(os.sched_getscheduler, 0) == os.SCHED_IDLE
    assert idle_cpu.run(threading.get_ident) != threading.get_ident()
    assert os.sched_getscheduler(0) == os.SCHED_OTHER


@linux_only
def test_a_process_forked_after_enable_makes_its_own_idle_thread(enabled: None) -> None:
    # The worker enables it before its pool forks; a thread does not survive a fork.
    idle_cpu.run(int)  # the parent's thread exists now
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        try:
            os.write(write, str(idle_cpu.run(os.sched_getscheduler, 0)).encode())
        finally:
            os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], 20)
    if not ready:
        os.kill(child, signal.SIGKILL)
    answer = os.read(read, 16) if ready else b"no answer"
    os.waitpid(child, 0)
    assert answer == str(os.SCHED_IDLE).encode()


def test_the_worker_turns_it_on_as_it_starts(settings: Any) -> None:
    settings.WORKER_NICE = 0
    settings.WORKER_IDLE_CPU = True
    try:
        tasks._worker_nice()
        assert idle_cpu._enabled is idle_cpu.supported()
        idle_cpu.disable()
        settings.WORKER_IDLE_CPU = False
        tasks._worker_nice()
        assert idle_cpu._enabled is False
    finally:
        idle_cpu.disable()


@linux_only
@pytest.mark.django_db
def test_a_decision_cost_is_computed_on_the_idle_thread_and_written_on_the_workers(
    player: Any, play_solo: Callable[..., Deal], enabled: None, settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.DECISION_COST_SAMPLES = 200
    table = services.table_start(user=player, mode="solo")
    # The reveal's own queueing runs on commit, which this test never reaches.
    deal = play_solo(player, table, STRONG, WEAK, front=house_front(STRONG))
    revealed_hand = Hand.objects.get(deal=deal, seat_number=0)
    seen: list[tuple[int, int]] = []
    real = upkeep.decision_cost

    def computed(*args: Any, **kwargs: Any) -> Any:
        seen.append((os.sched_getscheduler(0), threading.get_ident()))
        return real(*args, **kwargs)

    monkeypatch.setattr(upkeep, "decision_cost", computed)
    assert upkeep.decision_cost_estimate(hand_id=revealed_hand.pk) == "sampled"
    [(policy, thread)] = seen
    assert policy == os.SCHED_IDLE
    assert thread != threading.get_ident()
    # Written in this test's transaction: on the calling thread's connection.
    revealed_hand.refresh_from_db()
    assert revealed_hand.cost_method == "sampled"
