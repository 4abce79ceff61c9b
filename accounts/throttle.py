"""Throttling in Django's cache: failures are counted per key (an account, an
address, a user) over a fixed window; past the limit the action is refused
with a sentence saying when to try again (even when it would succeed).

``Limiter`` is the shared helper: sign-in uses it per account and per address,
sign-up per address (below); other apps (the invite links in ``games``) make their own with their
own scope and limits.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Iterable

from django.core.cache import cache

WINDOW_SECONDS = 15 * 60
LIMIT_PER_ACCOUNT = 5
LIMIT_PER_ADDRESS = 20


class Limiter:
    """Counts failures under ``scope`` per (kind, value) with a limit per kind."""

    def __init__(self, scope: str, limits: dict[str, int], window: int = WINDOW_SECONDS) -> None:
        self.scope = scope
        self.limits = limits
        self.window = window

    def key(self, kind: str, value: str) -> str:
        digest = hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]
        return f"{self.scope}:{kind}:{digest}"

    def _keys(self, pairs: Iterable[tuple[str, str]]) -> list[tuple[str, int]]:
        return [(self.key(kind, value), self.limits[kind]) for kind, value in pairs if value]

    def minutes_left(self, *pairs: tuple[str, str]) -> int:
        """0 when the action may be tried; otherwise the whole minutes to wait."""
        now = time.time()
        wait = 0.0
        for key, limit in self._keys(pairs):
            if (cache.get(f"{key}:n") or 0) >= limit:
                until = cache.get(f"{key}:until") or now + self.window
                wait = max(wait, until - now)
        return max(1, math.ceil(wait / 60)) if wait > 0 else 0

    def record_failure(self, *pairs: tuple[str, str]) -> None:
        now = time.time()
        for key, _limit in self._keys(pairs):
            cache.add(f"{key}:until", now + self.window, self.window)
            cache.add(f"{key}:n", 0, self.window)
            try:
                cache.incr(f"{key}:n")
            except ValueError:  # expired between add and incr
                cache.set(f"{key}:n", 1, self.window)

    def clear(self, kind: str, value: str) -> None:
        key = self.key(kind, value)
        cache.delete_many([f"{key}:n", f"{key}:until"])


SIGN_IN = Limiter("signin", {"ip": LIMIT_PER_ADDRESS, "user": LIMIT_PER_ACCOUNT})

# Sign-up: every submitted form counts against the address (accounts made and
# forms refused alike), so one address cannot mint accounts or probe names in bulk.
SIGN_UPS_PER_ADDRESS = 10
SIGN_UP = Limiter("signup", {"ip": SIGN_UPS_PER_ADDRESS})


def _key(kind: str, value: str) -> str:
    return SIGN_IN.key(kind, value)


def _pairs(username: str, address: str) -> list[tuple[str, str]]:
    return [("ip", address or "unknown"), ("user", username)]


def minutes_left(username: str, address: str) -> int:
    """0 when sign-in may be tried; otherwise the whole minutes to wait."""
    return SIGN_IN.minutes_left(*_pairs(username, address))


def record_failure(username: str, address: str) -> None:
    SIGN_IN.record_failure(*_pairs(username, address))


def clear_account(username: str) -> None:
    SIGN_IN.clear("user", username)
