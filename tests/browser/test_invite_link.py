"""A signed-out friend opens an invite link (/invite/#<token>) in a real
browser: the page's script posts the token, the friend signs up and sits
down, and the token never shows in the address bar or any URL on the way."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import sign_up, unique_name


def test_a_signed_out_friend_opens_the_link_signs_up_and_sits_down(
    contexts: Any, site: str
) -> None:
    host = contexts().new_page()
    sign_up(host, site)
    host.get_by_role("button", name="Invite a friend").click()
    host.wait_for_url(re.compile(r"/tables/\d+/"))
    host.locator("#invite").get_by_role("button", name="Invite a friend").click()
    link = host.get_by_label("Invite link").input_value()
    token = link.partition("#")[2]
    assert re.fullmatch(r"[\w-]{43}", token), link

    guest = contexts(width=375, height=667).new_page()
    visited: list[str] = []
    guest.on("request", lambda request: visited.append(request.url))
    guest.goto(link)
    guest.wait_for_url(re.compile(r"/accounts/sign-in/\?next=/invite/$"))
    guest.locator("main").get_by_role("link", name="Sign up").click()  # keeps ?next=
    guest.get_by_label("Username").fill(unique_name("guest"))
    guest.get_by_label("Password", exact=True).fill("a-long-Passphrase-42")
    guest.get_by_label("Password confirmation").fill("a-long-Passphrase-42")
    guest.get_by_role("button", name="Sign up").click()
    guest.wait_for_url(re.compile(r"/tables/\d+/$"))
    expect(guest.locator("#connection")).to_have_text("Connected")
    expect(host.locator("#invite")).to_be_hidden()
    assert not [url for url in visited if token in url], visited
