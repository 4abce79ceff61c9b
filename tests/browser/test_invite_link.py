"""A signed-out friend opens an invite link (/invite/#<token>) in a real
browser: the page's script posts the token, the friend signs up and sits
down, and the token never shows in the address bar or any URL on the way."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import sign_up, unique_name
from tests.browser.test_accessibility import blocking


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


def host_link(host: Any, site: str) -> str:
    """Sign a host up, open a friend table and show its invite link."""
    sign_up(host, site)
    host.get_by_role("button", name="Invite a friend").click()
    host.wait_for_url(re.compile(r"/tables/\d+/"))
    host.locator("#invite").get_by_role("button", name="Invite a friend").click()
    link = host.get_by_label("Invite link")
    expect(link).to_have_value(re.compile(r"/invite/#[\w-]+$"))
    return link.input_value()


def new_link(host: Any) -> str:
    old = host.get_by_label("Invite link").input_value()
    host.get_by_role("button", name="New link").click()
    link = host.get_by_label("Invite link")
    expect(link).not_to_have_value(old)
    return link.input_value()


def test_a_new_link_pasted_into_the_withdrawn_links_tab_seats_the_friend(
    contexts: Any, site: str
) -> None:
    host = contexts().new_page()
    first = host_link(host, site)
    second = new_link(host)  # the first stops working
    guest_context = contexts()
    guest = guest_context.new_page()
    sign_up(guest, site)
    guest.goto(first)
    expect(guest.get_by_role("alert")).to_have_text(
        "That invite link was withdrawn. Ask your friend for a new one.")
    assert guest.url.endswith("/invite/")
    assert blocking(guest) == []  # the page, with its form for a new link
    # Chromium logs the page's own 410 (Gone); that is the page saying so, no fault.
    assert [e for e in guest_context.console_errors if "410 (Gone)" not in e] == []
    guest_context.console_errors.clear()
    # Pasted into the same tab's address bar: only the "#" part changes.
    guest.goto(second)
    guest.wait_for_url(re.compile(r"/tables/\d+/$"))
    expect(guest.locator("#connection")).to_have_text("Connected")
    expect(host.locator("#invite")).to_be_hidden()


def test_a_link_pasted_into_the_empty_invite_page_seats_the_friend(
    contexts: Any, site: str
) -> None:
    host = contexts().new_page()
    link = host_link(host, site)
    guest = contexts().new_page()
    sign_up(guest, site)
    guest.goto(f"{site}/invite/")
    expect(guest.get_by_role("heading", name="Join a friend's table")).to_be_visible()
    guest.goto(link)  # the same page, a new "#": no load
    guest.wait_for_url(re.compile(r"/tables/\d+/$"))
    expect(guest.locator("#connection")).to_have_text("Connected")


def test_a_signed_out_friend_is_told_who_invited_them_and_signs_in_from_the_header(
    contexts: Any, site: str
) -> None:
    host = contexts().new_page()
    link = host_link(host, site)
    host_name = host.locator(".who").inner_text().removeprefix("Signed in as ")
    guest_context = contexts()
    guest = guest_context.new_page()
    name = sign_up(guest, site)
    guest.get_by_role("button", name="Sign out").click()

    visited: list[str] = []
    guest.on("request", lambda request: visited.append(request.url))
    guest.goto(link)
    guest.wait_for_url(re.compile(r"/accounts/sign-in/\?next=/invite/$"))
    expect(guest.locator("#invite-waiting")).to_have_text(
        f"{host_name} invited you to a friend table: sign in or sign up to take your seat.")
    assert blocking(guest) == []
    guest.get_by_role("navigation", name="Main").get_by_role("link", name="Sign in").click()
    expect(guest.locator("#invite-waiting")).to_contain_text(f"{host_name} invited you")
    guest.get_by_label("Username").fill(name)
    guest.get_by_label("Password").fill("a-long-Passphrase-42")
    guest.locator("main").get_by_role("button", name="Sign in").click()
    guest.wait_for_url(re.compile(r"/tables/\d+/$"))
    expect(guest.locator("#connection")).to_have_text("Connected")
    token = link.partition("#")[2]
    assert not [url for url in visited if token in url], visited


def test_a_signed_out_friend_signs_up_from_the_header_and_keeps_the_invite(
    contexts: Any, site: str
) -> None:
    host = contexts().new_page()
    link = host_link(host, site)
    guest = contexts(width=375, height=667).new_page()
    guest.goto(link)
    guest.wait_for_url(re.compile(r"/accounts/sign-in/"))
    guest.get_by_role("navigation", name="Main").get_by_role("link", name="Sign up").click()
    guest.wait_for_url(re.compile(r"/accounts/sign-up/$"))  # the header's link: no next
    expect(guest.locator("#invite-waiting")).to_contain_text(
        "invited you to a friend table: sign in or sign up to take your seat.")
    guest.get_by_label("Username").fill(unique_name("guest"))
    guest.get_by_label("Password", exact=True).fill("a-long-Passphrase-42")
    guest.get_by_label("Password confirmation").fill("a-long-Passphrase-42")
    guest.locator("main").get_by_role("button", name="Sign up").click()
    guest.wait_for_url(re.compile(r"/tables/\d+/$"))
    expect(guest.locator("#connection")).to_have_text("Connected")
    expect(host.locator("#invite")).to_be_hidden()
