"""The table on a phone (375 × 812, touch), past the deal: the coaching
comparison sits next to the cards while they are set; the setting explorer
is a compact row a setting (both hands on one line, the verdict, the score,
wins/pushes/losses and the notes in view without sideways scrolling; the
details a tap away), no row taller than about 120 px; luck says its scale;
axe finds nothing serious at this size."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.axe import blocking
from tests.browser.conftest import screenshot
from tests.browser.test_table import deal, start_solo, wait_engine
from tests.browser.test_table_phone import PHONE

ROW_MAX = 120  # px: a compact row, at most
REFINED = 60_000  # ms: the explorer's last chunk (and the server's exact figures) on a slow machine


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    """Every box matching `selector`, in the window's coordinates."""
    found: list[dict[str, float]] = page.locator(selector).evaluate_all(
        """(nodes) => nodes.map((n) => {
            const r = n.getBoundingClientRect();
            return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
                    width: r.width, scrollWidth: n.scrollWidth, clientWidth: n.clientWidth};
        })"""
    )
    return found


def assert_compact(page: Any, box: str) -> list[float]:
    """The rows of one explorer list (in `box`): 21, each short, everything in it within
    the phone's width; returns the rows' heights."""
    rows = boxes(page, f"{box} .explorer-list > li")
    assert len(rows) == 21
    heights = [round(r["height"], 1) for r in rows]
    assert max(heights) <= ROW_MAX, heights
    width = PHONE["width"]
    for part in (".xl-hands", ".xl-verdict", ".xl-counts"):
        shown = boxes(page, f"{box} .explorer-list > li {part}")
        assert len(shown) == 21, part
        assert all(b["left"] >= 0 and b["right"] <= width and b["width"] > 0 for b in shown), part
    notes = boxes(page, f"{box} .explorer-list .xl-notes")
    assert notes
    assert all(b["right"] <= width and b["width"] > 0 for b in notes)
    caption = boxes(page, f"{box} .explorer-caption")[0]
    assert caption["right"] <= width
    assert caption["scrollWidth"] <= caption["clientWidth"]
    return heights


def dealt_on_a_phone(contexts: Any, site: str) -> Any:
    page = contexts(**PHONE).new_page()
    start_solo(page, site)
    page.get_by_role("button", name="Skip the walkthrough").tap()
    deal(page)
    wait_engine(page)
    return page


def lock_house_way(page: Any) -> None:
    page.get_by_role("button", name="House way").tap()
    expect(page.locator("#coach-compare")).to_contain_text("Your setting is the house way")
    page.get_by_role("button", name="Lock", exact=True).tap()
    expect(page.get_by_role("status").first).to_contain_text(re.compile(r"Win|Push|Loss"))


def test_on_a_phone_the_coach_is_by_the_cards_and_luck_says_its_scale(
    contexts: Any, site: str
) -> None:
    page = dealt_on_a_phone(contexts, site)

    # Two cards that are not the house way: the coach compares, next to the cards.
    cards = page.locator("#cards button.card")
    cards.nth(0).tap()
    cards.nth(6).tap()
    coach = page.locator("#coach-compare")
    expect(coach).to_contain_text(re.compile(r"The house way sets|Your setting is the house way"))
    expect(page.locator("#hand #coach-compare")).to_have_count(1)
    actions = boxes(page, "#actions")[0]
    compare = boxes(page, "#coach-compare")[0]
    explorer = boxes(page, "#explorer")[0]
    assert 0 <= compare["top"] - actions["bottom"] <= 60, (actions, compare)
    assert compare["bottom"] <= explorer["top"] or explorer["height"] == 0
    coach.scroll_into_view_if_needed()
    expect(coach).to_be_in_viewport()
    screenshot(page, "phone-coach-by-the-cards-375x812")
    assert blocking(page) == []

    lock_house_way(page)
    # Locked: the comparison is back in the coaching panel.
    expect(page.locator(".coach #coach-compare")).to_have_count(1)

    # Luck, with its scale.
    expect(page.locator("#luck")).to_contain_text(re.compile(r"Luck \d+\.\d \(\d+\.\d–\d+\.\d\)"))
    scale = page.locator("#luck-scale")
    expect(scale).to_be_visible()
    expect(scale).to_contain_text("Luck runs from 1 to 10")
    expect(scale).to_contain_text("5.5 is an even deal")
    expect(page.locator("#session-text")).to_contain_text("on the 1–10 scale")
    assert blocking(page) == []


def test_on_a_phone_the_explorer_is_a_compact_row_a_setting(contexts: Any, site: str) -> None:
    page = dealt_on_a_phone(contexts, site)
    lock_house_way(page)
    page.get_by_role("button", name="Explore the 21 settings").tap()
    expect(page.locator(".explorer-status")).to_contain_text(
        re.compile(r"^Done: "), timeout=REFINED)
    expect(page.locator(".exact-status")).to_contain_text(
        re.compile(r"^Exact over all"), timeout=REFINED)
    expect(page.locator("#explorer .table-scroll").first).to_be_hidden()
    estimate = assert_compact(page, "#explorer-out")
    exact = assert_compact(page, "#explorer-exact")
    print(f"phone explorer rows (px): estimate {min(estimate)}–{max(estimate)}, "
          f"exact {min(exact)}–{max(exact)}")
    mine = page.locator("#explorer-out .explorer-list > li.yours")
    expect(mine).to_have_count(1)
    expect(mine.locator(".xl-notes")).to_contain_text("house way, yours")
    expect(mine.locator(".xl-counts")).to_have_text(re.compile(r"^W/P/L \d+/\d+/\d+$"))
    mine.scroll_into_view_if_needed()
    expect(mine.locator(".xl-notes")).to_be_in_viewport()
    expect(mine.locator(".xl-counts")).to_be_in_viewport()

    # The details on demand: a tap opens them, within the width.
    first = page.locator("#explorer-out .explorer-list > li").first
    details = first.locator(".xl-details")
    expect(details).to_be_hidden()
    first.locator("summary").tap()
    expect(details).to_be_visible()
    expect(details).to_contain_text(
        re.compile(r"^Front: .+Back: .+Expected score [01]\.\d{3}, 95% interval "))
    opened = boxes(page, "#explorer-out .explorer-list > li:first-child .xl-details")[0]
    assert opened["right"] <= PHONE["width"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "phone-explorer-375x812")
    first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot(page, "phone-explorer-rows-375x812")))  # the window only
    assert blocking(page) == []
