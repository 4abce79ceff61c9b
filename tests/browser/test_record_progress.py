"""The record's progress in a real browser, on a phone and on a desktop: the
decision cost over time drawn as an inline SVG (no script, nothing from
another site) of real size, its figures in a table a screen reader can read,
and a sentence per house-way row setting the player's cost beside the house
way's; no serious axe violation and nothing wider than the window."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.axe import blocking
from tests.browser.conftest import screenshot, sign_up
from tests.browser.test_accessibility import VIEWPORTS, too_wide
from tests.browser.test_history import SEED, seed_site

SENTENCE = re.compile(r"^.+: you give up \d\.\d{3} per hand over \d+ hands?; "
                      r"the house way gives up \d\.\d{3} on the same hands\.$")


def seed_costed(username: str) -> int:
    """The history's SEED deals, each costed exactly (the sweep runs what the
    reveals queued, if anything is left)."""
    from games.services import costs
    from tests.browser.test_history import seed

    table_id = seed(username)
    while costs.hand_costs_sweep(size=50):
        pass
    return table_id


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_record_draws_the_decision_cost_over_time_and_says_each_row(
    contexts: Any, site: str, tmp_path_factory: pytest.TempPathFactory, viewport: str
) -> None:
    page = contexts(**VIEWPORTS[viewport]).new_page()
    name = sign_up(page, site)
    seed_site(tmp_path_factory, name, seeder="tests.browser.test_record_progress:seed_costed")
    page.goto(f"{site}/record/")

    section = page.locator("#record-progress-section")
    expect(section.get_by_role("heading", name="Progress: what your decisions give up")
           ).to_be_visible()
    expect(section).to_contain_text("lower is better")
    expect(page.locator("#record-progress-latest")).to_contain_text(
        f"Over your {len(SEED)} decisions so far you gave up")

    chart = section.get_by_role("img", name="Your average decision cost over time")
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    width = VIEWPORTS[viewport]["width"]
    assert box is not None
    assert 300 <= box["width"] <= width, box
    assert box["height"] > 150, box
    lines = chart.locator("polyline")
    expect(lines).to_have_count(2)
    for index in range(2):
        points = lines.nth(index).get_attribute("points") or ""
        assert len(points.split()) == len(SEED), points
        drawn = lines.nth(index).bounding_box()
        assert drawn is not None
        assert drawn["width"] > box["width"] / 2  # it spans the decisions

    rows = section.locator("#record-progress-rows-list li")
    assert rows.count() >= 2  # SEED's hands fall in several house-way rows
    for text in rows.all_inner_texts():
        assert SENTENCE.match(text), text

    # The figures, for anyone who cannot see the chart.
    section.get_by_text("The chart's figures").click()
    table = section.get_by_role("table", name=re.compile("Average decision cost"))
    expect(table).to_be_visible()
    expect(table.locator("tbody tr")).to_have_count(1)  # the latest of four decisions
    expect(table.locator("tbody th")).to_have_text(str(len(SEED)))

    assert blocking(page) == []
    assert too_wide(page, width) is None
    screenshot(page, f"record-progress-{viewport}")
