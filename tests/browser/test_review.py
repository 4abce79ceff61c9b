"""The review deck in a real browser: a player whose seeded deals gave up
enough (exact costs) sees the count in the header and the lobby, opens the
deck, is dealt the worst hand again, sets it by tapping two cards, and sees
at once the exact figures of all 21 settings with their setting then and now
and the house way with its reason; a miss goes back to box 1, the best moves
up. axe finds nothing serious and nothing is wider than a phone."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.axe import blocking
from tests.browser.conftest import screenshot, sign_up
from tests.browser.test_accessibility import VIEWPORTS, settle, too_wide
from tests.browser.test_history import seed_site
from tests.conftest import REPO


def seed_review(username: str) -> str:
    """Cost the player's revealed hands exactly (each suit class analysed and
    stored, as the background task does) and read the deck; a JSON object of
    each card's id to its best front and its setting then (run inside the
    live site's database by ``manage.py shell``)."""
    from accounts.models import User
    from games.models import Hand
    from games.services import analysis, costs
    from games.services.review import review_deck_sync

    user = User.objects.get(username=username)
    for hand in Hand.objects.filter(seat__user=user).exclude(result="").select_related(
            "deal__table"):
        found = analysis.exact_analysis_compute(cards=hand.cards, mode=hand.deal.table.mode)
        chosen = next(r for r in found.settings if set(r.front) == set(hand.front.split()))
        costs.hand_cost_record(
            hand_id=hand.pk, chosen_expected=chosen.expected, best_expected=found.best.expected,
            best_front=list(found.best.front), opponents=found.opponents, exact=True)
    review_deck_sync(user=user)
    cards = {}
    for card in user.review_cards.all():
        found = analysis.exact_analysis_compute(cards=card.cards, mode=card.mode)
        cards[card.pk] = {"best": list(found.best.front), "then": card.front.split()}
    return json.dumps(cards)


def seed_review_site(tmp_path_factory: pytest.TempPathFactory, username: str) -> dict[int, Any]:
    """``seed_review`` in the live site's own embedded database."""
    (var_dir,) = [p for p in tmp_path_factory.getbasetemp().glob("site-var*")
                  if p.is_dir() and not p.is_symlink()]
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG", "SECRET_KEY"}
           and not k.startswith("PYTEST_")}
    env["PAIGOW_VAR_DIR"] = str(var_dir)
    code = f"from tests.browser.test_review import seed_review; print(seed_review({username!r}))"
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=REPO, env=env,
                          check=True, capture_output=True, text=True)
    return {int(k): v for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}


def tap(page: Any, front: list[str]) -> None:
    """Set the hand by tapping the two front cards, then the button."""
    cards = page.locator("#cards button.card")
    expect(cards).to_have_count(7)
    for code in front:
        page.locator(f"#cards button.card[data-code='{code}']").click()
    for code in front:
        expect(page.locator(f"#cards button[data-code='{code}']")).to_have_attribute(
            "aria-pressed", "true")
    expect(page.locator("#front-label")).to_have_text(re.compile(r"^Front: (?!pick)\w"))
    page.get_by_role("button", name="Set the hand").click()


def see_figures(page: Any) -> None:
    result = page.locator("#result")
    expect(result.get_by_role("heading", level=2)).to_be_focused()
    expect(result.locator("#review-figures tbody tr")).to_have_count(21)
    expect(result.locator("#review-figures caption")).to_contain_text(
        "every one of the 53,524,680 opponent hands")
    expect(result.locator("#setting-then dt")).to_contain_text("Your setting then")
    expect(result.locator("#setting-now dt")).to_contain_text("Your setting now")
    expect(result.locator("#setting-house dt")).to_contain_text("House way")
    expect(result.locator("#setting-house .reason-text")).not_to_be_empty()
    expect(result.locator(".mini-card.drawn").first).to_be_visible()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_due_hand_is_dealt_set_by_tapping_and_shows_its_exact_figures(
    contexts: Any, site: str, tmp_path_factory: pytest.TempPathFactory, viewport: str,
) -> None:
    page = contexts(**VIEWPORTS[viewport]).new_page()
    width = VIEWPORTS[viewport]["width"]
    name = sign_up(page, site)
    seed_site(tmp_path_factory, name)
    cards = seed_review_site(tmp_path_factory, name)
    assert len(cards) >= 2, cards  # the seeded deals that left the house way gave up enough

    page.goto(f"{site}/lobby/")
    due = len(cards)
    expect(page.locator("#review-link")).to_have_text(f"Review {due} hands due")
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.locator("#nav-review")).to_have_text(f"Review ({due} due)")
    nav.locator("#nav-review").click()
    page.wait_for_url(re.compile(r"/review/$"))
    expect(page.locator("#review-deck tbody tr")).to_have_count(due)
    settle(page)
    assert blocking(page) == []
    assert too_wide(page, width) is None

    # The worst hand, dealt again; set as it was then: a miss.
    page.locator("#review-next").click()
    page.wait_for_url(re.compile(r"/review/\d+/$"))
    card_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    expect(page.locator("#pick")).to_be_hidden()
    expect(page.locator("#result")).to_be_empty()
    settle(page)
    assert blocking(page) == []
    assert too_wide(page, width) is None
    tap(page, cards[card_id]["then"])
    see_figures(page)
    result = page.locator("#result")
    expect(result.get_by_role("heading", level=2)).to_have_text("Not the best setting")
    expect(result.locator("#setting-then dt")).to_contain_text("the same as now")
    expect(result.locator("#review-next-date")).to_have_text(
        "Back to box 1: this hand comes back tomorrow.")
    expect(page.locator("#review-box")).to_contain_text(
        "Box 1 of 5 (the higher the box, the longer the hand stays away). This hand comes back "
        "tomorrow.")
    settle(page)
    assert blocking(page) == []
    assert too_wide(page, width) is None
    screenshot(page, f"review-miss-{viewport}")

    # The next due hand, set at the best: it moves to box 2.
    page.locator("#next").click()
    page.wait_for_url(re.compile(r"/review/\d+/$"))
    card_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    tap(page, cards[card_id]["best"])
    see_figures(page)
    expect(result.get_by_role("heading", level=2)).to_have_text("Best setting")
    expect(result.locator("#review-next-date")).to_have_text(
        "Now in box 2 of 5: this hand comes back tomorrow.")
    # Reloaded, the answered hand shows its figures, and the count went down by two.
    page.reload()
    expect(page.locator("#review-figures tbody tr")).to_have_count(21)
    left = due - 2
    expect(page.locator("#nav-review")).to_have_text(
        f"Review ({left} due)" if left else "Review")
    screenshot(page, f"review-best-{viewport}")
