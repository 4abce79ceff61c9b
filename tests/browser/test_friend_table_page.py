"""A friend table's page, step by step: the host withdraws and replaces the
invite link from the page (that a withdrawn or replaced link seats no one is
tests/services/test_invites.py's); the seat badges say who waits for whom; a
proposal of the last stake has one action; focus follows the deal, the lock
and the reveal; and axe finds nothing serious or critical in any of these
states, on either side."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser import axe
from tests.browser.conftest import sign_up

ENGINE_READY = 90_000


def assert_clean(*pages: Any) -> None:
    for page in pages:
        assert axe.blocking(page) == [], page.url


def open_invite(page: Any) -> Any:
    """The table's invite as a fresh socket's first state frame shows it to the host."""
    return page.evaluate(
        """(tableId) => new Promise((resolve, reject) => {
            const ws = new WebSocket(`ws://${location.host}/ws/tables/${tableId}/`);
            ws.onmessage = (event) => { ws.close(); resolve(JSON.parse(event.data).table.invite); };
            ws.onerror = () => reject(new Error("socket failed"));
        })""",
        page.locator("#table").get_attribute("data-table-id"),
    )


def house_way_and_lock(page: Any) -> None:
    expect(page.locator("#table")).to_have_attribute("data-engine", "ready", timeout=ENGINE_READY)
    page.get_by_role("button", name="House way").click()
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    page.get_by_role("button", name="Lock", exact=True).click()


def test_a_friend_table_from_invite_to_rebet(contexts: Any, site: str) -> None:
    host = contexts().new_page()
    guest = contexts(width=375, height=812, has_touch=True, is_mobile=True).new_page()
    sign_up(host, site)
    sign_up(guest, site)
    host.get_by_role("button", name="Invite a friend").click()
    host.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(host.locator("#connection")).to_have_text("Waiting for your friend to join this table.")
    host.locator("#invite").get_by_role("button", name="Invite a friend").click()
    link = host.get_by_label("Invite link")
    expect(link).to_have_value(re.compile(r"/invite/#[\w-]+$"))
    first = link.input_value()
    assert_clean(host)

    # Withdraw: the link is gone from the page and seats no one.
    host.get_by_role("button", name="Withdraw").click()
    note = host.locator("#invite-note")
    expect(note).to_have_text(
        "Link withdrawn: it no longer seats anyone. Make a new link to invite a friend."
    )
    expect(link).to_be_hidden()
    expect(host.get_by_role("button", name="Withdraw")).to_be_hidden()
    expect(host.get_by_role("button", name="New link")).to_be_focused()
    assert_clean(host)
    assert open_invite(host) is None

    # New link, twice: each replaces the one before.
    host.get_by_role("button", name="New link").click()
    expect(note).to_contain_text("New link made: the previous one no longer works.")
    expect(link).to_be_focused()
    second = link.input_value()
    assert second not in ("", first)
    host.get_by_role("button", name="New link").click()
    expect(link).not_to_have_value(second)
    third = link.input_value()
    assert open_invite(host)["url"] == third
    guest.goto(third)
    guest.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(guest.locator("#connection")).to_have_text("Connected")
    expect(host.locator("#invite")).to_be_hidden()

    # A proposal: the badges say who decides.
    host.get_by_label("Stake").fill("20")
    host.get_by_role("button", name="Propose stake").click()
    expect(host.locator("#other-state")).to_have_text("Deciding on your stake of 20")
    expect(guest.locator("#other-state")).to_have_text("Waiting for your answer")
    assert_clean(host, guest)

    # The accept deals; each side's focus lands on its own cards.
    guest.get_by_role("button", name="Accept stake 20").tap()
    for page in (host, guest):
        expect(page.locator("#cards button.card")).to_have_count(7)
        expect(page.locator("#cards button.card").first).to_be_focused()
    assert_clean(host, guest)

    # The host locks first: focus on its locked seat while the friend sets.
    house_way_and_lock(host)
    expect(host.locator("#your-setting")).to_contain_text("Locked. Waiting for the reveal.")
    expect(host.locator("#hand")).to_be_focused()
    expect(guest.locator("#other-state")).to_have_text("Locked")
    assert_clean(host, guest)

    # The reveal moves both to the result.
    house_way_and_lock(guest)
    for page in (host, guest):
        expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
        expect(page.locator("#result h2.headline")).to_be_focused()
        expect(page.get_by_role("link", name="Replay deal 1")).to_be_visible()
        expect(page.get_by_role("link", name="Check the shuffle")).to_be_visible()
        expect(page.locator("#luck")).to_have_attribute("data-state", "stored", timeout=30_000)
    assert_clean(host, guest)

    # Rebet 20 proposes the last stake: the friend gets one action for it.
    host.get_by_role("button", name="Rebet 20").click()
    expect(host.locator("#proposal")).to_contain_text("You proposed a stake of 20")
    expect(host.get_by_role("button", name=re.compile(r"^Rebet"))).to_be_hidden()
    expect(guest.get_by_role("button", name="Accept stake 20")).to_be_visible()
    expect(guest.get_by_role("button", name=re.compile(r"^Rebet"))).to_be_hidden()
    assert_clean(host, guest)
    guest.get_by_role("button", name="Accept stake 20").tap()
    for page in (host, guest):
        expect(page.locator("#commitment")).to_contain_text("Deal 2 · stake 20")
        expect(page.locator("#cards button.card")).to_have_count(7)
