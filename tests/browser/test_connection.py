"""The table page and its connection, as a player lives it: a Deal pressed
as the page appears is sent once the socket is live; cut off (the browser
offline, or a socket that stopped answering on a live network), the page
says so within seconds, shows what was pressed meanwhile as waiting, sends
it when it is back and says so; a friend's lock made meanwhile shows. And
the walkthrough at a friend table says that accepting a stake deals."""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import expect

from tests.browser import axe
from tests.browser.conftest import screenshot, sign_up
from tests.browser.test_friend_table_page import house_way_and_lock
from tests.browser.test_table import wait_engine
from tests.browser.test_table_phone import PHONE

TABLE_SOCKET = re.compile(r"/ws/tables/")
# The heartbeat gives a silent socket up 3 s after its last frame plus 4 s
# after the ping (frontend/src/js/table-transport.mjs, HEARTBEAT): said lost
# within 7.5 s; the bound leaves room for a slow machine.
SAID_LOST_WITHIN = 11_000
RESULT = re.compile(r"Win|Push|Loss")


def open_solo(page: Any, site: str) -> str:
    sign_up(page, site)
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/tables/\d+/$"))
    expect(page.locator("#connection")).to_have_text("Connected")
    return str(page.url)


def test_a_deal_pressed_before_the_socket_is_live_is_sent_once_it_is(page: Any, site: str) -> None:
    url = open_solo(page, site)

    # The server's frames are held back: the socket is open, not live.
    held: list[tuple[Any, Any]] = []
    holding = {"on": True}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if holding["on"]:
                held.append((ws, message))
            else:
                ws.send(message)

        server.on_message(from_server)

    page.route_web_socket(TABLE_SOCKET, route)
    page.goto(url, wait_until="commit")
    page.get_by_label("Stake").fill("20")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#waiting")).to_have_text(
        "Deal will be sent as soon as the table is connected.")
    expect(page.locator("#connection")).to_have_text("Connecting…")
    expect(page.get_by_role("button", name="Deal")).to_be_disabled()  # pressed once, not twice
    holding["on"] = False
    for ws, message in held:
        ws.send(message)
    expect(page.locator("#cards button.card")).to_have_count(7)
    expect(page.locator("#commitment")).to_contain_text("Deal 1 · stake 20")
    expect(page.locator("#waiting")).to_be_hidden()
    assert page.url == url


def test_a_deal_pressed_at_once_on_page_load_is_never_lost(page: Any, site: str) -> None:
    """No holding back: the press as early as the page lets it (before its
    script ran, a page reload would have lost it)."""
    url = open_solo(page, site)
    page.goto(url, wait_until="commit")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#cards button.card")).to_have_count(7)
    expect(page.locator("#commitment")).to_contain_text("Deal 1 · stake 10")
    assert page.url == url
    expect(page.get_by_role("alert")).to_be_hidden()


def test_offline_and_back_with_a_lock_pressed_meanwhile_and_the_friends_lock(
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
    expect(link).to_have_value(re.compile(r"/invite/#[\w-]+$"))
    guest.goto(link.input_value())
    guest.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(host.locator("#connection")).to_have_text("Connected")
    # The walkthrough's words match what happens: accepting deals, no Deal to press.
    for page in (host, guest):
        expect(page.locator("#walkthrough")).to_contain_text(
            "the cards are dealt as soon as a stake is accepted")
    host.get_by_label("Stake").fill("30")
    host.get_by_role("button", name="Propose stake").click()
    guest.get_by_role("button", name="Accept stake 30").click()
    for page in (host, guest):
        expect(page.locator("#cards button.card")).to_have_count(7)
        wait_engine(page)
    expect(host.locator("#other-state")).to_have_text("Setting cards…")

    # Offline: said at once (the browser's event), in a bar that stays in view.
    connection = host.locator("#connection")
    host.context.set_offline(True)
    expect(connection).to_have_text(re.compile(r"offline"), timeout=3_000)
    bar = host.locator("#connection-bar")
    expect(bar).to_have_class(re.compile(r"\bdown\b"))
    # The friend locks meanwhile; back online, the page shows it.
    house_way_and_lock(guest)
    expect(guest.locator("#your-setting .card-row")).to_have_count(2)
    host.wait_for_timeout(1_000)
    host.context.set_offline(False)
    expect(connection).to_have_text("Connected again.")
    expect(host.locator("#other-state")).to_have_text("Locked")
    expect(connection).to_have_text("Connected")  # a moment later
    expect(bar).not_to_have_class(re.compile(r"\bdown\b"))

    # Offline again; Lock pressed meanwhile waits, and is said to.
    host.context.set_offline(True)
    expect(connection).to_have_text(re.compile(r"offline"), timeout=3_000)
    host.get_by_role("button", name="House way").click()
    expect(host.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    host.get_by_role("button", name="Lock", exact=True).click()
    waiting = host.locator("#waiting")
    expect(waiting).to_have_text("Lock will be sent when you are back.")
    expect(waiting).to_be_in_viewport()
    expect(host.get_by_role("button", name="Lock", exact=True)).to_be_disabled()
    assert axe.blocking(host) == []
    screenshot(host, "offline-lock-waiting-1280")
    host.wait_for_timeout(2_000)
    expect(host.get_by_role("status")).not_to_contain_text(RESULT)
    host.context.set_offline(False)
    expect(connection).to_have_text("Connected again.")
    for page in (host, guest):
        expect(page.get_by_role("status")).to_contain_text(RESULT)
    expect(waiting).to_be_hidden()
    expect(host.get_by_role("alert")).to_be_hidden()  # sent once: no "already locked"
    host_you = host.locator("#your-setting [role=img]").first.get_attribute("aria-label")
    guest_other = guest.locator("#other-setting [role=img]").first.get_attribute("aria-label")
    assert host_you == guest_other


def test_a_socket_that_stops_answering_on_a_live_network_is_noticed(
    contexts: Any, site: str
) -> None:
    """The server stops answering (and no new socket gets through) while the
    browser is online: the heartbeat notices, the page says so (on a phone,
    in a bar that stays in view above the cards), a Lock pressed meanwhile
    waits, and goes once the table answers again."""
    page = contexts(**PHONE).new_page()
    switch = {"mute": False, "refuse": False}
    muted: list[Any] = []

    def route(ws: Any) -> None:
        if switch["refuse"]:
            ws.close()  # the server cannot be reached
            return
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if ws not in muted:
                server.send(message)

        def from_server(message: str | bytes) -> None:
            if ws not in muted:
                ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)
        current["ws"] = ws

    current: dict[str, Any] = {}
    page.route_web_socket(TABLE_SOCKET, route)
    open_solo(page, site)
    page.get_by_label("Stake").fill("20")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#cards button.card")).to_have_count(7)
    wait_engine(page)

    # Silence: frames stop both ways on the open socket; new ones are refused.
    connection = page.locator("#connection")
    switch["refuse"] = True
    muted.append(current["ws"])
    started = time.monotonic()
    expect(connection).to_have_text("Connection lost: reconnecting…", timeout=SAID_LOST_WITHIN)
    said = time.monotonic() - started
    print(f"dead socket said lost after {said:.1f} s")
    expect(page.locator("#connection-bar")).to_have_class(re.compile(r"\bdown\b"))

    page.get_by_role("button", name="House way").click()
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(page.locator("#waiting")).to_have_text("Lock will be sent when you are back.")
    expect(page.locator("#connection-bar")).to_be_in_viewport()
    expect(page.locator("#lock")).to_be_in_viewport()
    assert axe.blocking(page) == []
    page.screenshot(path=str(screenshot(page, "lost-lock-waiting-375x812")))  # the window only
    page.wait_for_timeout(1_000)
    expect(connection).to_have_text("Connection lost: reconnecting…")

    switch["refuse"] = False
    expect(connection).to_have_text("Connected again.", timeout=10_000)
    expect(page.get_by_role("status")).to_contain_text(RESULT)
    expect(page.locator("#waiting")).to_be_hidden()
    expect(page.get_by_role("alert")).to_be_hidden()
