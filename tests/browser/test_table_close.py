"""Closing a table that waits for a friend, from the lobby, and leaving a
friend table from its page: the page that asks first says what becomes of
the chips; the friend's open table page learns at once that it finished."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import sign_up
from tests.browser.test_invite_link import host_link


def test_closing_a_waiting_table_from_the_lobby(page: Any, site: str) -> None:
    sign_up(page, site)
    page.get_by_role("button", name="Invite a friend").click()
    page.wait_for_url(re.compile(r"/tables/(\d+)/"))
    table_id = page.url.rstrip("/").rsplit("/", 1)[1]
    page.get_by_role("link", name="Lobby").first.click()
    row = page.locator(".table-list li", has_text=f"Friend table {table_id}")
    expect(row).to_contain_text("Waiting for a friend")
    row.get_by_role("link", name=f"Close friend table {table_id}").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        f"Close friend table {table_id}?")
    expect(page.locator("#close-chips")).to_have_text(
        "No deal was played, so nothing is lost: no chips move and the invite link "
        "stops working.")
    page.get_by_role("button", name="Close the table").click()
    page.wait_for_url(re.compile(r"/lobby/$"))
    expect(page.locator(".messages")).to_have_text(f"Friend table {table_id} is closed.")
    expect(page.locator(".table-list")).to_have_count(0)


def test_leaving_a_friend_table_from_its_page_finishes_it_for_the_friend(
    contexts: Any, site: str
) -> None:
    host = contexts().new_page()
    link = host_link(host, site)
    guest = contexts().new_page()
    guest_name = sign_up(guest, site)
    guest.goto(link)
    guest.wait_for_url(re.compile(r"/tables/\d+/$"))
    expect(guest.locator("#connection")).to_have_text("Connected")
    expect(host.locator("#invite")).to_be_hidden()

    host.reload()  # the link's words follow the table as the page drew it
    host.get_by_role("link", name="Close table").click()
    expect(host.locator("#close-chips")).to_have_text(
        "No deal was played, so nothing is lost: no chips move. The table finishes for "
        f"{guest_name} too: their page says it is finished.")
    host.get_by_role("button", name="Close the table").click()
    host.wait_for_url(re.compile(r"/lobby/$"))
    expect(guest.locator("#finished")).to_be_visible()
    expect(guest.locator("#finished")).to_contain_text("This table is finished")
