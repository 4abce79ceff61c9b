"""A worker's heavy engine work, run on a thread of the idle scheduling class.

A worker shares its machine with the web processes. Lowered by
``WORKER_NICE`` it still takes a slice of a busy core, and a socket's thread
that wakes behind it waits for that slice to end. A thread of Linux's
``SCHED_IDLE`` class runs only on a core that nothing else wants, and any
other thread that wakes takes the core from it at once (docs/benchmarks.md,
ninth round).

Only pure engine computation runs there (the decision cost's 10,000
opponents, about 80 ms a hand). The worker's database work stays on its own
thread, at its own priority. A thread that may not run for as long as the
machine is busy must never hold a table's lock or a transaction: making the
whole worker ``SCHED_IDLE`` would allow that.

Off (``run`` calls the function in place) until ``enable`` is called, which
the worker does as it starts (``WORKER_IDLE_CPU``). The web processes never
enable it, so in eager mode (where a reveal's own callback computes the
cost) it runs in place: a socket's answer must not wait for an idle core.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")

_enabled = False


def supported() -> bool:
    """Whether this system has the idle class (Linux does)."""
    return hasattr(os, "SCHED_IDLE") and hasattr(os, "sched_setscheduler")


def enable() -> None:
    """Run ``run``'s work on the idle thread from now on, in this process and
    in the processes it forks (each makes its own thread)."""
    global _enabled
    _enabled = supported()


def disable() -> None:
    global _enabled
    _enabled = False


def run(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)`` on this process's idle thread once
    ``enable`` was called, else in place. ``func`` must not touch the
    database (the thread would open a connection of its own)."""
    if not _enabled:
        return func(*args, **kwargs)
    return _thread(os.getpid()).submit(func, *args, **kwargs).result()


@cache
def _thread(pid: int) -> ThreadPoolExecutor:
    # One per process: a pool process forked from the worker starts its own.
    return ThreadPoolExecutor(1, thread_name_prefix="idle-cpu", initializer=_go_idle)


def _go_idle() -> None:
    # pid 0: the calling thread only (Linux's policies are per thread).
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
