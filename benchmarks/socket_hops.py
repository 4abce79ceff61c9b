"""What a table socket's two per-message hops cost in CPU: to a database
thread and back, and a publish through Redis back to a subscriber.

    .venv/bin/python benchmarks/socket_hops.py [--calls 20000 --callers 1 50 --rounds 3]
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python benchmarks/socket_hops.py --redis

**Database hop** (always): ``--calls`` calls of a function that does nothing,
awaited by ``--callers`` coroutines at once on uvloop, as sockets await
their database calls (``games.realtime.db_threads.db``), against the event
loop's ``run_in_executor`` on a ``ThreadPoolExecutor`` with the shield the
socket used before the seventeenth round. With one caller every call wakes
an idle thread and then the loop (a quiet server); with fifty the threads
stay busy (a loaded one). Printed: the process's CPU a call, the median of
``--rounds``.

**Redis** (``--redis``): ``--calls`` PUBLISHes of a 1,500-byte frame (a
view's size) to a channel this process subscribes to, at most 32 at once
(``paigow_site.pubsub.PUBLISHES_AT_ONCE``), each read back by the
subscriber, with redis-py's Python parser and with hiredis's: the CPU of a
publish and its push, the median of ``--rounds``.

Run on a quiet machine; the numbers are for comparing the two ways in one
process, not absolute.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")

PAYLOAD = b"x" * 1500


def nothing() -> None:
    return None


def executor_hop(pool: ThreadPoolExecutor) -> Callable[[], Awaitable[None]]:
    """The hop before the seventeenth round: ``run_in_executor`` and a shield."""

    async def run() -> None:
        context = contextvars.copy_context()
        done = asyncio.get_running_loop().run_in_executor(pool, partial(context.run, nothing))
        await asyncio.shield(done)

    return run


async def cpu_a_call(hop: Callable[[], Awaitable[None]], calls: int, callers: int) -> float:
    async def caller(n: int) -> None:
        for _ in range(n):
            await hop()

    started = time.process_time()
    await asyncio.gather(*(caller(calls // callers) for _ in range(callers)))
    return (time.process_time() - started) / calls * 1e6


def database_hops(args: argparse.Namespace) -> None:
    import django
    import uvloop

    django.setup()
    from django.conf import settings

    from games.realtime import db_threads

    threads = settings.SOCKET_DB_THREADS
    pool = ThreadPoolExecutor(threads)
    ours = db_threads.db(nothing)
    print(f"database hop, {threads} threads, CPU µs a call (median of {args.rounds}):")
    for callers in args.callers:
        results: dict[str, list[float]] = {"run_in_executor": [], "db_threads.db": []}
        for _ in range(args.rounds):
            for name, hop in (("run_in_executor", executor_hop(pool)), ("db_threads.db", ours)):
                results[name].append(uvloop.run(cpu_a_call(hop, args.calls, callers)))
        row = ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in results.items())
        print(f"  {callers:>3} callers: {row}")
    pool.shutdown()
    db_threads.stop_db_threads()


async def publish_round(url: str, parser: Any, calls: int) -> float:
    from redis import asyncio as aioredis

    client = aioredis.Redis.from_url(url, protocol=3, parser_class=parser)
    subscriber = client.pubsub()
    channel = f"socket-hops-{os.getpid()}"
    await subscriber.subscribe(channel)
    await subscriber.get_message(timeout=1.0)  # the subscription's confirmation
    at_once = asyncio.Semaphore(32)
    received = 0

    async def receive() -> None:
        nonlocal received
        while received < calls:
            if await subscriber.get_message(timeout=1.0, ignore_subscribe_messages=True):
                received += 1

    async def publish() -> None:
        async with at_once:
            await client.publish(channel, PAYLOAD)

    started = time.process_time()
    reading = asyncio.create_task(receive())
    await asyncio.gather(*(publish() for _ in range(calls)))
    await reading
    spent = (time.process_time() - started) / calls * 1e6
    await subscriber.aclose()
    await client.aclose()
    return spent


def redis_hops(args: argparse.Namespace) -> None:
    import uvloop
    from redis._parsers import _AsyncHiredisParser, _AsyncRESP3Parser
    from redis.utils import HIREDIS_AVAILABLE

    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/9"
    parsers = {"Python parser": _AsyncRESP3Parser}
    if HIREDIS_AVAILABLE:
        parsers["hiredis"] = _AsyncHiredisParser
    results: dict[str, list[float]] = {name: [] for name in parsers}
    for _ in range(args.rounds):
        for name, parser in parsers.items():
            results[name].append(uvloop.run(publish_round(url, parser, args.calls)))
    row = ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in results.items())
    print(f"Redis publish and push, CPU µs each (median of {args.rounds}): {row}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--callers", type=int, nargs="+", default=[1, 50])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--redis", action="store_true", help="time Redis's publish and push too")
    args = parser.parse_args()
    database_hops(args)
    if args.redis:
        redis_hops(args)


if __name__ == "__main__":
    main()
