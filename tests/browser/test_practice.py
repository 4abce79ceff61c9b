"""The practice table in a real browser: two drill hands set with the card
buttons and locked, each showing the house way, the best setting and what
the setting gave up at once, then the record with its charts; axe finds
nothing serious and nothing is wider than a phone."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.axe import blocking
from tests.browser.conftest import screenshot, sign_up
from tests.browser.test_accessibility import VIEWPORTS, settle, too_wide


def set_and_lock(page: Any) -> None:
    """Pick the first two cards (a foul is allowed in practice) and lock."""
    cards = page.locator("#cards button.card")
    expect(cards).to_have_count(7)
    cards.nth(0).click()
    cards.nth(1).click()
    expect(cards.nth(0)).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#front-label")).to_have_text(re.compile(r"^Front: (?!pick)\w"))
    page.get_by_role("button", name="Lock").click()


def see_result(page: Any) -> None:
    result = page.locator("#result")
    expect(result.get_by_role("heading", level=2)).to_be_focused()
    expect(result.locator(".practice-setting.house dt")).to_contain_text("House way")
    expect(result.locator(".practice-setting.best dt")).to_contain_text("Best setting")
    expect(result.locator("#verdict")).to_have_text(
        re.compile(r"Your setting is the best one|Your setting gave up \d\.\d{3} of a point"))
    expect(result.locator("#basis")).to_contain_text("An estimate over 20,000 random opponents")
    expect(result.locator(".mini-card.drawn").first).to_be_visible()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_two_drill_hands_show_the_house_way_the_best_and_the_loss_then_the_record(
    contexts: Any, site: str, viewport: str
) -> None:
    page = contexts(**VIEWPORTS[viewport]).new_page()
    width = VIEWPORTS[viewport]["width"]
    sign_up(page, site)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Practice").click()
    assert blocking(page) == []
    assert too_wide(page, width) is None
    page.get_by_label("Two pair").check()
    page.get_by_role("button", name="Deal a hand").click()
    page.wait_for_url(re.compile(r"/practice/hands/\d+/$"))
    first_url = page.url
    expect(page.locator("#practice")).to_have_attribute("data-ready", "true")
    expect(page.locator("#pick")).to_be_hidden()
    assert blocking(page) == []
    assert too_wide(page, width) is None

    set_and_lock(page)
    see_result(page)
    assert blocking(page) == []
    assert too_wide(page, width) is None
    screenshot(page, f"practice-result-{viewport}")

    page.get_by_role("button", name="Next hand").click()
    expect(page.locator("#cards button.card").first).to_be_focused()
    assert page.url != first_url
    expect(page.locator("#result")).to_be_empty()
    set_and_lock(page)
    see_result(page)

    page.goto(f"{site}/practice/record/")
    settle(page)
    expect(page.locator("#record-hands")).to_have_text("2")
    expect(page.locator("#by-drill tbody tr")).to_have_count(1)
    expect(page.locator("#by-drill tbody td").first).to_have_text("Two pair")
    axis = page.locator("figure[data-chart=practice-accuracy]").get_attribute("data-axis-x")
    assert axis is not None
    assert all(re.fullmatch(r"\d+", label) for label in re.findall(r'"([^"]*)"', axis))
    assert blocking(page) == []
    assert too_wide(page, width) is None


def test_a_locked_hand_reloaded_shows_its_result_and_a_second_lock_is_refused(
    page: Any, site: str
) -> None:
    sign_up(page, site)
    page.goto(f"{site}/practice/")
    page.get_by_role("button", name="Deal a hand").click()
    expect(page.locator("#practice")).to_have_attribute("data-ready", "true")
    set_and_lock(page)
    see_result(page)
    page.reload()
    expect(page.locator("#lock-form")).to_be_hidden()
    expect(page.locator("#result .practice-setting.house")).to_be_visible()
    view = json.loads(page.locator("#practice-state").text_content() or "{}")
    token = page.locator("input[name=csrfmiddlewaretoken]").first.input_value()
    again = page.request.post(
        f"{site}{view['urls']['lock']}", data=f"front={view['cards'][0]}&front={view['cards'][1]}",
        headers={"Accept": "application/json", "X-CSRFToken": token, "Referer": page.url,
                 "Content-Type": "application/x-www-form-urlencoded"})
    answer = [again.status, again.json()]
    assert answer == [409, {"error": "practice_already_locked", "detail": (
        "You have already locked this practice hand: deal the next hand to practise again.")}]


def test_a_lock_before_the_analysis_says_so_and_locks_again_until_it_is_there(
    contexts: Any, site: str
) -> None:
    """The hand's analysis comes from a worker a moment after the deal: a
    lock that comes first is refused ("practice_analysing"), and the page
    locks again every second, saying so, then shows the result."""
    context = contexts(**VIEWPORTS["desktop"])
    page = context.new_page()
    sign_up(page, site)
    page.goto(f"{site}/practice/")
    page.get_by_role("button", name="Deal a hand").click()
    page.wait_for_url(re.compile(r"/practice/hands/\d+/$"))
    expect(page.locator("#practice")).to_have_attribute("data-ready", "true")
    refused: list[str] = []

    def not_yet(route: Any) -> None:
        if len(refused) < 2:  # the worker has not written it yet, twice
            refused.append(route.request.url)
            route.fulfill(status=409, content_type="application/json", body=json.dumps({
                "error": "practice_analysing",
                "detail": "Your hand is still being analysed (it takes a moment): lock it "
                          "again in a second."}))
        else:
            route.continue_()

    page.route(re.compile(r"/practice/hands/\d+/lock/$"), not_yet)
    set_and_lock(page)
    expect(page.get_by_role("button", name="Analysing your hand…")).to_be_visible()
    see_result(page)
    assert len(refused) == 2
    expect(page.locator("#error")).to_be_hidden()
    # The browser logs each refused fetch; those two are this test's own.
    statuses = [e for e in context.console_errors if "409 (Conflict)" in e and "/lock/" in e]
    assert len(statuses) == 2
    context.console_errors[:] = [e for e in context.console_errors if e not in statuses]
