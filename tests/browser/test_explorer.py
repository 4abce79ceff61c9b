"""The setting explorer in a real browser: after a lock it refines on the
device, from luck's 120 opponents to thousands more, with each setting's
interval and the best and tied settings said in words."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.axe import blocking
from tests.browser.test_table import deal, start_solo, wait_engine

REFINED = 60_000  # ms: the explorer's later chunks on a slow, loaded CI machine


def test_the_explorer_refines_past_the_first_opponents_with_intervals_and_ties(
    page: Any, site: str
) -> None:
    start_solo(page, site)
    deal(page)
    wait_engine(page)
    page.get_by_role("button", name="House way").click()
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text(re.compile(r"Win|Push|Loss"))

    page.get_by_role("button", name="Explore the 21 settings").click()
    table = page.get_by_role("table", name=re.compile("Expected score"))
    expect(table.get_by_role("row")).to_have_count(22)  # the header row and 21 settings
    # The opponents grow past luck's first 120, the same chunk after chunk.
    page.wait_for_function(
        "() => Number(document.querySelector('.explorer-table')?.dataset.opponents) >= 10000",
        timeout=REFINED,
    )
    expect(page.locator(".explorer-status")).to_contain_text(
        re.compile(r"21 settings × [\d,]+ opponents"))
    steps = page.evaluate("() => window.paigowTimings.explorer.map((s) => s.opponents)")
    assert steps[:3] == [120, 1000, 3000]

    headers = table.get_by_role("columnheader").all_inner_texts()
    assert headers == ["#", "Front", "Back", "Expected (95% interval)", "Against the best",
                       "W/P/L", "Notes"]
    rows = table.locator("tbody tr")
    # Every expected score with its interval as text.
    expected = rows.locator("td:nth-child(4)").all_inner_texts()
    assert all(re.fullmatch(r"[01]\.\d{3} \([01]\.\d{3}–[01]\.\d{3}\)", e) for e in expected)
    # The best first, in words; every other setting tied or behind, in words.
    standings = rows.locator("td:nth-child(5)").all_inner_texts()
    assert standings[0] == "Best"
    assert all(re.match(r"(Tied with the best|Behind the best by) ", s) for s in standings[1:])
    expect(rows.locator("td", has_text=re.compile("^Behind the best")).first).to_be_visible()
    expect(table.locator("tr.house")).to_contain_text("house way, yours")

    # It finishes and says so.
    expect(page.locator(".explorer-status")).to_contain_text(
        re.compile(r"^Done: 21 settings × 50,000 opponents; "), timeout=REFINED)
    expect(page.get_by_role("status").filter(has_text="Done: 21 settings")).to_have_count(1)


def test_the_finished_explorer_fits_a_phone_and_passes_axe(contexts: Any, site: str) -> None:
    page = contexts(width=375, height=812, has_touch=True, is_mobile=True).new_page()
    start_solo(page, site)
    deal(page)
    wait_engine(page)
    page.get_by_role("button", name="House way").tap()
    page.get_by_role("button", name="Lock", exact=True).tap()
    expect(page.get_by_role("status").first).to_contain_text(re.compile(r"Win|Push|Loss"))
    page.get_by_role("button", name="Explore the 21 settings").tap()
    expect(page.locator(".explorer-status")).to_contain_text(re.compile(r"^Done: "),
                                                             timeout=REFINED)
    # The page itself never scrolls sideways (a wide table may scroll in its own box).
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 375
    assert blocking(page) == []


EXACT = 60_000  # ms: the server's first analysis in a process builds its tables (seconds)


def test_after_the_lock_the_explorer_shows_the_exact_figures_from_the_server(
    page: Any, site: str
) -> None:
    start_solo(page, site)
    deal(page)
    wait_engine(page)
    page.get_by_role("button", name="House way").click()
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text(re.compile(r"Win|Push|Loss"))
    page.get_by_role("button", name="Explore the 21 settings").click()

    status = page.locator(".exact-status")
    expect(status).to_contain_text(
        re.compile(r"^Exact over all 53,524,680 opponent hands: the house way "), timeout=EXACT)
    table = page.get_by_role("table", name=re.compile("exact expected score"))
    expect(table.get_by_role("row")).to_have_count(22)
    assert table.get_by_role("columnheader").all_inner_texts() == [
        "#", "Front", "Back", "Exact expected", "Against the best", "Wins / pushes / losses",
        "Notes"]
    rows = table.locator("tbody tr")
    standings = rows.locator("td:nth-child(5)").all_inner_texts()
    assert standings[0] == "Best (gives up 0.000)"
    assert all(re.fullmatch(r"Gives up [01]\.\d{3} against the best.*", s) for s in standings[1:])
    counts = rows.locator("td:nth-child(6)").all_inner_texts()
    assert all(sum(int(n.replace(",", "")) for n in c.split(" / ")) == 53_524_680 for c in counts)
    expect(rows.first.locator("td").last).to_contain_text("best")
    expect(table.locator("tr.house")).to_contain_text("house way, yours")
    # The device's estimate is still there below, refining as before.
    expect(page.get_by_role("table", name=re.compile("Expected score"))).to_be_visible()
