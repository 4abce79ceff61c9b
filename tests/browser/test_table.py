"""The table people play at, in a real browser: solo play with the engine worker
(house way, live hand names, lock, reveal, luck stored), a foul, the rules page,
the face pack, and screenshots at phone and desktop widths."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot, sign_up

ENGINE_READY = 90_000  # a cold Pyodide start on a slow CI machine


def start_solo(page: Any, site: str) -> None:
    sign_up(page, site)
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(page.locator("#connection")).to_have_text("Connected")


def wait_engine(page: Any) -> None:
    expect(page.locator("#table")).to_have_attribute("data-engine", "ready", timeout=ENGINE_READY)


def deal(page: Any, stake: int = 20) -> None:
    page.get_by_label("Stake").fill(str(stake))
    page.get_by_role("button", name="Deal").click()
    hand = page.get_by_role("group", name="Your seven cards")
    expect(hand.get_by_role("button")).to_have_count(7)


def seven(page: Any) -> list[str]:
    return page.locator("#cards button.card").evaluate_all("bs => bs.map(b => b.dataset.code)")


def state_frame(page: Any) -> dict[str, Any]:
    """The state the server returns now, asked for on a fresh socket."""
    return page.evaluate(
        """(tableId) => new Promise((resolve, reject) => {
            const ws = new WebSocket(`ws://${location.host}/ws/tables/${tableId}/`);
            ws.onmessage = (event) => { ws.close(); resolve(JSON.parse(event.data)); };
            ws.onerror = () => reject(new Error("socket failed"));
        })""",
        page.locator("#table").get_attribute("data-table-id"),
    )


def test_solo_house_way_lock_reveal_and_luck(page: Any, site: str) -> None:
    start_solo(page, site)
    assert page.get_by_role("link", name="Rules").first.is_visible()
    deal(page)
    cards = page.get_by_role("group", name="Your seven cards").get_by_role("button")
    names = cards.evaluate_all("bs => bs.map(b => b.getAttribute('aria-label'))")
    # The corner index the card shows, then its name ("Q, Queen of spades").
    words = [
        "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
        "Jack", "Queen", "King", "Ace",
    ]
    indices = [*"23456789", "10", *"JQKA"]
    card_name = re.compile(
        r"Joker|(?P<index>10|[2-9JQKA]), (?P<word>[A-Z][a-z]+) of (spades|hearts|diamonds|clubs)"
    )
    matches = [card_name.fullmatch(n) for n in names]
    assert all(matches), names
    assert all(
        m.group(0) == "Joker" or indices[words.index(m.group("word"))] == m.group("index")
        for m in matches if m
    ), names
    wait_engine(page)

    # Keyboard: Space on a card puts it in front.
    cards.nth(0).focus()
    page.keyboard.press("Space")
    expect(cards.nth(0)).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(cards.nth(1)).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#front-label")).to_have_text(re.compile(r"^Front: [a-z]"))
    expect(page.locator("#back-label")).to_have_text(re.compile(r"^Back: [a-z]"))

    # House way: the suggestion and its reason.
    page.get_by_role("button", name="House way").click()
    expect(page.locator("#house-reason")).to_contain_text("House way (")
    expect(page.locator("#coach-compare")).to_contain_text("Your setting is the house way")
    pressed = page.locator("#cards button[aria-pressed='true']")
    expect(pressed).to_have_count(2)
    front = pressed.evaluate_all("bs => bs.map(b => b.dataset.code)")
    screenshot(page, "table-choosing-1280")
    page.set_viewport_size({"width": 375, "height": 667})
    screenshot(page, "table-choosing-375")
    page.set_viewport_size({"width": 1280, "height": 800})

    page.get_by_role("button", name="Lock", exact=True).click()
    status = page.get_by_role("status")
    expect(status).to_contain_text(re.compile(r"Win|Push|Loss"))
    expect(page.locator("#luck")).to_contain_text(re.compile(r"Luck \d+\.\d \(\d+\.\d–\d+\.\d\)"))
    expect(page.locator("#luck")).to_have_attribute("data-state", "stored")
    expect(page.locator("#session-text")).to_contain_text("Luck average")
    expect(page.locator("#session-text")).to_contain_text("Skill total 0 over 1 hand")

    # The explorer, after the lock: 21 settings, the house way marked.
    page.get_by_role("button", name="Explore the 21 settings").click()
    rows = page.locator(".explorer-table tbody tr")
    expect(rows).to_have_count(21)
    expect(page.locator(".explorer-table tr.house")).to_have_count(1)
    expect(page.locator(".explorer-table tr.house")).to_contain_text("house way, yours")
    screenshot(page, "table-revealed-1280")
    page.set_viewport_size({"width": 375, "height": 667})
    screenshot(page, "table-revealed-375")

    # Stored with the deal: a fresh socket's state carries it, and a reload shows it.
    frame = state_frame(page)
    luck = frame["deal"]["results"]["you"]["luck"]
    assert re.fullmatch(r"Luck \d+\.\d \(\d+\.\d–\d+\.\d\)", luck)
    assert sorted(frame["deal"]["you"]["front"]) == sorted(front)
    assert frame["session"]["luck_count"] == 1
    assert frame["session"]["hands"] == 1
    page.reload()
    expect(page.locator("#connection")).to_have_text("Connected")
    expect(page.locator("#luck")).to_contain_text(luck)
    expect(page.locator("#luck")).to_have_attribute("data-state", "stored")

    # Rebet deals again at once.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.get_by_role("button", name="Rebet 20").click()
    expect(page.locator("#cards button.card")).to_have_count(7)
    assert json.dumps(seven(page))


def fouling_front_chosen(page: Any) -> bool:
    """Try fronts until the page calls one a foul (the strongest two cards
    usually are; with pairs, the best pair is); False when none of the 21
    fouls (three pair, say: every front leaves at least a pair behind it)."""
    cards = page.locator("#cards button.card")
    alert = page.get_by_role("alert")
    for i in range(7):
        for j in range(i + 1, 7):
            for b in cards.all():
                if b.get_attribute("aria-pressed") == "true":
                    b.click()
            cards.nth(i).click()
            cards.nth(j).click()
            expect(page.locator("#front-label")).not_to_contain_text("pick")
            page.wait_for_timeout(50)
            if alert.is_visible() and "foul" in (alert.text_content() or "").lower():
                return True
    return False


def test_a_foul_is_explained_needs_lock_anyway_and_loses(page: Any, site: str) -> None:
    start_solo(page, site)
    deal(page, stake=5)
    wait_engine(page)
    dealt = []
    # The deck is the server's own shuffle: a hand with no foul is played by
    # the house way and the next one dealt.
    for number in range(2, 7):
        dealt.append(seven(page))
        if fouling_front_chosen(page):
            break
        page.get_by_role("button", name="House way").click()
        page.get_by_role("button", name="Lock", exact=True).click()
        expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
        page.get_by_role("button", name="Rebet 5").click()
        expect(page.locator("#commitment")).to_contain_text(f"Deal {number}")
    else:
        pytest.fail(f"no foul found in five hands: {dealt}")
    alert = page.get_by_role("alert")
    stack = int(page.locator("#stack-you").inner_text())
    expect(alert).to_contain_text("beats your back")
    assert not page.get_by_role("button", name="Lock anyway").is_visible()
    page.get_by_role("button", name="Lock", exact=True).click()
    lock_anyway = page.get_by_role("button", name="Lock anyway")
    expect(lock_anyway).to_be_visible()
    expect(page.locator("#result")).to_be_empty()
    lock_anyway.click()
    expect(page.get_by_role("status")).to_contain_text("Loss")
    expect(page.get_by_role("status")).to_contain_text("fouled")
    expect(page.locator("#stack-you")).to_have_text(str(stack - 5))


def test_rules_page_and_face_pack(page: Any, site: str) -> None:
    page.goto(f"{site}/rules/")
    expect(page.get_by_role("heading", name="Rules", level=1)).to_be_visible()
    for text in (
        "Five aces", "foul", "copy", "house way", "Luck", "Decision skill",
        "8♦ 8♣ | A♠ A♥ K♠ 7♥ 4♦",
    ):
        expect(page.locator("main")).to_contain_text(text)
    start_solo(page, site)
    deal(page)
    # Built-in SVG faces by default; the picture pack by choice.
    expect(page.locator("#cards svg.face")).to_have_count(7)
    page.get_by_label("Card faces").select_option("pack")
    images = page.locator("#cards img.face")
    expect(images).to_have_count(7)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#cards img.face')]"
        ".every(i => i.complete && i.naturalWidth > 0)"
    )
    assert re.search(r"/faces/(\d+|ace|king|queen|jack)_of_[a-z]+\.png$|/faces/black_joker\.png$",
                     images.first.get_attribute("src") or "")
    screenshot(page, "table-face-pack-1280")
    page.get_by_label("Card faces").select_option("svg")
    expect(page.locator("#cards svg.face")).to_have_count(7)


def test_a_button_pressed_while_the_socket_reconnects_waits_for_it(page: Any, site: str) -> None:
    """A dropped socket: a Deal pressed before the new socket has sent the
    table's state waits for it (said so, and nothing is pressed twice
    meanwhile), then goes once it has; then play goes on. (Issue 45: before,
    every button that sends was disabled meanwhile and a press was lost.)"""
    sockets: list[Any] = []
    hold = {"on": False}

    def route(ws: Any) -> None:
        sockets.append(ws)
        if not hold["on"]:
            ws.connect_to_server()
        # Held: the page's socket opens but never hears from the server.

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    start_solo(page, site)
    deal_button = page.get_by_role("button", name="Deal")
    expect(deal_button).to_be_enabled()

    hold["on"] = True
    sockets[-1].close(code=4000)
    connection = page.locator("#connection")
    expect(connection).to_have_text("Connection lost: reconnecting…")
    for _ in range(100):  # the page reconnects after half a second
        if len(sockets) >= 2:
            break
        page.wait_for_timeout(100)
    assert len(sockets) == 2
    page.wait_for_timeout(300)
    page.get_by_label("Stake").fill("20")
    deal_button.click()  # open, but no state from the server yet
    expect(page.locator("#waiting")).to_have_text("Deal will be sent when you are back.")
    expect(deal_button).to_be_disabled()
    page.wait_for_timeout(300)
    expect(page.locator("#cards button.card")).to_have_count(0)

    hold["on"] = False
    sockets[-1].close(code=4000)
    expect(connection).to_have_text("Connected again.")
    expect(page.locator("#cards button.card")).to_have_count(7)
    expect(page.locator("#commitment")).to_contain_text("Deal 1 · stake 20")
    expect(page.locator("#waiting")).to_be_hidden()
    expect(connection).to_have_text("Connected")


def test_a_luck_estimate_finished_while_offline_is_stored_after_the_reconnect(
    page: Any, site: str
) -> None:
    """The socket drops right after the reveal reaches the page; the device's
    estimate, finished meanwhile, is sent once the new socket is live."""
    sockets: list[Any] = []
    mode = {"hold": False, "drop_at_reveal": False}

    def route(ws: Any) -> None:
        sockets.append(ws)
        if mode["hold"]:
            return  # open, but silent: no state from the server
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            ws.send(message)
            frame = json.loads(message)
            if mode["drop_at_reveal"] and (frame.get("deal") or {}).get("revealed"):
                mode.update(hold=True, drop_at_reveal=False)
                ws.close(code=4000)

        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    start_solo(page, site)
    deal(page)
    wait_engine(page)
    page.get_by_role("button", name="House way").click()
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    mode["drop_at_reveal"] = True
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
    expect(page.locator("#connection")).to_have_text("Connection lost: reconnecting…")
    # Computed on the device, not stored: the socket is down.
    expect(page.locator("#luck")).to_have_attribute("data-state", "computed")

    mode["hold"] = False
    sockets[-1].close(code=4000)
    expect(page.locator("#connection")).to_have_text("Connected")
    expect(page.locator("#luck")).to_have_attribute("data-state", "stored")
    expect(page.locator("#session-text")).to_contain_text("Luck average")
