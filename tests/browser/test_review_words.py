"""Issue #45 in a real browser: every review page draws its hands as the table
does (ranks together, high to low) and says a house-way row in words; a
fouled deal calls no part a win, on the replay and at the table; the foul
warning and the label beside it name the back alike; axe stays clean."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.axe import blocking
from tests.browser.conftest import screenshot, sign_up
from tests.browser.test_history import seed_site
from tests.history.test_review_words import ROW_IDS, in_table_order

# Each row of small cards on a page, as its cards' codes in order (after the
# page's own script drew the faces).
DRAWN = """() => [...document.querySelectorAll('.mini-cards')].map(
  (g) => [...g.querySelectorAll('.mini-card[data-card]')].map((c) => c.dataset.card))"""


def seed_review(username: str) -> int:
    """A solo table (run inside the live site's database by ``manage.py
    shell``): the pair of threes set off the house way, a foul locked anyway,
    and a third deal of the same no-pair hand dealt and left to set."""
    from accounts.models import User
    from games import services
    from games.services import tables
    from tests.history.test_review_words import FOUL_FRONT, NO_PAIR, PAIR, PAIR_FRONT
    from tests.support import WEAK, deck_with

    user = User.objects.get(username=username)
    table = services.table_start(user=user, mode="solo")
    for mine, front in ((PAIR, PAIR_FRONT), (NO_PAIR, FOUL_FRONT), (NO_PAIR, None)):
        tables._new_deck = lambda m=mine: deck_with(m, WEAK)  # type: ignore[assignment]
        services.stake_propose(user=user, table_id=table.pk, amount=25)
        services.deal_start(user=user, table_id=table.pk)
        if front:
            services.setting_lock(user=user, table_id=table.pk, front=front, confirm_foul=True)
    return table.pk


def check_page(page: Any, url: str) -> str:
    """Open a review page: its hands in the table's order, no row id in what
    it shows, no serious axe violation; answers its text."""
    page.goto(url)
    page.wait_for_load_state("networkidle")
    for cards in page.evaluate(DRAWN):
        assert in_table_order(cards), (url, cards)
    text = page.locator("body").inner_text()
    assert ROW_IDS.search(text) is None, (url, ROW_IDS.search(text))
    assert blocking(page) == [], url
    return text


def test_the_review_pages_in_the_tables_order_and_in_words(
    page: Any, site: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    name = sign_up(page, site)
    table_id = seed_site(tmp_path_factory, name, "tests.browser.test_review_words:seed_review")

    text = check_page(page, f"{site}/history/")
    rows = page.locator("table.history-table tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("your foul loses the whole bet")
    expect(rows.first).not_to_contain_text("front win")
    foul_replay, pair_replay = (rows.nth(i).get_by_role("link").get_attribute("href")
                                for i in range(2))

    check_page(page, f"{site}{pair_replay}")
    expect(page.get_by_role("heading", name="The house way (One pair)")).to_be_visible()
    house = page.locator(".replay-side.house .mini-cards").nth(1)
    expect(house.locator(".mini-card")).to_have_count(5)
    # The back as the table shows it: the threes together, after 9 8 4.
    assert page.evaluate(DRAWN)[3] == ["9c", "8d", "4d", "3s", "3c"]

    check_page(page, f"{site}{foul_replay}")
    parts = page.locator("table.compare tbody")
    expect(parts.locator("tr").nth(0).locator("td").first).to_have_text("not played: a foul")
    expect(parts.locator("tr").nth(1).locator("td").first).to_have_text("not played: a foul")
    expect(page.locator(".replay-foul")).to_contain_text("a foul loses the whole bet")
    screenshot(page, "replay-foul-1280")

    text = check_page(page, f"{site}/history/sessions/{table_id}/")
    expect(page.locator(".worst-row").first).to_have_text(re.compile(r"^(One pair|No pair)$"))
    assert "is a what-if ledger" in text

    text = check_page(page, f"{site}/history/skill/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Skill report")
    expect(page.get_by_role("link", name="Skill report")).to_have_attribute("aria-current", "page")
    region = page.get_by_role("region", name="By house-way row")
    expect(region.get_by_role("cell", name="One pair", exact=True)).to_be_visible()
    chart = page.locator("figure[data-chart='skill-rows']")
    expect(chart).to_have_attribute("data-drawn", "true")
    assert set(json.loads(chart.get_attribute("data-axis-x") or "[]")) >= {"One pair", "No pair"}
    screenshot(page, "skill-report-words-1280")

    check_page(page, f"{site}/history/sessions/")
    check_page(page, f"{site}/record/")


def test_the_foul_warning_and_the_label_name_the_back_alike_and_the_result_calls_no_part_a_win(
    page: Any, site: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    name = sign_up(page, site)
    table_id = seed_site(tmp_path_factory, name, "tests.browser.test_review_words:seed_review")
    page.goto(f"{site}/tables/{table_id}/")
    cards = page.locator("#cards button.card")
    expect(cards).to_have_count(7)
    # The seven in the table's order (the review pages follow it).
    assert in_table_order(cards.evaluate_all("bs => bs.map(b => b.dataset.code)"))
    for code in ("As", "Kd"):
        page.locator(f'#cards button.card[data-code="{code}"]').click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("beats your back, ten-eight high.")
    expect(page.locator("#back-label")).to_have_text("Back: ten-eight high")
    page.get_by_role("button", name="Lock", exact=True).click()
    page.get_by_role("button", name="Lock anyway").click()
    result = page.locator("#result")
    expect(result).to_contain_text("Loss: your setting fouled")
    expect(result).to_contain_text("A foul loses the whole bet")
    for setting in ("#your-setting", "#other-setting"):
        expect(page.locator(setting)).not_to_contain_text(re.compile(r"\((win|loss|copy)"))
    assert blocking(page) == []
    screenshot(page, "table-foul-result-1280")
