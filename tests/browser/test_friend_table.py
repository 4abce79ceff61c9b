"""Two players in two browser contexts: invite, join, propose and accept a
stake, both lock, both see the same reveal."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import screenshot, sign_up

ENGINE_READY = 90_000


def test_two_friends_invite_stake_lock_and_see_one_reveal(contexts: Any, site: str) -> None:
    host = contexts().new_page()
    guest = contexts(width=375, height=667).new_page()
    sign_up(host, site)
    sign_up(guest, site)

    host.get_by_role("button", name="Invite a friend").click()
    host.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(host.locator("#other-state")).to_have_text("Waiting to join")
    host.locator("#invite").get_by_role("button", name="Invite a friend").click()
    link = host.get_by_label("Invite link")
    expect(link).to_have_value(re.compile(r"/invite/#[\w-]+$"))
    assert link.get_attribute("readonly") is not None
    expect(host.get_by_role("button", name="Copy")).to_be_visible()

    guest.goto(link.input_value())
    guest.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(guest.locator("#connection")).to_have_text("Connected")
    expect(host.locator("#invite")).to_be_hidden()
    expect(host.locator("#other-state")).not_to_have_text("Waiting to join")

    # The host proposes, the guest accepts (and the deal follows).
    host.get_by_label("Stake").fill("30")
    host.get_by_role("button", name="Propose stake").click()
    expect(guest.locator("#proposal")).to_contain_text("proposes a stake of 30")
    guest.get_by_role("button", name="Accept stake 30").click()
    for page in (host, guest):
        expect(page.locator("#cards button.card")).to_have_count(7)
        expect(page.locator("#table")).to_have_attribute(
            "data-engine", "ready", timeout=ENGINE_READY
        )

    host.get_by_role("button", name="House way").click()
    expect(host.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    host.get_by_role("button", name="Lock", exact=True).click()
    expect(guest.locator("#other-state")).to_have_text("Locked")

    guest.get_by_role("button", name="House way").click()
    expect(guest.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    guest.get_by_role("button", name="Lock", exact=True).click()

    words = {}
    for page in (host, guest):
        status = page.get_by_role("status")
        expect(status).to_contain_text(re.compile(r"Win|Push|Loss"))
        expect(page.locator("#luck")).to_have_attribute("data-state", "stored", timeout=30_000)
        words[page] = status.locator(".headline").inner_text().split(":")[0]
    mirror = {"Win": "Loss", "Loss": "Win", "Push": "Push"}
    assert mirror[words[host]] == words[guest]
    # The same cards on both screens: the host's setting is the guest's "other".
    host_front = host.locator("#your-setting .card-row").first.get_attribute("class")
    assert host_front is not None
    host_you = host.locator("#your-setting [role=img]").first.get_attribute("aria-label")
    guest_other = guest.locator("#other-setting [role=img]").first.get_attribute("aria-label")
    assert host_you == guest_other
    guest_you = guest.locator("#your-setting [role=img]").nth(1).get_attribute("aria-label")
    host_other = host.locator("#other-setting [role=img]").nth(1).get_attribute("aria-label")
    assert guest_you == host_other
    assert host.locator("#stack-you").inner_text() == guest.locator("#stack-other").inner_text()
    screenshot(host, "friend-revealed-1280")
    screenshot(guest, "friend-revealed-375")

    # The guest leaves: the host sees them away.
    guest.context.close()
    expect(host.locator("#other-state")).to_have_text("Away", timeout=15_000)
