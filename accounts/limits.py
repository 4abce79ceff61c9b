"""Attempt limits in Django's cache: failures are counted per key (an account,
an address, a device, a user) over a fixed window; past the limit the action
is refused with a sentence saying when to try again (even when it would
succeed).

``Limiter`` is the shared helper. Every password check on the site (sign-in,
the admin's sign-in, both password-change forms) goes through ``PASSWORDS``
with the rules below; sign-up counts per address in ``SIGN_UP``; other apps
(the invite links in ``games``) make their own with their own scope and limits.

When the cache does not answer, a limiter raises ``LimiterUnavailable``
instead of letting the attempt through uncounted (``accounts.middleware``
turns it into a 503 page that says to try again).
"""

from __future__ import annotations

import hashlib
import math
import secrets
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError

WINDOW_SECONDS = 15 * 60

# The cache is Redis when REDIS_URL is set; a socket error can surface bare.
CACHE_ERRORS = (RedisError, OSError)


class LimiterUnavailable(Exception):
    """The cache holding the counts did not answer, so the attempt is refused."""


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:32]


class Limiter:
    """Counts failures under ``scope`` per (kind, value) with a limit per kind."""

    def __init__(self, scope: str, limits: dict[str, int], window: int = WINDOW_SECONDS) -> None:
        self.scope = scope
        self.limits = limits
        self.window = window

    def key(self, kind: str, value: str) -> str:
        return f"{self.scope}:{kind}:{_digest(value.strip().lower())}"

    def _keys(self, pairs: Iterable[tuple[str, str]]) -> list[tuple[str, int]]:
        return [(self.key(kind, value), self.limits[kind]) for kind, value in pairs if value]

    @contextmanager
    def _cache_answers(self) -> Iterator[None]:
        try:
            yield
        except CACHE_ERRORS as error:
            raise LimiterUnavailable(f"{self.scope} limits: {error}") from error

    def minutes_left(self, *pairs: tuple[str, str]) -> int:
        """0 when the action may be tried; otherwise the whole minutes to wait."""
        now = time.time()
        wait = 0.0
        with self._cache_answers():
            for key, limit in self._keys(pairs):
                if (cache.get(f"{key}:n") or 0) >= limit:
                    until = cache.get(f"{key}:until") or now + self.window
                    wait = max(wait, until - now)
        return max(1, math.ceil(wait / 60)) if wait > 0 else 0

    def record_failure(self, *pairs: tuple[str, str]) -> None:
        now = time.time()
        with self._cache_answers():
            for key, _limit in self._keys(pairs):
                cache.add(f"{key}:until", now + self.window, self.window)
                cache.add(f"{key}:n", 0, self.window)
                try:
                    cache.incr(f"{key}:n")
                except ValueError:  # expired between add and incr
                    cache.set(f"{key}:n", 1, self.window)

    def clear(self, *pairs: tuple[str, str]) -> None:
        with self._cache_answers():
            for key, _limit in self._keys(pairs):
                cache.delete_many([f"{key}:n", f"{key}:until"])


def client_address(request: Any) -> str:
    # REMOTE_ADDR only: a forwarded header is the client's to forge.
    return str(getattr(request, "META", {}).get("REMOTE_ADDR", "")) if request else ""


# --- Password checks ---------------------------------------------------------
#
# A client is *trusted* for an account when it shows a device cookie that a
# right password for that very account issued (OWASP, "Slow down online
# guessing attacks with device cookies"). A trusted client is judged by its own
# count only, so no one elsewhere can lock the owner's device out. Untrusted
# clients are counted per account and address (one guesser is stopped fast),
# per account over all addresses together (many addresses are stopped too,
# but only untrusted clients are refused), and per address over all accounts
# (one address trying many accounts).
LIMIT_PER_ACCOUNT_AND_ADDRESS = 5
LIMIT_PER_ACCOUNT = 20
LIMIT_PER_ADDRESS = 20
LIMIT_PER_DEVICE = 5
PASSWORDS = Limiter(
    "password",
    {
        "pair": LIMIT_PER_ACCOUNT_AND_ADDRESS,
        "account": LIMIT_PER_ACCOUNT,
        "ip": LIMIT_PER_ADDRESS,
        "device": LIMIT_PER_DEVICE,
    },
)

DEVICE_COOKIE = "paigow_device"
DEVICE_SALT = "accounts.trusted-device"
DEVICE_DAYS = 90
# Set on the request by a right password; accounts.middleware writes the cookie.
DEVICE_ATTRIBUTE = "trusted_device_cookie"


def trusted_device(request: Any, username: str) -> str:
    """The device id of a valid device cookie issued to exactly ``username``, else ""."""
    if request is None or not hasattr(request, "get_signed_cookie"):
        return ""
    value = request.get_signed_cookie(
        DEVICE_COOKIE, default="", salt=DEVICE_SALT, max_age=DEVICE_DAYS * 86400
    )
    # Exact, not case-folded: a cookie for "Ann" must not vouch for guesses at "ann".
    account, _, device = str(value).partition(":")
    return device if device and account == _digest(username) else ""


def _client(request: Any, username: str) -> tuple[str, str]:
    """The count that belongs to this client alone: its device, else account+address."""
    device = trusted_device(request, username)
    if device:
        return ("device", device)
    return ("pair", f"{username}\n{client_address(request) or 'unknown'}")


def _counts(request: Any, username: str) -> list[tuple[str, str]]:
    client = _client(request, username)
    if client[0] == "device":
        return [client]
    return [client, ("account", username), ("ip", client_address(request) or "unknown")]


def password_wait(request: Any, username: str) -> int:
    """0 when a password for ``username`` may be checked; else the minutes to wait."""
    return PASSWORDS.minutes_left(*_counts(request, username))


def password_failed(request: Any, username: str) -> None:
    PASSWORDS.record_failure(*_counts(request, username))


def password_right(request: Any, username: str) -> None:
    """Clear this client's own count and trust its device for ``username``.

    The per-account and per-address counts stay: a guesser who also owns an
    account must not wipe them by signing in to it."""
    PASSWORDS.clear(_client(request, username))
    if request is not None:
        setattr(request, DEVICE_ATTRIBUTE, f"{_digest(username)}:{secrets.token_hex(16)}")


def set_device_cookie(request: Any, response: Any) -> None:
    value = getattr(request, DEVICE_ATTRIBUTE, "")
    if value:
        response.set_signed_cookie(
            DEVICE_COOKIE, value, salt=DEVICE_SALT, max_age=DEVICE_DAYS * 86400,
            secure=settings.SESSION_COOKIE_SECURE, httponly=True, samesite="Lax",
        )


# Sign-up: every submitted form counts against the address (accounts made and
# forms refused alike), so one address cannot mint accounts or probe names in bulk.
SIGN_UPS_PER_ADDRESS = settings.SIGN_UPS_PER_ADDRESS
SIGN_UP = Limiter("signup", {"ip": SIGN_UPS_PER_ADDRESS})

# E-mail the site sends on a request: every password-reset request counts per
# address and per e-mail address asked for (sent or not, so the count says
# nothing about which addresses are known), and every verification link per
# player, so no one can use the site to flood a mailbox.
RESET_REQUESTS_PER_ADDRESS = 10
RESET_REQUESTS_PER_EMAIL = 3
PASSWORD_RESETS = Limiter(
    "reset", {"ip": RESET_REQUESTS_PER_ADDRESS, "email": RESET_REQUESTS_PER_EMAIL}
)
VERIFICATION_MAILS_PER_USER = 5
VERIFICATION_MAILS = Limiter("verify-mail", {"user": VERIFICATION_MAILS_PER_USER})


def password_reset(request: Any, username: str) -> None:
    """A password set through a reset link (the owner's mailbox vouches):
    clear the account's count and this client's, so the owner can sign in
    with it at once. The count per address stays (it may be a guesser's)."""
    PASSWORDS.clear(("account", username), _client(request, username))
