"""Fixtures for the games tests."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from accounts.limits import Limiter
from accounts.models import User
from games import invite_limits
from games.services import tables
from tests.games.support import assert_ledger_invariants


@pytest.fixture(autouse=True)
def ledger_invariants(request: pytest.FixtureRequest) -> Iterator[None]:
    """After every database test: the ledgers add up and settlements are unique."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None:
        yield
        return
    transactional = marker.kwargs.get("transaction", False)
    request.getfixturevalue("transactional_db" if transactional else "db")
    yield
    assert_ledger_invariants()


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_invite_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Invite-link counts of one test never reach another (and no cache flush,
    which would also wipe the channel layer on Redis)."""
    limiter = invite_limits.INVITES
    monkeypatch.setattr(
        invite_limits,
        "INVITES",
        Limiter(f"invite-test-{uuid.uuid4().hex}", dict(limiter.limits), limiter.window),
    )


@pytest.fixture
def make_user(django_user_model: type[User]) -> Callable[[str], User]:
    def make(name: str = "ada") -> User:
        return django_user_model.objects.create_user(username=name, password="a long pass phrase 1")

    return make


@pytest.fixture
def player(make_user: Callable[[str], User]) -> User:
    return make_user("ada")


@pytest.fixture
def friend(make_user: Callable[[str], User]) -> User:
    return make_user("grace")


@pytest.fixture
def rig(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Deal these decks, in order, then shuffle as usual."""
    shuffle = tables._new_deck

    def rig(*decks: tuple[str, ...]) -> None:
        queue = list(decks)
        monkeypatch.setattr(tables, "_new_deck", lambda: queue.pop(0) if queue else shuffle())

    return rig
