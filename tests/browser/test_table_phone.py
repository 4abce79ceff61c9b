"""The table on a phone (375 × 812, touch): after each step the player sees
what it is about without scrolling, or after the page's own scroll: the cards
and Lock after the deal, both settings and the result after the reveal; with
the first-table walkthrough shown (a new player's) and skipped."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot, sign_up

ENGINE_READY = 90_000
PHONE = {"width": 375, "height": 812, "has_touch": True, "is_mobile": True}


def off_screen(page: Any, *selectors: str) -> dict[str, Any]:
    """Each selector whose box is not wholly inside the window now: {selector: [top, bottom]}."""
    boxes: dict[str, Any] = page.evaluate(
        """(selectors) => Object.fromEntries(selectors.map((s) => {
            const r = document.querySelector(s).getBoundingClientRect();
            return [s, [Math.round(r.top), Math.round(r.bottom), Math.round(r.height)]];
        }))""",
        list(selectors),
    )
    height = PHONE["height"]
    return {s: box for s, box in boxes.items() if box[2] == 0 or box[0] < 0 or box[1] > height}


@pytest.mark.parametrize("walkthrough", ["shown", "skipped"])
def test_on_a_phone_each_step_fits_the_screen(contexts: Any, site: str, walkthrough: str) -> None:
    page = contexts(**PHONE).new_page()
    sign_up(page, site)
    page.get_by_role("button", name="Play solo").tap()
    page.wait_for_url(re.compile(r"/tables/\d+/"))
    expect(page.locator("#connection")).to_have_text("Connected")
    panel = page.locator("#walkthrough")
    if walkthrough == "skipped":
        page.get_by_role("button", name="Skip the walkthrough").tap()
        expect(panel).to_be_hidden()
    else:
        expect(panel).to_be_visible()
    assert off_screen(page, "#stake", "#deal-button") == {}

    page.get_by_label("Stake").fill("20")
    page.get_by_role("button", name="Deal").tap()
    expect(page.locator("#cards button.card")).to_have_count(7)
    expect(page.locator("#table")).to_have_attribute("data-engine", "ready", timeout=ENGINE_READY)
    assert off_screen(page, "#other-hand", "#cards", "#house-way", "#lock") == {}
    if walkthrough == "shown":
        expect(panel).to_contain_text("Front and back")  # below Lock: it pushed nothing off

    page.get_by_role("button", name="House way").tap()
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    assert off_screen(page, "#cards", "#lock") == {}
    screenshot(page, f"phone-choosing-375x812-{walkthrough}")

    page.get_by_role("button", name="Lock", exact=True).tap()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
    expect(page.locator("#luck")).not_to_be_empty()
    # Both settings and the result at once; the next stake comes after them.
    assert off_screen(page, "#other-setting", "#your-setting", "#result", "#luck") == {}
    order = page.evaluate(
        """() => ["#your-setting", "#result", "#betting"].map(
            (s) => document.querySelector(s).getBoundingClientRect().top)"""
    )
    assert order == sorted(order)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    screenshot(page, f"phone-revealed-375x812-{walkthrough}")

    # The next deal from below the result: the new cards and Lock come back into view.
    page.get_by_role("button", name="Rebet 20").tap()
    expect(page.locator("#cards button.card")).to_have_count(7)
    expect(page.locator("#commitment")).to_contain_text("Deal 2")
    assert off_screen(page, "#cards", "#house-way", "#lock") == {}
