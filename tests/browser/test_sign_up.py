"""A newcomer signs up in a real browser and lands in the lobby."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import sign_up


def test_a_newcomer_signs_up_and_sees_the_lobby(page: Any, site: str) -> None:
    name = sign_up(page, site)
    assert page.get_by_role("button", name="Play solo").is_visible()
    assert page.get_by_text(f"Signed in as {name}").is_visible()
