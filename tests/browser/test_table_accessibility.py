"""The solo table for a keyboard and a screen reader: no serious or critical
axe violation while choosing or after the reveal, focus on the cards after
Deal and on the result after Lock (never dropped to <body>), the result read
out by a live region, and no motion for those who ask for none."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser import axe
from tests.browser.conftest import sign_up

ENGINE_READY = 90_000


def start_solo(page: Any, site: str) -> None:
    sign_up(page, site)
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(page.locator("#connection")).to_have_text("Connected")


def focused(page: Any) -> dict[str, Any]:
    """What has focus: its tag, id, card code and text."""
    found: dict[str, Any] = page.evaluate(
        """() => { const e = document.activeElement;
            return {tag: e.tagName, id: e.id, code: e.dataset.code || null,
                    text: e.textContent.trim()}; }"""
    )
    return found


def test_the_solo_table_has_no_serious_axe_violation_at_any_step(page: Any, site: str) -> None:
    start_solo(page, site)
    assert axe.blocking(page) == []
    page.get_by_label("Stake").fill("1")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#cards button.card")).to_have_count(7)
    expect(page.locator("#table")).to_have_attribute("data-engine", "ready", timeout=ENGINE_READY)
    assert axe.blocking(page) == []  # the card buttons' names contain what they show
    page.get_by_role("button", name="House way").click()
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    assert axe.blocking(page) == []
    page.get_by_label("Card faces").select_option("pack")
    expect(page.locator("#cards img.face")).to_have_count(7)
    assert axe.blocking(page) == []
    page.get_by_label("Card faces").select_option("svg")
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
    expect(page.locator("#luck")).to_have_attribute("data-state", "stored", timeout=30_000)
    assert axe.blocking(page) == []


def test_with_the_keyboard_only_focus_goes_to_the_cards_then_to_the_result(
    page: Any, site: str
) -> None:
    start_solo(page, site)
    expect(page.locator("#table")).to_have_attribute("data-engine", "ready", timeout=ENGINE_READY)
    stake = page.get_by_label("Stake")
    stake.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    page.keyboard.press("Enter")  # submits the stake form: Deal
    expect(page.locator("#cards button.card")).to_have_count(7)
    first = page.locator("#cards button.card").first.get_attribute("data-code")
    expect(page.locator("#cards button.card").first).to_be_focused()
    assert focused(page)["code"] == first

    for _ in range(7):  # past the seven cards to "House way"
        page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="House way")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Lock", exact=True)).to_be_focused()
    page.keyboard.press("Enter")

    headline = page.locator("#result h2.headline")
    expect(headline).to_be_focused()
    assert focused(page)["tag"] != "BODY"
    # The live region (role status) holds the whole result, read out once.
    status = page.get_by_role("status")
    expect(status).to_have_attribute("aria-atomic", "true")
    expect(status).to_contain_text(re.compile(r"^(Win|Push|Loss)"))
    expect(status).to_contain_text(re.compile(r"Front: (win|loss|copy)"))
    expect(status).to_contain_text("Stake 3:")
    words = headline.inner_text()
    # Later frames (the stored luck) do not rebuild it, so it is not read again.
    marked = status.evaluate("(s) => { s.firstElementChild.dataset.mark = 'kept'; return true; }")
    assert marked
    expect(page.locator("#luck")).to_have_attribute("data-state", "stored", timeout=30_000)
    expect(headline).to_have_attribute("data-mark", "kept")
    expect(headline).to_have_text(words)
    expect(headline).to_be_focused()


def test_the_result_links_to_its_replay_and_its_shuffle_proof(page: Any, site: str) -> None:
    start_solo(page, site)
    page.get_by_label("Stake").fill("2")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#table")).to_have_attribute("data-engine", "ready", timeout=ENGINE_READY)
    page.get_by_role("button", name="House way").click()
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    page.get_by_role("button", name="Lock", exact=True).click()
    table_id = page.locator("#table").get_attribute("data-table-id")
    replay = page.get_by_role("link", name="Replay deal 1")
    proof = page.get_by_role("link", name="Check the shuffle")
    expect(replay).to_have_attribute("href", re.compile(r"^/history/deals/\d+/$"))
    expect(proof).to_have_attribute("href", f"/tables/{table_id}/deals/1/verify/")
    proof.click()
    expect(page.locator("main")).to_contain_text("Checked")
    page.go_back()
    page.get_by_role("link", name="Replay deal 1").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Solo table {table_id}, deal 1")


def test_reduced_motion_keeps_the_cards_still(contexts: Any, site: str) -> None:
    durations = {}
    for motion in ("no-preference", "reduce"):
        page = contexts(reduced_motion=motion).new_page()
        start_solo(page, site)
        page.get_by_label("Stake").fill("1")
        page.get_by_role("button", name="Deal").click()
        card = page.locator("#cards button.card").first
        expect(card).to_be_visible()
        durations[motion] = card.evaluate("(c) => getComputedStyle(c).transitionDuration")
        if motion == "reduce":
            card.click()
            running = page.evaluate(
                "() => document.getAnimations().filter((a) => a.playState === 'running').length"
            )
            assert running == 0
    assert durations == {"no-preference": "0.12s", "reduce": "0s"}
