"""Sign-in throttling in Django's cache: failures are counted per account and
per address over a fixed window; past the limit, sign-in is refused with a
sentence saying when to try again (even with the right password)."""

from __future__ import annotations

import hashlib
import math
import time

from django.core.cache import cache

WINDOW_SECONDS = 15 * 60
LIMIT_PER_ACCOUNT = 5
LIMIT_PER_ADDRESS = 20


def _key(kind: str, value: str) -> str:
    digest = hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]
    return f"signin:{kind}:{digest}"


def _keys(username: str, address: str) -> list[tuple[str, int]]:
    keys = [(_key("ip", address or "unknown"), LIMIT_PER_ADDRESS)]
    if username:
        keys.append((_key("user", username), LIMIT_PER_ACCOUNT))
    return keys


def minutes_left(username: str, address: str) -> int:
    """0 when sign-in may be tried; otherwise the whole minutes to wait."""
    now = time.time()
    wait = 0.0
    for key, limit in _keys(username, address):
        if (cache.get(f"{key}:n") or 0) >= limit:
            until = cache.get(f"{key}:until") or now + WINDOW_SECONDS
            wait = max(wait, until - now)
    return max(1, math.ceil(wait / 60)) if wait > 0 else 0


def record_failure(username: str, address: str) -> None:
    now = time.time()
    for key, _limit in _keys(username, address):
        cache.add(f"{key}:until", now + WINDOW_SECONDS, WINDOW_SECONDS)
        cache.add(f"{key}:n", 0, WINDOW_SECONDS)
        try:
            cache.incr(f"{key}:n")
        except ValueError:  # expired between add and incr
            cache.set(f"{key}:n", 1, WINDOW_SECONDS)


def clear_account(username: str) -> None:
    key = _key("user", username)
    cache.delete_many([f"{key}:n", f"{key}:until"])
