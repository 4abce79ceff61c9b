"""Fixtures for the accounts tests."""

from __future__ import annotations

import uuid

import pytest

from accounts import limits
from tests.games import conftest as games_fixtures

# Invite-link counts too (test_abuse.py tries bad links): the games tests' fixture.
fresh_invite_limit = games_fixtures.fresh_invite_limit


@pytest.fixture(autouse=True)
def fresh_password_limit(monkeypatch: pytest.MonkeyPatch) -> limits.Limiter:
    """Password-try counts of one test (or of an earlier run on a shared Redis)
    never reach another, and no cache flush is needed."""
    limiter = limits.Limiter(
        f"password-test-{uuid.uuid4().hex}", dict(limits.PASSWORDS.limits),
        limits.PASSWORDS.window,
    )
    monkeypatch.setattr(limits, "PASSWORDS", limiter)
    return limiter
