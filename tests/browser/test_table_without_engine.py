"""The table never waits for the engine (issue #18): with every request for the
Pyodide runtime, the engine archive, its worker and the client manifest
refused, a whole solo deal is played from the frames' guide: live hand names,
House way, coaching, the foul warning before the lock and Lock anyway, the
reveal and the result; the page says once that the engine is unavailable."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import screenshot
from tests.browser.test_table import deal, start_solo, state_frame

# Everything the engine worker needs, under the site's static URL.
ENGINE_FILES = re.compile(r"/static/(manifest\.json|pyodide/|engine/|js/engine-)")
UNAVAILABLE = "The engine did not load on this device"
CARD_NAME = re.compile(r"(Ace|King|Queen|Jack|Ten|Nine|Eight|Seven|Six|Five|Four|Three|Two) of")


def _refuse_the_engine(context: Any) -> tuple[Any, list[str]]:
    page = context.new_page()
    refused: list[str] = []

    def refuse(route: Any) -> None:
        refused.append(route.request.url)
        route.abort()

    page.route(ENGINE_FILES, refuse)
    return page, refused


def _foul_front(frame: dict[str, Any]) -> list[str] | None:
    fouls = [s["front"] for s in frame["deal"]["you"]["guide"]["settings"] if s.get("foul_reason")]
    return fouls[0] if fouls else None


def _pick(page: Any, front: list[str]) -> None:
    for code in front:
        page.locator(f"#cards button.card[data-code='{code}']").click()
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)


def test_a_whole_solo_deal_without_the_engine(contexts: Any, site: str) -> None:
    context = contexts()
    page, refused = _refuse_the_engine(context)
    start_solo(page, site)
    note = page.locator("#engine-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text(UNAVAILABLE)
    expect(note).to_contain_text("luck")
    expect(page.locator("#table")).to_have_attribute("data-engine", "failed")
    assert refused, "the engine's files were never asked for"

    # A hand with a foul among its 21 settings (nearly every hand has one).
    deal(page)
    frame = state_frame(page)
    for _ in range(5):
        if _foul_front(frame):
            break
        page.get_by_role("button", name="House way").click()
        page.get_by_role("button", name="Lock", exact=True).click()
        expect(page.get_by_role("status")).to_contain_text(re.compile(r"Win|Push|Loss"))
        page.get_by_role("button", name=re.compile(r"^Rebet")).click()
        expect(page.locator("#cards button.card")).to_have_count(7)
        frame = state_frame(page)
    foul = _foul_front(frame)
    assert foul, "five deals without a foul setting"

    # Live names from the first frame: two cards picked, the hands named.
    house = frame["deal"]["you"]["guide"]["house_way"]
    other = next((s["front"] for s in frame["deal"]["you"]["guide"]["settings"]
                  if not s.get("foul_reason") and not s.get("house_way")), None)
    if other:
        _pick(page, other)
        expect(page.locator("#front-label")).to_have_text(re.compile(r"^Front: [a-z]"))
        expect(page.locator("#back-label")).to_have_text(re.compile(r"^Back: [a-z]"))
        expect(page.locator("#front-label")).not_to_contain_text(CARD_NAME)
        expect(page.locator("#coach-compare")).to_contain_text("The house way sets")
        for code in other:  # unpick
            page.locator(f"#cards button.card[data-code='{code}']").click()

    # House way: its front, its row and reason, and the coach agrees.
    house_way = page.get_by_role("button", name="House way")
    expect(house_way).to_be_enabled()
    house_way.click()
    row = house['row_words'][:1].lower() + house['row_words'][1:]  # as the page writes it
    expect(page.locator("#house-reason")).to_have_text(
        f"House way ({row}): {house['reason']}")
    expect(page.locator("#coach-compare")).to_contain_text("Your setting is the house way")
    pressed = page.locator("#cards button[aria-pressed='true']")
    assert sorted(pressed.evaluate_all("bs => bs.map(b => b.dataset.code)")) == sorted(
        house["front"])

    # The foul warning before locking, said once; Lock asks for Lock anyway.
    for code in house["front"]:  # unpick
        page.locator(f"#cards button.card[data-code='{code}']").click()
    expect(pressed).to_have_count(0)
    _pick(page, foul)
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("beats your back")
    assert (alert.text_content() or "").count("A foul loses") == 1
    expect(page.locator("#coach-compare")).to_contain_text("This setting is a foul")
    screenshot(page, "table-without-engine-foul-1280")
    lock_anyway = page.get_by_role("button", name="Lock anyway")
    expect(lock_anyway).to_be_hidden()
    page.get_by_role("button", name="Lock", exact=True).click()
    expect(lock_anyway).to_be_visible()
    expect(page.locator("#result")).to_be_empty()
    lock_anyway.click()

    # The reveal and the result; luck waits for the engine, said once above.
    status = page.get_by_role("status")
    expect(status).to_contain_text("Loss")
    expect(status).to_contain_text("fouled")
    expect(page.locator("#other-setting .card-row")).to_have_count(2)
    expect(page.locator("#luck")).to_have_text("Luck: not computed yet.")
    body = page.locator("body").inner_text()
    assert body.count(UNAVAILABLE) == 1, body
    assert not page.get_by_role("button", name="Explore the 21 settings").is_enabled()
    assert state_frame(page)["deal"]["results"]["you"]["luck"] is None

    # The refused files' load errors are this test's own doing, not the page's.
    context.console_errors[:] = [
        text for text in context.console_errors
        if not (ENGINE_FILES.search(text) and "Failed to load resource" in text)
    ]
