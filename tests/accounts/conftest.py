"""Fixtures for the accounts tests."""

from __future__ import annotations

import uuid

import pytest

from accounts import throttle
from tests.games import conftest as games_fixtures

# Invite-link counts too (test_abuse.py tries bad links): the games tests' fixture.
fresh_invite_throttle = games_fixtures.fresh_invite_throttle


@pytest.fixture(autouse=True)
def fresh_password_limit(monkeypatch: pytest.MonkeyPatch) -> throttle.Limiter:
    """Password-try counts of one test (or of an earlier run on a shared Redis)
    never reach another, and no cache flush is needed."""
    limiter = throttle.Limiter(
        f"password-test-{uuid.uuid4().hex}", dict(throttle.PASSWORDS.limits),
        throttle.PASSWORDS.window,
    )
    monkeypatch.setattr(throttle, "PASSWORDS", limiter)
    return limiter
