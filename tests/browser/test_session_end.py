"""The table page when its session ends under it: a password change in the
same browser replaces the session (the socket is closed, 4401) and the page
reconnects by itself; a sign-out stops it with a sentence."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.test_table import deal, start_solo

PASSWORD = "a-long-Passphrase-42"  # tests.browser.conftest.sign_up's


def test_the_table_comes_back_after_a_password_change_and_stops_after_a_sign_out(
    contexts: Any, site: str
) -> None:
    context = contexts()
    page = context.new_page()
    sockets: list[Any] = []
    page.on("websocket", lambda socket: sockets.append(socket))
    start_solo(page, site)
    assert len(sockets) == 1

    other = context.new_page()  # another tab of the same browser: the same session
    other.goto(f"{site}/accounts/password/")
    other.get_by_label("Old password").fill(PASSWORD)
    other.get_by_label(re.compile(r"^New password:?$")).fill("another-long-Passphrase-43")
    other.get_by_label(re.compile(r"^New password confirmation:?$")).fill(
        "another-long-Passphrase-43"
    )
    other.get_by_role("button", name="Change password").click()
    other.wait_for_url(re.compile(r"/accounts/password/done/"))

    # The old socket is closed with the old session; a new one is live.
    for _ in range(150):  # up to 15 s
        if len(sockets) == 2:
            break
        page.wait_for_timeout(100)
    assert len(sockets) == 2, "the page did not open a new socket after its session was replaced"
    assert sockets[0].is_closed()
    expect(page.locator("#connection")).to_have_text("Connected")
    deal(page)

    other.get_by_role("button", name="Sign out").click()
    expect(page.locator("#connection")).to_have_text("Signed out: sign in again to play.")
