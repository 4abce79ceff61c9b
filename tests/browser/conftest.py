"""A live site (daphne, embedded default) and a guarded Chromium for browser tests.

The site is the real ASGI app in its own process: HTTP, static files through
whitenoise with production's types, and the table WebSockets. It runs on the
embedded default (a fresh SQLite file, the in-memory channel layer, eager
Celery) in a temporary folder, so browser tests never touch a developer's
database. Chromium is Debian's /usr/bin/chromium driven by Playwright; no
browser is ever downloaded. Every request that would leave 127.0.0.1 is
aborted and recorded, and a test fails if there was one, or if the page
logged a console error.
"""

from __future__ import annotations

import os
import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from tests.conftest import REPO
from tests.live_site import embedded_env, live_site, migrate

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
ARTIFACTS = REPO / "test-artifacts"
# Console noise that is not the page's fault (none: a missing favicon is the site's).
IGNORED_CONSOLE: tuple[re.Pattern[str], ...] = ()


FACE_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king", "ace")
FACE_SUITS = ("spades", "hearts", "diamonds", "clubs")


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A valid one-colour PNG (the standard library has no image writer)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b""))


def make_face_pack(folder: Path) -> Path:
    """A small face pack with the PNG-cards-1.3 names: 52 cards, two jokers, a back."""
    names = [f"{rank}_of_{suit}" for rank in FACE_RANKS for suit in FACE_SUITS]
    for index, name in enumerate([*names, "black_joker", "red_joker", "back"]):
        (folder / f"{name}.png").write_bytes(_png(50, 70, (index * 4 % 256, 120, 200)))
    return folder


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a live daphne serving the whole site on a fresh database."""
    var_dir = tmp_path_factory.mktemp("site-var")
    # The optional picture face pack: the tests make their own small one.
    faces = make_face_pack(tmp_path_factory.mktemp("faces"))
    # Every test signs up from 127.0.0.1; the limit itself is tested in tests/accounts.
    # A 100-hand test is 3 hands here (test_practice_test.py plays one).
    env = embedded_env(var_dir, CARD_FACES_DIR=str(faces), SIGN_UPS_PER_ADDRESS="1000",
                       PRACTICE_TEST_HANDS="3")
    manifest = REPO / "frontend" / "build" / "manifest.json"
    if not manifest.exists():
        pytest.fail("frontend/build is missing: run `make setup` (the client build) first")
    migrate(env)
    with live_site(env, log_path=var_dir / "daphne.log") as base:
        yield base


class GuardedContext:
    """A browser context whose every request must stay on 127.0.0.1."""

    def __init__(
        self, browser: Any, *, width: int = 1280, height: int = 800, **options: Any
    ) -> None:
        # options: Playwright's new_context arguments (has_touch, is_mobile,
        # reduced_motion, device_scale_factor...).
        self.context = browser.new_context(viewport={"width": width, "height": height}, **options)
        self.context.set_default_timeout(15_000)
        self.offsite: list[str] = []
        self.console_errors: list[str] = []
        self.context.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        host = urlparse(route.request.url).hostname or ""
        if route.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            route.continue_()
        else:
            self.offsite.append(route.request.url)
            route.abort()

    def new_page(self) -> Any:
        page = self.context.new_page()
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.console_errors.append(f"pageerror: {error}"))
        return page

    def _console(self, message: Any) -> None:
        if message.type != "error":
            return
        text = f"{message.text} @ {message.location.get('url', '')}"
        if not any(pattern.search(text) for pattern in IGNORED_CONSOLE):
            self.console_errors.append(text)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def contexts(browser: Any) -> Iterator[Any]:
    """contexts(width=..., height=..., **new_context options) -> GuardedContext;
    checked after the test."""
    made: list[GuardedContext] = []

    def make(**options: Any) -> GuardedContext:
        context = GuardedContext(browser, **options)
        made.append(context)
        return context

    yield make
    offsite = [url for context in made for url in context.offsite]
    errors = [text for context in made for text in context.console_errors]
    for context in made:
        context.close()
    assert not offsite, f"requests left the site: {offsite}"
    assert not errors, f"console errors: {errors}"


@pytest.fixture
def page(contexts: Any) -> Any:
    return contexts().new_page()


_counter = iter(range(1, 1_000_000))


def unique_name(prefix: str = "player") -> str:
    return f"{prefix}{os.getpid()}x{next(_counter)}"


def sign_up(page: Any, site: str, username: str | None = None) -> str:
    """Sign a new player up through the real form; returns the username."""
    username = username or unique_name()
    page.goto(f"{site}/")
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill("a-long-Passphrase-42")
    page.get_by_label("Password confirmation").fill("a-long-Passphrase-42")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/lobby/"))
    return username


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
