"""The history pages in a real browser: a player with a few revealed deals
opens the history, a session summary and the skill report, and the charts
(uPlot, served by the site) are drawn on canvases of real size."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot, sign_up
from tests.conftest import REPO

# (player's cards, dealer's cards, player's front or None for the house way, luck)
SEED = [
    ("As Ah Kd Kc Qs Qh 2d", "Js 9h 7d 5c 4s 3h 2c", None, (100, 10, 10)),
    ("Ad 9c 2h 6h Qc 5h 7s", "2s 9h 3h 6s Ks Th As", "7s 6h", (60, 0, 60)),
    ("Kc 7h Kd 3s 3c As 4c", "8c 7d Tc Ac 6h Jh 5d", "3s 7h", None),
    ("5c 3d Jc Ac Kh Js 9c", "7c 8s Qc 4s 2c 2h Jd", "Js 3d", (20, 20, 80)),
]


def seed(username: str) -> int:
    """Play the SEED deals for ``username`` at a new solo table through the
    services (run inside the live site's database by ``manage.py shell``)."""
    from accounts.models import User
    from games import engine, services
    from games.services import tables
    from tests.support import deck_with

    user = User.objects.get(username=username)
    table = services.table_start(user=user, mode="solo")
    for mine, dealer, front, luck in SEED:
        tables._new_deck = lambda m=mine, d=dealer: deck_with(m, d)  # type: ignore[assignment]
        services.stake_propose(user=user, table_id=table.pk, amount=25)
        deal = services.deal_start(user=user, table_id=table.pk)
        chosen = front.split() if front else list(engine.house_way(mine).setting.front)
        services.setting_lock(user=user, table_id=table.pk, front=chosen)
        if luck:
            services.luck_record(user=user, table_id=table.pk, deal_number=deal.number,
                                 wins=luck[0], pushes=luck[1], losses=luck[2])
    return table.pk


def seed_site(tmp_path_factory: pytest.TempPathFactory, username: str,
              seeder: str = "tests.browser.test_history:seed") -> int:
    """Seed the live site's own embedded database (the `site` fixture's folder)
    with ``seeder`` ("module:function", given the username, answering an id)."""
    (var_dir,) = [p for p in tmp_path_factory.getbasetemp().glob("site-var*")
                  if p.is_dir() and not p.is_symlink()]
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG", "SECRET_KEY"}
           and not k.startswith("PYTEST_")}
    env["PAIGOW_VAR_DIR"] = str(var_dir)
    module, function = seeder.split(":")
    code = f"from {module} import {function}; print({function}({username!r}))"
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=REPO, env=env,
                          check=True, capture_output=True, text=True)
    return int(done.stdout.strip().splitlines()[-1])


def assert_charts_drawn(page: Any, count: int) -> None:
    charts = page.locator("figure.chart[data-drawn='true']")
    expect(charts).to_have_count(count)
    sizes = page.locator("figure.chart canvas").evaluate_all(
        "cs => cs.map(c => [c.width, c.height, c.getBoundingClientRect().width])"
    )
    assert len(sizes) >= count, sizes
    assert all(w > 100 and h > 100 and box > 100 for w, h, box in sizes), sizes


def test_history_session_and_skill_report_draw_their_charts(
    page: Any, site: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    name = sign_up(page, site)
    table_id = seed_site(tmp_path_factory, name)

    page.get_by_role("link", name="History").first.click()
    page.wait_for_url(re.compile(r"/history/$"))
    expect(page.get_by_role("heading", name="Your deals")).to_be_visible()
    rows = page.locator("table.history-table tbody tr")
    expect(rows).to_have_count(len(SEED))
    expect(page.locator(".mini-card").first).to_be_visible()
    # The cards are drawn with the table's own faces, and keep their names.
    expect(page.locator(".mini-card.drawn svg.svg-face").first).to_be_visible()
    expect(page.get_by_role("img", name="Ace of spades").first).to_be_attached()
    expect(page.get_by_text("left the house way").first).to_be_visible()
    assert_charts_drawn(page, 2)
    screenshot(page, "history-1280")

    page.get_by_label("Result").select_option("loss")
    page.get_by_role("button", name="Filter").click()
    expect(rows).to_have_count(1)

    rows.first.get_by_role("link").click()
    page.wait_for_url(re.compile(r"/history/deals/\d+/"))
    expect(page.locator(".skill-arithmetic .equation")).to_contain_text("=")
    expect(page.get_by_role("heading", name=re.compile("The house way"))).to_be_visible()

    page.goto(f"{site}/history/sessions/{table_id}/")
    assert_charts_drawn(page, 2)
    expect(page.locator(".figures")).to_contain_text("Deals played")

    page.goto(f"{site}/history/skill/")
    expect(page.get_by_role("heading", name="Skill report")).to_be_visible()
    assert_charts_drawn(page, 2)
    screenshot(page, "skill-report-1280")

    with page.expect_download() as download:
        page.goto(f"{site}/history/")
        page.get_by_role("link", name="Download CSV").click()
    path = Path(download.value.path())
    assert path.read_text().count("\n") == len(SEED) + 1


def test_the_session_and_the_report_show_the_decision_cost_and_link_what_to_review(
    page: Any, site: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Seeded through the services, each reveal's cost is worked out exactly
    in the background (embedded: at once, once the reveal commits)."""
    name = sign_up(page, site)
    table_id = seed_site(tmp_path_factory, name)

    page.goto(f"{site}/history/sessions/{table_id}/")
    figures = page.locator(".figures")
    expect(figures).to_contain_text(re.compile(r"Average loss per deal\s*0\.\d{3}"))
    expect(figures).to_contain_text(re.compile(r"Set at the best\s*\d+%"))
    expect(page.get_by_role("heading", name="Decisions to review")).to_be_visible()
    review = page.locator(".worst-list a")
    expect(review.first).to_be_visible()
    screenshot(page, "session-decision-cost-1280")

    page.goto(f"{site}/history/skill/")
    expect(page.locator(".figures")).to_contain_text(re.compile(r"Set at the best\s*\d+%"))
    for table in ("By house-way row", "By mode"):
        region = page.get_by_role("region", name=table)
        expect(region.get_by_role("columnheader", name="Average loss")).to_be_visible()
    page.locator(".worst-list a").first.click()
    page.wait_for_url(re.compile(r"/history/deals/\d+/"))
    expect(page.locator(".decision-cost")).to_contain_text(
        re.compile(r"Gave up 0\.\d{3} against the best:.*exact")
    )
    page.goto(f"{site}/rules/#decision-cost")
    expect(page.get_by_role("heading", name="How it differs from decision skill")).to_be_visible()
