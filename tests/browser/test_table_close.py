"""Closing a table that waits for a friend, from the lobby, and leaving a
friend table from its page: the page that asks first says what becomes of
the chips; the friend's open table page learns at once that it finished."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import sign_up
from tests.browser.test_accessibility import blocking
from tests.browser.test_invite_link import host_link
from tests.browser.test_table import deal, start_solo, wait_engine


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
    assert blocking(page) == []
    page.get_by_role("button", name="Close the table").click()
    page.wait_for_url(re.compile(r"/lobby/$"))
    expect(page.locator(".messages")).to_have_text(f"Friend table {table_id} is closed.")
    expect(page.locator(".table-list")).to_have_count(0)


def test_leaving_a_friend_table_from_its_page_finishes_it_for_the_host(
    contexts: Any, site: str
) -> None:
    host = contexts().new_page()
    link = host_link(host, site)
    host_name = host.locator(".who").inner_text().removeprefix("Signed in as ")
    guest = contexts(width=375, height=812, has_touch=True, is_mobile=True).new_page()
    sign_up(guest, site)
    guest.goto(link)
    guest.wait_for_url(re.compile(r"/tables/\d+/$"))
    expect(guest.locator("#connection")).to_have_text("Connected")
    expect(host.locator("#invite")).to_be_hidden()

    guest.get_by_role("link", name="Leave table").click()
    expect(guest.locator("#close-chips")).to_have_text(
        "No deal was played, so nothing is lost: no chips move. The table finishes for "
        f"{host_name} too: their page says it is finished.")
    assert blocking(guest) == []
    guest.get_by_role("button", name="Leave the table").click()
    guest.wait_for_url(re.compile(r"/lobby/$"))
    # The host's open page is told over its socket.
    expect(host.locator("#finished")).to_be_visible()
    expect(host.locator("#finished")).to_contain_text("This table is finished")


def test_leaving_a_solo_table_waits_for_the_deal_and_then_names_the_stack(
    page: Any, site: str
) -> None:
    start_solo(page, site)
    deal(page)
    table_url = page.url
    page.get_by_role("link", name="Leave table").click()
    expect(page.locator("#close-chips")).to_have_text(re.compile(
        r"^Deal 1 is in progress: finish it first \(lock your setting; the reveal settles "
        r"it\), then leave the table\."))
    expect(page.get_by_role("button", name="Leave the table")).to_have_count(0)
    page.get_by_role("link", name="Back to the table").click()
    wait_engine(page)
    page.get_by_role("button", name="House way").click()
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
    stack = page.locator("#stack-you").inner_text()

    page.goto(table_url)
    page.get_by_role("link", name="Leave table").click()
    expect(page.locator("#close-chips")).to_have_text(
        f"No chips move: your stack of {int(stack):,} chips stays with this table's 1 deal "
        "in your history. Play chips do not carry over: a new table starts again with 1,000.")
    page.get_by_role("button", name="Leave the table").click()
    page.wait_for_url(re.compile(r"/lobby/$"))
    expect(page.locator(".messages")).to_contain_text(
        "is closed. Its deals stay in your history.")
    expect(page.locator(".table-list")).to_have_count(0)
