"""The guide a seat gets with its deal (engine.guide): the same answers as the
page's engine ops, only the seat's own cards, and the coach's wording."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    DECK,
    DealSnapshot,
    SeatState,
    answer,
    deal_hands,
    guide_view,
    hand_guide,
    house_way,
    seat_view,
    shuffle_deck,
)
from games.engine.guide import guide_of_indices
from tests.conftest import REPO

seven_cards = st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True)
CODE = re.compile(r'"(JK|[AKQJT98765432][shdc])"')


@given(seven_cards)
@settings(max_examples=300, database=None)
def test_the_guide_agrees_with_describe_house_way_and_the_compare_ops(cards: list[str]) -> None:
    view = guide_view(cards)
    hw = answer({"op": "house_way_detail", "cards": cards})
    settings_ = view["settings"]
    assert isinstance(settings_, list)
    assert len(settings_) == 21
    shown = view["house_way"]
    assert isinstance(shown, dict)
    assert {k: shown[k] for k in ("front_name", "back_name", "row", "reason")} == {
        k: hw[k] for k in ("front_name", "back_name", "row", "reason")}
    assert " ".join(shown["front"]) == hw["front"]
    assert " ".join(shown["back"]) == hw["back"]
    assert [s["front"] for s in settings_ if s.get("house_way")] == [shown["front"]]
    for row, guided in zip(answer({"op": "settings", "cards": cards})["settings"],
                           hand_guide(cards).settings, strict=True):
        back = [c for c in cards if c not in guided.front]
        assert " ".join(guided.front) == row["front"]
        assert (guided.front_name, guided.back_name) == (row["front_name"], row["back_name"])
        assert (guided.foul, guided.foul_reason) == (row["foul"], row["foul_reason"])
        assert guided.house_way == row["house_way"]
        assert guided.front_cmp == answer(
            {"op": "compare_front", "a": list(guided.front), "b": shown["front"]})["cmp"]
        assert guided.back_cmp == answer(
            {"op": "compare_back", "a": back, "b": shown["back"]})["cmp"]


@given(seven_cards)
@settings(max_examples=300, database=None)
def test_the_guide_names_no_card_outside_the_seats_seven(cards: list[str]) -> None:
    for front in (None, house_way(cards).setting.front, cards[:2]):
        text = json.dumps(guide_view(cards, front))
        assert set(CODE.findall(text)) <= set(cards)


@given(seven_cards)
@settings(max_examples=300, database=None)
def test_the_coach_never_names_two_different_backs_alike(cards: list[str]) -> None:
    """The kicker is named when only a kicker differs (issue #19)."""
    g = hand_guide(cards)
    house_back = g.house_way.back_name
    for s in g.settings:
        mine, theirs = s.back_words
        assert (mine == theirs) == (s.back_cmp == 0), (s, mine, theirs)
        plain = (mine, theirs) == (s.back_name.lower(), house_back.lower())
        # Kickers are named exactly when the two backs differ under one name.
        assert plain == (s.back_cmp == 0 or s.back_name != house_back), (s, mine, theirs)


def test_the_coach_names_the_kicker_that_decides() -> None:
    g = hand_guide("9s 9h Ks Qd 7c 5d 2h")
    assert g.house_way.front == ("Ks", "Qd")
    assert g.setting("Qd 7c").back_words == (
        "pair of nines, king kicker", "pair of nines, seven kicker")
    assert g.setting("Ks 7c").back_words == (
        "pair of nines, queen kicker", "pair of nines, seven kicker")
    assert g.setting("Ks 5d").back_words == (
        "pair of nines, queen kicker", "pair of nines, seven kicker")


def test_the_coach_names_deeper_high_cards() -> None:
    # No pair: the house way keeps the ace in back; a back of ace-king against ace-nine.
    g = hand_guide("As Kd Qh 9c 7s 5d 2h")
    assert g.house_way.front == ("Qh", "Kd")
    assert g.setting("Qh 9c").back_words == ("ace-king high", "ace-nine high")
    assert g.setting("Kd 9c").back_words == ("ace-queen high", "ace-nine high")


def test_only_a_setting_whose_names_tie_carries_back_words() -> None:
    view = guide_view("9s 9h Ks Qd 7c 5d 2h")
    by_front = {" ".join(s["front"]): s for s in view["settings"]}  # type: ignore[union-attr]
    assert by_front["Qd 7c"]["back_words"] == [
        "pair of nines, king kicker", "pair of nines, seven kicker"]
    assert "back_words" not in by_front["Ks Qd"]  # the house way itself
    assert "back_words" not in by_front["9s 9h"]  # king high against a pair of nines


def test_a_foul_setting_is_explained() -> None:
    aces = hand_guide("As Ah 8d 8c Ks 7h 4d").setting(["Ah", "As"])
    assert aces.foul_reason == "Your front, a pair of aces, beats your back, a pair of eights."
    assert (aces.front_cmp, aces.back_cmp) == (1, -1)


def test_a_locked_guide_has_only_the_locked_setting() -> None:
    view = guide_view("As Ah 8d 8c Ks 7h 4d", "Ks 7h")
    assert [s["front"] for s in view["settings"]] == [["Ks", "7h"]]  # type: ignore[union-attr]


def test_a_front_not_of_the_hand_is_refused_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="not two of these seven cards"):
        hand_guide("As Ah 8d 8c Ks 7h 4d").setting("2c 3c")
    assert answer({"op": "guide", "cards": "As Ah 8d 8c Ks 7h 4d", "front": "2c 3c"}) == {
        "error": "That front is not two of these seven cards."}


def test_the_guide_is_computed_once_per_hand_whatever_the_card_order() -> None:
    guide_of_indices.cache_clear()
    first = hand_guide("As Ah 8d 8c Ks 7h 4d")
    again = hand_guide(["4d", "7h", "Ks", "8c", "8d", "Ah", "As"])
    assert again is first
    assert guide_of_indices.cache_info().misses == 1


def test_each_view_gets_its_own_guide_dicts() -> None:
    """The memo holds frozen data: a frame changed after it was built changes no other."""
    a = guide_view("As Ah 8d 8c Ks 7h 4d")
    a["settings"].clear()  # type: ignore[union-attr]
    assert len(guide_view("As Ah 8d 8c Ks 7h 4d")["settings"]) == 21  # type: ignore[arg-type]


def _snapshot(*, locked: bool, revealed: bool) -> DealSnapshot:
    import random

    deck = shuffle_deck(random.Random(7))
    a, b = deal_hands(deck)
    hw_a, hw_b = house_way(a).setting, house_way(b).setting
    first = SeatState(a, hw_a.front, hw_a.back) if locked else SeatState(a)
    return DealSnapshot(seats=(first, SeatState(b, hw_b.front, hw_b.back)), revealed=revealed,
                        commitment="c0ffee", deck_order=deck, secret="s3cr3t")


@pytest.mark.parametrize(("locked", "revealed"), [(False, False), (True, False), (True, True)])
def test_only_the_seats_own_part_has_a_guide(locked: bool, revealed: bool) -> None:
    snap = _snapshot(locked=locked, revealed=revealed)
    for viewer in (0, 1):
        view = seat_view(snap, viewer)
        mine, other = view["you"], view["other"]
        assert isinstance(mine, dict)
        assert isinstance(other, dict)
        assert "guide" in mine
        assert "guide" not in other
        guide_text = json.dumps(mine["guide"])
        assert set(CODE.findall(guide_text)) <= set(snap.seats[viewer].cards)
    assert "guide" not in json.dumps(seat_view(snap, None))


def test_a_seat_choosing_gets_21_settings_and_a_locked_seat_its_own() -> None:
    snap = _snapshot(locked=False, revealed=False)
    mine = seat_view(snap, 0)["you"]
    theirs = seat_view(snap, 1)["you"]
    assert isinstance(mine, dict)
    assert isinstance(theirs, dict)
    assert len(mine["guide"]["settings"]) == 21
    assert [s["front"] for s in theirs["guide"]["settings"]] == [
        list(snap.seats[1].front or ())]


def test_the_client_tests_guide_fixture_is_the_engines_answer() -> None:
    """frontend/test/table-state.test.mjs plays with guides the engine made."""
    fixture = json.loads((REPO / "frontend/test/guide-fixture.json").read_text())
    assert len(fixture["hands"]) == 3
    for hand in fixture["hands"]:
        assert hand["guide"] == guide_view(hand["cards"], hand.get("front"))
