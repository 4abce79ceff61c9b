"""A worker's heavy engine work, run on a thread of the idle scheduling class,
and paced while the machine's other work keeps it busy.

A worker shares its machine with the web processes. Lowered by
``WORKER_NICE`` it still takes a slice of a busy core, and a socket's thread
that wakes behind it waits for that slice to end. A thread of Linux's
``SCHED_IDLE`` class runs only on a core that nothing else wants, and any
other thread that wakes takes the core from it at once (docs/benchmarks.md,
ninth round).

That is not enough on its own. With a backlog of decision costs the idle
thread takes every idle moment, and the sockets' answers on the same machine
came about twice as slowly (300 tables: median lock-to-reveal 34–51 ms
against 18–23 with the costs stopped; docs/benchmarks.md, fifteenth round).
So while the rest of the machine is busy (``busy``: its other work took at
least that share of every core during the last piece of work), the thread
rests after each piece, so that it works at most ``share`` of the time. On a
quiet machine it works without rest.

Only pure engine computation runs there (the decision cost's 10,000
opponents, about 80 ms a hand). The worker's database work stays on its own
thread, at its own priority. A thread that may not run for as long as the
machine is busy must never hold a table's lock or a transaction: making the
whole worker ``SCHED_IDLE`` would allow that. The rest is taken before the
next piece, outside any transaction, so a result is recorded at once.

Off (``run`` calls the function in place) until ``enable`` is called, which
the worker does as it starts (``WORKER_IDLE_CPU``). The web processes never
enable it, so in eager mode (where a reveal's own callback computes the
cost) it runs in place: a socket's answer must not wait for an idle core.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")

STAT = Path("/proc/stat")
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Machine(NamedTuple):
    """CPU seconds: the machine's busy time over all cores, all time over
    all cores, and this process's own (every thread's)."""

    busy: float
    total: float
    own: float


def machine_now() -> Machine | None:
    """The machine's CPU times from /proc/stat, or None where there is none."""
    try:
        with STAT.open(encoding="ascii") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest time is in user)
    idle = sum(fields[3:5])
    total = sum(fields[:8])
    return Machine((total - idle) / TICKS, total / TICKS, time.process_time())


class Pacer:
    """When the next piece of idle-thread work may start.

    After a piece that took ``elapsed`` seconds while the machine's other
    work kept at least ``busy`` of it occupied, the next one waits
    ``elapsed × (1/share − 1)``: the work then runs at most ``share`` of the
    time. After a piece on a quieter machine, the next starts at once.

    >>> clock = [1.0]
    >>> pacer = Pacer(share=0.25, busy=0.3, clock=lambda: clock[0])
    >>> # 1 s of work; the others kept half the machine busy: 3 s of rest
    >>> pacer.done(started=0.0, before=Machine(0, 0, 0), after=Machine(1.5, 2, 0.5))
    >>> pacer.wait_seconds()
    3.0
    >>> # 1 s of work on a quiet machine (the others 5%): none
    >>> clock[0] = 5.0
    >>> pacer.done(started=4.0, before=Machine(0, 0, 0), after=Machine(0.6, 2, 0.5))
    >>> pacer.wait_seconds()
    0.0
    """

    def __init__(
        self,
        *,
        share: float,
        busy: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not 0 < share <= 1 or not 0 <= busy <= 1:
            raise ValueError("The idle thread's share is in (0, 1], the busy mark in [0, 1].")
        self.share, self.busy, self.clock, self.sleep = share, busy, clock, sleep
        self.next_at = 0.0
        self.lock = threading.Lock()

    def wait_seconds(self) -> float:
        """How long the next piece must wait from now."""
        with self.lock:
            return max(0.0, self.next_at - self.clock())

    def rest(self) -> None:
        """Wait until the next piece may start."""
        wait = self.wait_seconds()
        if wait > 0:
            self.sleep(wait)

    def done(self, *, started: float, before: Machine | None, after: Machine | None) -> None:
        """A piece that began at ``started`` (the clock's time) has ended."""
        now = self.clock()
        rest = 0.0
        if self.share < 1 and self._busy(before, after):
            rest = (now - started) * (1 / self.share - 1)
        with self.lock:
            self.next_at = now + rest

    def _busy(self, before: Machine | None, after: Machine | None) -> bool:
        if before is None or after is None:
            return True  # nothing to tell a quiet machine by: rest as if busy
        total = after.total - before.total
        if total <= 0:
            return False
        others = (after.busy - before.busy) - (after.own - before.own)
        return others / total >= self.busy


_enabled = False
_pacer: Pacer | None = None


def supported() -> bool:
    """Whether this system has the idle class (Linux does)."""
    return hasattr(os, "SCHED_IDLE") and hasattr(os, "sched_setscheduler")


def enable(*, share: float = 1.0, busy: float = 1.0) -> None:
    """Run ``run``'s work on the idle thread from now on, in this process and
    in the processes it forks (each makes its own thread), paced by
    ``share`` and ``busy`` (``Pacer``; 1 and 1: never)."""
    global _enabled, _pacer
    _enabled = supported()
    _pacer = Pacer(share=share, busy=busy) if share < 1 else None


def disable() -> None:
    global _enabled, _pacer
    _enabled, _pacer = False, None


def run(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)`` on this process's idle thread once
    ``enable`` was called (after the pacer's rest, if any), else in place.
    ``func`` must not touch the database (the thread would open a connection
    of its own)."""
    if not _enabled:
        return func(*args, **kwargs)
    pacer = _pacer
    if pacer is None:
        return _thread(os.getpid()).submit(func, *args, **kwargs).result()
    pacer.rest()
    started, before = pacer.clock(), machine_now()
    try:
        return _thread(os.getpid()).submit(func, *args, **kwargs).result()
    finally:
        pacer.done(started=started, before=before, after=machine_now())


@cache
def _thread(pid: int) -> ThreadPoolExecutor:
    # One per process: a pool process forked from the worker starts its own.
    return ThreadPoolExecutor(1, thread_name_prefix="idle-cpu", initializer=_go_idle)


def _go_idle() -> None:
    # pid 0: the calling thread only (Linux's policies are per thread).
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
