"""The 100-hand test in a real browser (3 hands here: PRACTICE_TEST_HANDS in
conftest's site): each hand set by tapping the card buttons and locked with no
hint shown, "Scoring…" while the last lock is scored (at once: the site runs
embedded), the result, and its shared link opened signed out, without the
username; the hands given up most on, added to the review deck and one of them
reviewed from there. axe finds nothing serious on any of the pages, nor any
overflow."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.axe import blocking
from tests.browser.conftest import screenshot, sign_up
from tests.browser.test_accessibility import VIEWPORTS, settle, too_wide

HANDS = 3


def clean(page: Any, width: int) -> None:
    settle(page)
    assert blocking(page) == []
    assert too_wide(page, width) is None


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_short_test_is_set_by_tapping_scored_and_shared(
    contexts: Any, site: str, viewport: str
) -> None:
    width = VIEWPORTS[viewport]["width"]
    page = contexts(**VIEWPORTS[viewport]).new_page()
    name = sign_up(page, site)
    page.goto(f"{site}/practice/test/")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"The {HANDS}-hand test")
    clean(page, width)
    page.get_by_label("Test number").fill("2")
    page.get_by_role("button", name="Start the test").click()
    page.wait_for_url(re.compile(r"/practice/test/\d+/$"))
    attempt_url = page.url
    expect(page.locator("#practice-test")).to_have_attribute("data-ready", "true")
    expect(page.locator("#pick")).to_be_hidden()
    for position in range(1, HANDS + 1):
        expect(page.get_by_role("heading", level=1)).to_have_text(
            f"Test 2: hand {position} of {HANDS}")
        cards = page.locator("#cards button.card")
        expect(cards).to_have_count(7)
        if position == 1:
            clean(page, width)
        cards.nth(5).tap() if VIEWPORTS[viewport].get("has_touch") else cards.nth(5).click()
        cards.nth(6).tap() if VIEWPORTS[viewport].get("has_touch") else cards.nth(6).click()
        expect(cards.nth(5)).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#front-label")).to_have_text(re.compile(r"^Front: (?!pick)\w"))
        # No hint while the test runs: no house way, no figure, no explorer.
        assert "house way" not in page.locator("main").inner_text().lower()
        assert page.locator("#explorer, .explorer").count() == 0
        page.get_by_role("button", name="Lock").click()
    expect(page.locator("#scoring")).to_contain_text("Scoring…")
    page.wait_for_url(attempt_url)
    expect(page.locator("#total-loss")).to_have_text(re.compile(r"^\d\.\d{3}$"), timeout=120_000)
    expect(page.locator("#house-loss")).to_have_text(re.compile(r"^\d\.\d{3}$"))
    expect(page.locator("#every-hand tbody tr")).to_have_count(HANDS)
    clean(page, width)
    total = page.locator("#total-loss").inner_text()
    screenshot(page, f"practice-test-result-{viewport}")
    # The hands given up most on went to the review deck, each linked to its card.
    expect(page.locator("#deck-added")).to_contain_text(
        re.compile(r"^Added to your review deck: hands? \d"))
    in_deck = page.locator("#worst").get_by_role("link", name="In your review deck: review it")
    added = in_deck.count()
    assert added >= 1
    shared = page.locator("#share-link").get_attribute("href")
    assert shared is not None
    assert re.fullmatch(r"/practice/test/shared/[\w-]{40,}/", shared)

    visitor = contexts(**VIEWPORTS[viewport]).new_page()  # signed out
    visitor.goto(f"{site}{shared}")
    expect(visitor.locator("#total-loss")).to_have_text(total)
    expect(visitor.get_by_role("link", name="Sign in")).to_be_visible()
    assert name not in visitor.content()
    clean(visitor, width)

    page.get_by_label("Show my username on the shared result").check()
    page.get_by_role("button", name="Save").click()
    visitor.reload()
    expect(visitor.get_by_role("heading", level=1)).to_contain_text(f"{name}'s result")

    # The deck holds the test's hands, and a card deals one again, linked back to the test.
    page.locator("#deck-link").click()
    page.wait_for_url(f"{site}/review/")
    expect(page.locator("#review-deck tbody tr")).to_have_count(added)
    expect(page.locator("#review-deck").get_by_role("link", name="Test 2")).to_have_count(added)
    page.locator("#review-next").click()
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    expect(page.locator(".table-links")).to_contain_text("of your test's result (Test 2)")
    cards = page.locator("#cards button.card")
    expect(cards).to_have_count(7)
    cards.nth(5).tap() if VIEWPORTS[viewport].get("has_touch") else cards.nth(5).click()
    cards.nth(6).tap() if VIEWPORTS[viewport].get("has_touch") else cards.nth(6).click()
    page.get_by_role("button", name="Set the hand").click()
    result = page.locator("#result")
    expect(result.locator("#review-figures tbody tr")).to_have_count(21)
    expect(result.locator("#setting-then dt")).to_contain_text("Test 2, the same as now")
    clean(page, width)
