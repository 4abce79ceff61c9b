"""Limits on invite links, on the shared cache limiter of ``accounts.limits``.

Every invite link that does not seat anyone (unknown, expired, withdrawn,
used, or a full table) counts against the user and against the address; past
either limit every invite link is refused for the rest of the window, even a
good one, so tokens cannot be guessed (they have 256 bits anyway).
"""

from __future__ import annotations

from typing import Any

from accounts.limits import Limiter, client_address

from .engine.errors import InviteThrottled

LIMIT_PER_USER = 10
LIMIT_PER_ADDRESS = 30

INVITES = Limiter("invite", {"user": LIMIT_PER_USER, "ip": LIMIT_PER_ADDRESS})


def _pairs(request: Any) -> tuple[tuple[str, str], ...]:
    address = ("ip", client_address(request) or "unknown")
    user_id = getattr(getattr(request, "user", None), "pk", None)
    # A signed-out visitor counts by address only: every one of them has no pk.
    return (("user", str(user_id)), address) if user_id else (address,)


def check_invite(request: Any) -> None:
    """Raise ``InviteThrottled`` when this user or address has tried too many links."""
    wait = INVITES.minutes_left(*_pairs(request))
    if wait:
        raise InviteThrottled(
            f"Too many invite links tried. Try again in {wait} minute{'' if wait == 1 else 's'}."
        )


def invite_failed(request: Any) -> None:
    INVITES.record_failure(*_pairs(request))
