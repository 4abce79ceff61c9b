"""A forgotten password through the UI, in Chromium on the live site: the
player adds an e-mail on the account page, verifies it from the mailed link
in another browser, forgets the password, asks for a link from the sign-in
page, sets a new password from the mail and signs in with it; the old
session is gone. Mail goes to files (EMAIL_FILE_PATH), which the test reads.
Every page on the way has no blocking axe violation."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.axe import BLOCKING, violations
from tests.browser.conftest import sign_up
from tests.live_site import embedded_env, live_site, migrate

NEW = "another-long-Passphrase-77"


@pytest.fixture(scope="module")
def mail_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A live site of its own whose mail is written to files in a folder."""
    var_dir = tmp_path_factory.mktemp("mail-site-var")
    outbox = tmp_path_factory.mktemp("outbox")
    env = embedded_env(var_dir, EMAIL_FILE_PATH=str(outbox), SIGN_UPS_PER_ADDRESS="1000")
    migrate(env)
    with live_site(env, log_path=var_dir / "daphne.log") as base:
        yield base, outbox


def next_mail(outbox: Path, seen: set[Path], seconds: float = 10) -> str:
    """The text of the next mail written to ``outbox``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        new = sorted(set(outbox.iterdir()) - seen, key=lambda p: p.stat().st_mtime)
        if new:
            seen.add(new[0])
            return new[0].read_text(encoding="utf-8")
        time.sleep(0.1)
    raise AssertionError(f"no mail in {outbox} within {seconds}s")


def link(mail: str, site: str) -> str:
    found = re.search(re.escape(site) + r"/accounts/\S+/", mail)
    assert found, mail
    return found.group(0)


def no_blocking(page: Any, where: str, problems: dict[str, Any]) -> None:
    found = [v for v in violations(page) if v["impact"] in BLOCKING]
    if found:
        problems[where] = found


def test_a_forgotten_password_is_reset_through_a_verified_email(
    contexts: Any, mail_site: tuple[str, Path]
) -> None:
    site, outbox = mail_site
    seen: set[Path] = set()
    problems: dict[str, Any] = {}

    # The player adds an address on the account page (with their password).
    player = contexts().new_page()
    name = sign_up(player, site)
    player.get_by_role("link", name="Account").click()
    expect(player.get_by_text("You have not given an e-mail address")).to_be_visible()
    no_blocking(player, "account, no address", problems)
    player.get_by_label("E-mail address").fill(f"{name}@example.org")
    player.get_by_label("Your password").fill("a-long-Passphrase-42")
    player.get_by_role("button", name="Add the address").click()
    expect(player.get_by_text(f"A link is on its way to {name}@example.org")).to_be_visible()
    expect(player.get_by_text("not verified yet")).to_be_visible()
    no_blocking(player, "account, unverified", problems)
    verify = next_mail(outbox, seen)
    assert f"To: {name}@example.org" in verify

    # The link works in another browser, signed out, with one button.
    mailbox = contexts().new_page()
    mailbox.goto(link(verify, site))
    no_blocking(mailbox, "verify", problems)
    mailbox.get_by_role("button", name="Verify this address").click()
    expect(mailbox.get_by_role("heading", name="E-mail verified")).to_be_visible()
    no_blocking(mailbox, "verified", problems)
    player.reload()
    verified = f"Your e-mail address is {name}@example.org, verified"
    expect(player.get_by_text(verified)).to_be_visible()

    # Forgotten: from the sign-in page, a link to the verified address.
    stranger = contexts().new_page()
    stranger.goto(f"{site}/accounts/sign-in/")
    stranger.get_by_role("link", name="Forgot your password?").click()
    told = "An account without a verified e-mail address cannot be reset by e-mail"
    expect(stranger.get_by_text(told)).to_be_visible()
    no_blocking(stranger, "reset request", problems)
    stranger.get_by_label("Your verified e-mail address").fill(f"{name}@example.org")
    stranger.get_by_role("button", name="Send the link").click()
    expect(stranger.get_by_role("heading", name="Check your e-mail")).to_be_visible()
    no_blocking(stranger, "reset sent", problems)
    reset = next_mail(outbox, seen)
    assert f'"{name}"' in reset  # the username, in case that was forgotten too

    stranger.goto(link(reset, site))
    expect(stranger.get_by_text(f"For the account {name}")).to_be_visible()
    no_blocking(stranger, "new password", problems)
    stranger.get_by_label("New password", exact=True).fill(NEW)
    stranger.get_by_label("New password confirmation").fill(NEW)
    stranger.get_by_role("button", name="Set the new password").click()
    expect(stranger.get_by_role("heading", name="Password set")).to_be_visible()
    no_blocking(stranger, "password set", problems)
    stranger.get_by_role("link", name="Sign in with it").click()
    stranger.get_by_label("Username").fill(name)
    stranger.get_by_label("Password").fill(NEW)
    stranger.get_by_role("button", name="Sign in").click()
    stranger.wait_for_url(re.compile(r"/lobby/"))

    # The old session ended with the old password.
    player.goto(f"{site}/accounts/")
    expect(player).to_have_url(re.compile(r"/accounts/sign-in/"))
    assert problems == {}, problems
