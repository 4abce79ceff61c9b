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
from games.models import Deal, ExactAnalysisCache, Hand, PracticeTest
from games.services import analysis, costs, practice_test
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
    settings.WORKER_IDLE_CPU_SHARE, settings.WORKER_IDLE_CPU_BUSY = 0.2, 0.4
    try:
        tasks._worker_nice()
        assert idle_cpu._enabled is idle_cpu.supported()
        assert idle_cpu._pacer is not None
        assert (idle_cpu._pacer.share, idle_cpu._pacer.busy) == (0.2, 0.4)
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
    table = services.table_start(user=player, mode="solo")
    # The reveal's own queueing runs on commit, which this test never reaches.
    deal = play_solo(player, table, STRONG, WEAK, front=house_front(STRONG))
    revealed_hand = Hand.objects.get(deal=deal, seat_number=0)
    seen: list[tuple[int, int]] = []
    real = costs.exact

    def computed(*args: Any, **kwargs: Any) -> Any:
        seen.append((os.sched_getscheduler(0), threading.get_ident()))
        return real(*args, **kwargs)

    monkeypatch.setattr(costs, "exact", computed)
    assert upkeep.decision_cost_estimate(hand_id=revealed_hand.pk) == "exact"
    [(policy, thread)] = seen
    assert policy == os.SCHED_IDLE
    assert thread != threading.get_ident()
    # Written in this test's transaction: on the calling thread's connection.
    revealed_hand.refresh_from_db()
    assert revealed_hand.cost_method == "exact"


@linux_only
@pytest.mark.django_db
def test_a_practice_tests_analyses_are_computed_on_the_idle_thread_and_stored(
    player: Any, enabled: None, monkeypatch: pytest.MonkeyPatch,
) -> None:
    attempt = practice_test.practice_test_start(user=player, number=1, hands=2)
    for hand in attempt.test_hands.order_by("position"):
        practice_test.practice_test_lock(user=player, test_id=attempt.pk, position=hand.position,
                                         front=house_front(hand.cards))
    seen: list[tuple[int, int]] = []
    real = analysis.exact

    def computed(*args: Any, **kwargs: Any) -> Any:
        seen.append((os.sched_getscheduler(0), threading.get_ident()))
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis, "exact", computed)
    assert practice_test.practice_test_score(test_id=attempt.pk)
    assert len(seen) == 2
    assert all(policy == os.SCHED_IDLE and thread != threading.get_ident()
               for policy, thread in seen)
    assert ExactAnalysisCache.objects.count() == 2  # the next attempt at test 1 reads them
    assert PracticeTest.objects.get(pk=attempt.pk).status == "scored"


class Scripted:
    """A clock that each piece of work moves on by ``seconds``, the rests the
    pacer asks for, and what /proc/stat says: the other processes busy for
    ``others`` of the machine during each piece."""

    def __init__(self, others: float, seconds: float = 1.0) -> None:
        self.now, self.seconds, self.others = 100.0, seconds, others
        self.rests: list[float] = []
        self.reads = 0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.rests.append(seconds)
        self.now += seconds

    def machine(self) -> idle_cpu.Machine:
        # Two cores; at each piece's end the others have used their share of
        # it, and this process its whole length on one core.
        self.reads += 1
        pieces = self.reads // 2
        spent = pieces * self.seconds
        return idle_cpu.Machine(
            busy=spent * (2 * self.others + 1), total=spent * 2, own=spent
        )

    def work(self) -> str:
        self.now += self.seconds
        return "done"


@pytest.fixture
def paced(monkeypatch: pytest.MonkeyPatch) -> Callable[[float], Scripted]:
    def make(others: float) -> Scripted:
        script = Scripted(others)
        idle_cpu.enable(share=0.25, busy=0.25)
        pacer = idle_cpu.Pacer(share=0.25, busy=0.25, clock=script.clock, sleep=script.sleep)
        monkeypatch.setattr(idle_cpu, "_pacer", pacer)
        monkeypatch.setattr(idle_cpu, "machine_now", script.machine)
        return script

    yield make
    idle_cpu.disable()


@linux_only
def test_while_the_machine_is_busy_it_works_a_quarter_of_the_time(
    paced: Callable[[float], Scripted],
) -> None:
    script = paced(0.5)  # the web processes and PostgreSQL: half of each core
    assert [idle_cpu.run(script.work) for _ in range(3)] == ["done"] * 3
    # No rest before the first piece; three times each piece after it.
    assert script.rests == [3.0, 3.0]


@linux_only
def test_on_a_quiet_machine_it_never_rests(paced: Callable[[float], Scripted]) -> None:
    script = paced(0.05)
    for _ in range(3):
        idle_cpu.run(script.work)
    assert script.rests == []


@linux_only
def test_a_piece_that_fails_still_counts_and_the_error_reaches_the_caller(
    paced: Callable[[float], Scripted],
) -> None:
    script = paced(0.5)

    def fails() -> None:
        script.work()
        raise ValueError("not a hand")

    with pytest.raises(ValueError, match="not a hand"):
        idle_cpu.run(fails)
    idle_cpu.run(script.work)
    assert script.rests == [3.0]


def test_unpaced_by_default() -> None:
    idle_cpu.enable()
    try:
        assert idle_cpu._pacer is None
    finally:
        idle_cpu.disable()


def test_it_refuses_a_share_or_mark_out_of_range() -> None:
    for share, busy in ((0, 0.25), (1.5, 0.25), (0.25, -0.1), (0.25, 1.1)):
        with pytest.raises(ValueError, match="share is in"):
            idle_cpu.Pacer(share=share, busy=busy)


@pytest.mark.skipif(not idle_cpu.STAT.exists(), reason="no /proc/stat here")
def test_it_reads_the_machines_cpu_times() -> None:
    first = idle_cpu.machine_now()
    sum(range(200_000))
    second = idle_cpu.machine_now()
    assert first is not None
    assert second is not None
    assert 0 < first.busy <= first.total
    assert second.total >= first.total
    assert second.own >= first.own
