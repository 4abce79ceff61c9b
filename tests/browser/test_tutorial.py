"""The first-table walkthrough in a real browser: a new player's first table
walks them through one real deal (the stake, front and back, the foul, the
house way, Lock, the reveal), in the frame's own words; finished, skipped or
followed by the next deal, it never comes back, after a reload or at a new
table. axe finds nothing serious at any step."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.axe import blocking
from tests.browser.conftest import screenshot, sign_up
from tests.browser.test_table import state_frame
from tests.browser.test_table_phone import PHONE, off_screen

PANEL = "Your first deal, step by step"


def first_table(page: Any, site: str, mode: str = "solo") -> Any:
    sign_up(page, site)
    name = "Play solo" if mode == "solo" else "Invite a friend"
    page.get_by_role("button", name=name).click()
    page.wait_for_url(re.compile(r"/tables/\d+/"))
    if mode == "solo":
        expect(page.locator("#connection")).to_have_text("Connected")
    return page.get_by_role("region", name=PANEL)


def step_title(panel: Any) -> Any:
    return panel.get_by_role("heading", level=3)


def deal(page: Any, stake: int = 20) -> None:
    page.get_by_label("Stake").fill(str(stake))
    page.get_by_role("button", name="Deal", exact=True).click()
    expect(page.locator("#cards button.card")).to_have_count(7)


def saved_end(response: Any) -> bool:
    """The walkthrough's end, POSTed by the page."""
    return response.request.method == "POST" and response.url.endswith("/walkthrough/")


def gone_for_good(page: Any, site: str) -> None:
    """No walkthrough after a reload, nor at a new table of either kind."""
    page.reload()
    expect(page.locator("#connection")).to_have_text("Connected")
    expect(page.locator("#walkthrough")).to_have_count(0)
    for name in ("Play solo", "Invite a friend"):
        page.goto(f"{site}/lobby/")
        page.get_by_role("button", name=name).click()
        page.wait_for_url(re.compile(r"/tables/\d+/"))
        expect(page.locator("#table")).to_be_visible()
        expect(page.locator("#walkthrough")).to_have_count(0)


def test_a_new_player_is_walked_through_the_first_deal(page: Any, site: str) -> None:
    panel = first_table(page, site)
    expect(panel).to_be_visible()
    expect(step_title(panel)).to_have_text("The stake")
    expect(panel).to_contain_text("A win adds the stake to your stack")
    expect(page.locator("#stake")).to_have_class(re.compile("walkthrough-target"))
    assert blocking(page) == []

    deal(page)
    expect(step_title(panel)).to_have_text("Front and back")
    expect(panel).to_contain_text("Pick two for the front; the other five make the back.")
    assert blocking(page) == []
    guide = state_frame(page)["deal"]["you"]["guide"]

    # Next, from the keyboard: the foul, in the guide's own words when these cards can foul.
    panel.get_by_role("button", name="Next").focus()
    page.keyboard.press("Enter")
    expect(step_title(panel)).to_have_text("The back must beat the front")
    reasons = [s["foul_reason"] for s in guide["settings"] if "foul_reason" in s]
    expect(panel).to_contain_text(reasons[0] if reasons else "None of the ways")
    expect(panel.get_by_role("button", name="Next")).to_be_focused()

    page.keyboard.press("Enter")
    expect(step_title(panel)).to_have_text("What House way suggests")
    house = guide["house_way"]
    row = house['row_words'][:1].lower() + house['row_words'][1:]  # as the page writes it
    expect(panel).to_contain_text(f"Why ({row}): {house['reason']}")
    expect(panel).to_contain_text(house["front_name"].lower())
    expect(page.locator("#house-way")).to_have_class(re.compile("walkthrough-target"))

    page.keyboard.press("Enter")
    expect(step_title(panel)).to_have_text("Lock")
    expect(panel.get_by_role("button", name="Next")).to_be_hidden()
    expect(page.locator("#lock")).to_have_class(re.compile("walkthrough-target"))
    assert blocking(page) == []

    page.get_by_role("button", name="House way").click()
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
    expect(step_title(panel)).to_have_text("The reveal")
    results = state_frame(page)["deal"]["results"]
    mine, theirs = results["you"], results["other"]
    expect(panel).to_contain_text(
        f"Front: your {mine['front_name'].lower()} against the dealer's "
        f"{theirs['front_name'].lower()}"
    )
    expect(panel).to_contain_text({"win": "Win:", "push": "Push:", "loss": "Loss:"}[mine["result"]])
    expect(panel).to_contain_text("Decision skill 0")  # the house way was played
    assert blocking(page) == []
    screenshot(page, "walkthrough-reveal")

    panel.get_by_role("button", name="Finish the walkthrough").click()
    expect(panel).to_be_hidden()
    gone_for_good(page, site)


def test_skip_hides_it_and_it_never_comes_back(page: Any, site: str) -> None:
    panel = first_table(page, site)
    deal(page)
    expect(step_title(panel)).to_have_text("Front and back")
    panel.get_by_role("button", name="Skip the walkthrough").click()
    expect(panel).to_be_hidden()
    expect(page.locator(".walkthrough-target")).to_have_count(0)
    # The deal goes on as ever.
    page.get_by_role("button", name="House way").click()
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
    gone_for_good(page, site)


def test_the_next_deal_after_the_reveal_ends_it_as_done(page: Any, site: str) -> None:
    panel = first_table(page, site)
    deal(page)
    page.get_by_role("button", name="House way").click()
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(step_title(panel)).to_have_text("The reveal")
    # The page saves the end on its own as deal 2 comes: the reload waits
    # for that answer (it raced the reload and sometimes came after it).
    with page.expect_response(saved_end) as saved:
        page.get_by_role("button", name="Rebet 20").click()
        expect(page.locator("#commitment")).to_contain_text("Deal 2")
        expect(panel).to_be_hidden()
    assert saved.value.ok
    gone_for_good(page, site)


def test_a_friend_table_starts_with_the_invite(page: Any, site: str) -> None:
    panel = first_table(page, site, mode="friend")
    expect(step_title(panel)).to_have_text("First, your friend")
    expect(page.locator("#invite-button")).to_have_class(re.compile("walkthrough-target"))
    assert blocking(page) == []


def test_on_a_phone_it_pushes_neither_lock_nor_the_foul_warning_off_screen(
    contexts: Any, site: str
) -> None:
    page = contexts(**PHONE).new_page()
    panel = first_table(page, site)
    deal(page)
    expect(step_title(panel)).to_have_text("Front and back")
    assert off_screen(page, "#other-hand", "#cards", "#house-way", "#lock") == {}
    fouls = [s["front"] for s in state_frame(page)["deal"]["you"]["guide"]["settings"]
             if "foul_reason" in s]
    if fouls:  # almost every seven cards can foul; three pairs, for one, cannot
        for code in fouls[0]:
            page.locator(f"#cards button[data-code='{code}']").tap()
        expect(page.locator("#alert")).to_be_visible()
        assert off_screen(page, "#cards", "#lock") == {}
        # The panel comes after the warning: it moves neither the warning nor Lock.
        tops = page.evaluate("""() => ["#lock", "#alert", "#walkthrough"].map(
            (s) => document.querySelector(s).getBoundingClientRect())
            .map((r) => [Math.round(r.top), Math.round(r.bottom)])""")
        (_, lock_bottom), (alert_top, alert_bottom), (panel_top, _) = tops
        assert lock_bottom <= alert_top <= alert_bottom <= panel_top, tops
    screenshot(page, "walkthrough-phone-choosing")
