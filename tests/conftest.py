"""The suite's shared fixtures, in one place.

Every test gets fresh limiter counts (sign-ups, passwords, invite links),
fast password hashing and, after a database test, the ledger invariants.
Players, rigged decks and deals through the real services are here too.
Helpers that are not fixtures live in ``tests/support.py`` (tables, decks)
and ``tests/sockets.py`` (table sockets through the ASGI stack). Django is
imported inside the fixtures: this file loads before the settings do.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

REPO = Path(__file__).resolve().parent.parent

# No per-example deadline: timings live in benchmarks/, never in tests, and
# Hypothesis's default of 200 ms an example failed correct code on a busy
# machine (the two cores shared with browsers and live servers).
hypothesis_settings.register_profile("paigow", deadline=None)
hypothesis_settings.load_profile("paigow")
SHARED = REPO.parent / "shared"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture(autouse=True)
def fresh_sign_up_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign-up counts (per address: every test client is 127.0.0.1) of one test,
    or of an earlier run on a shared Redis cache, never reach another test."""
    from accounts import limits

    _fresh(limits, "SIGN_UP", monkeypatch)


def _fresh(module: Any, name: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Replace the limiter ``module.name`` with one of the same limits under a
    key of this test's own (no cache flush, which would also wipe the
    channel layer on Redis)."""
    import uuid

    from accounts.limits import Limiter

    limiter = getattr(module, name)
    fresh = Limiter(f"{name.lower()}-test-{uuid.uuid4().hex}", dict(limiter.limits), limiter.window)
    monkeypatch.setattr(module, name, fresh)
    return fresh


@pytest.fixture(autouse=True)
def fresh_password_limit(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Password-try counts of one test never reach another."""
    from accounts import limits

    return _fresh(limits, "PASSWORDS", monkeypatch)


@pytest.fixture(autouse=True)
def fresh_invite_limit(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Invite-link counts of one test never reach another."""
    from games import invite_limits

    return _fresh(invite_limits, "INVITES", monkeypatch)


@pytest.fixture(autouse=True)
def fresh_analysis_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Analysis slots and counts of one test never reach another."""
    import uuid

    from games.services import analysis

    monkeypatch.setattr(analysis, "BUDGET_SCOPE", f"analysis-test-{uuid.uuid4().hex}")


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
    from tests.support import assert_ledger_invariants

    assert_ledger_invariants()


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_user(django_user_model: Any) -> Callable[[str], Any]:
    def make(name: str = "ada") -> Any:
        return django_user_model.objects.create_user(username=name, password="a long pass phrase 1")

    return make


@pytest.fixture
def player(make_user: Callable[[str], Any]) -> Any:
    return make_user("ada")


@pytest.fixture
def friend(make_user: Callable[[str], Any]) -> Any:
    return make_user("grace")


@pytest.fixture
def rig(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Deal these decks, in order, then shuffle as usual."""
    from games.services import tables

    shuffle = tables._new_deck

    def rig(*decks: tuple[str, ...]) -> None:
        queue = list(decks)
        monkeypatch.setattr(tables, "_new_deck", lambda: queue.pop(0) if queue else shuffle())

    return rig


@pytest.fixture
def play_solo(rig: Callable[..., None]) -> Callable[..., Any]:
    """play_solo(user, table, mine, dealer, front=None, stake=10, luck=None):
    one revealed solo deal through the services (so every stored figure is
    the one the reveal wrote); ``front`` defaults to the house way; ``luck``
    is (wins, pushes, losses) recorded after the reveal, or None for pending."""
    from games import services
    from tests.support import deck_with, house_front

    def play(
        user: Any, table: Any, mine: str, dealer: str, *, front: list[str] | None = None,
        stake: int = 10, luck: tuple[int, int, int] | None = None,
    ) -> Any:
        rig(deck_with(mine, dealer))
        services.stake_propose(user=user, table_id=table.pk, amount=stake)
        deal = services.deal_start(user=user, table_id=table.pk)
        services.setting_lock(user=user, table_id=table.pk, front=front or house_front(mine))
        if luck is not None:
            wins, pushes, losses = luck
            services.luck_record(
                user=user, table_id=table.pk, deal_number=deal.number,
                wins=wins, pushes=pushes, losses=losses,
            )
        deal.refresh_from_db()
        return deal

    return play


@pytest.fixture
def joined_table(player: Any, friend: Any) -> Any:
    """A friend table the friend joined through its invite link."""
    from tests.support import friend_table

    return friend_table(player, friend)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(autouse=True, scope="session")
def celery_in_process() -> Iterator[None]:
    """Tasks queued by the code under test run at once, in this process, even
    with REDIS_URL set: nothing is left on a broker for a worker to find. The
    multi-process tests run their own worker against the real broker."""
    from paigow_site.celery import app

    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test given ``clean_env`` runs the project in processes of its own,
    with the embedded environment whatever the suite's: the same on both
    backends, so the SQLite pass of ``make test`` runs it only once."""
    for item in items:
        if "clean_env" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.own_environment)


@pytest.fixture
def clean_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment with none of the service variables: the embedded default."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_DEBUG", "ALLOWED_HOSTS"}
        and not key.startswith("PYTEST_")
    }
    env["PAIGOW_VAR_DIR"] = str(tmp_path / "var")
    return env


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: apt-get install chromium (never download a browser)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(autouse=True)
def fresh_channel_layer() -> Iterator[None]:
    """A new channel layer per test: each async test runs on its own event
    loop, and a channels-redis layer built on an earlier loop holds locks bound
    to it ("bound to a different event loop"), so reuse is flaky on Redis."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def socket_db_calls_finished() -> Iterator[None]:
    """Table sockets run their database calls on a thread pool. A call still
    running when a test ends (a socket the test left open) would touch the
    next test's rows, or hold a connection while the test database is
    dropped: wait for it, and start the next test with a new pool."""
    yield
    from games.realtime.db_threads import stop_db_threads

    stop_db_threads()
