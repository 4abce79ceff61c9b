"""The table page accepts only the stake it shows: when the host re-proposes
while the friend clicks "Accept stake 10", nothing is dealt, and the friend's
page shows why and the new stake."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import sign_up


def test_an_accept_of_a_stake_changed_meanwhile_deals_nothing_and_shows_the_new_one(
    contexts: Any, site: str
) -> None:
    host = contexts().new_page()
    guest = contexts().new_page()
    sign_up(host, site)
    sign_up(guest, site)
    host.get_by_role("button", name="Invite a friend").click()
    host.wait_for_url(re.compile(r"/tables/\d+/"))
    host.locator("#invite").get_by_role("button", name="Invite a friend").click()
    link = host.get_by_label("Invite link")
    expect(link).to_have_value(re.compile(r"/invite/."))

    # The guest's socket passes every frame through, except those the test
    # holds back: a push still on its way when the guest clicks.
    holding = {"on": False}
    held: list[Any] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(
            lambda message: held.append(message) if holding["on"] else ws.send(message)
        )

    guest.route_web_socket(re.compile(r"/ws/tables/\d+/"), route)
    guest.goto(link.input_value())
    guest.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(guest.locator("#connection")).to_have_text("Connected")

    host.get_by_label("Stake").fill("10")
    host.get_by_role("button", name="Propose stake").click()
    accept_10 = guest.get_by_role("button", name="Accept stake 10")
    expect(accept_10).to_be_visible()

    holding["on"] = True
    host.get_by_label("Stake").fill("900")
    host.get_by_role("button", name="Propose stake").click()
    expect(host.locator("#proposal")).to_contain_text("You proposed a stake of 900")
    for _ in range(100):  # the push of 900 reaches the guest's socket, and waits there
        if held:
            break
        guest.wait_for_timeout(50)
    assert held, "the push of the new stake never came"
    holding["on"] = False

    accept_10.click()
    expect(guest.locator("#alert-text")).to_have_text(
        "Your friend changed the stake to 900 chips before you accepted, so nothing was "
        "agreed. Accept 900 or propose another stake."
    )
    expect(guest.locator("#proposal")).to_contain_text("Your friend proposes a stake of 900")
    expect(guest.locator("#cards button.card")).to_have_count(0)
    expect(host.locator("#cards button.card")).to_have_count(0)

    # Accepting what is shown now deals, at 900.
    guest.get_by_role("button", name="Accept stake 900").click()
    for page in (host, guest):
        expect(page.locator("#cards button.card")).to_have_count(7)
        expect(page.locator("#commitment")).to_contain_text("stake 900")
