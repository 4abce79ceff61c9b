"""The guide a seat gets with its deal (engine.guide): the same answers as the
page's engine ops, only the seat's own cards, and the coach's wording."""

from __future__ import annotations

import gc
import itertools
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from typing import Any

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
    hands,
    house_way,
    seat_view,
    shuffle_deck,
)
from games.engine.cards import JOKER, codes, parse_indices
from games.engine.guide import (
    ROW_WORDS,
    Guide,
    GuidedSetting,
    _view_rows,
    back_words,
    guide_of_indices,
    row_words,
)
from games.engine.hands import (
    FRONT_POSITIONS,
    TWO_PAIR,
    back_value_of,
    foul_reason_of_values,
    front_value_of,
    name_of_back_value,
    name_of_front_value,
)
from games.engine.house_way import REASONS, house_way_indices, reference_indices
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


def test_the_hands_a_process_keeps_leave_its_full_collections_nothing_to_visit() -> None:
    """A web process keeps its tables' hands' rows for as long as it lives;
    the cyclic collector visits every object it tracks on each full
    collection, with every socket of the process waiting (docs/benchmarks.md,
    "Sixteenth round": up to 300 ms under load when each hand kept about 80)."""
    rng = random.Random(7)
    dealt = [hand for _ in range(200) for hand in deal_hands(shuffle_deck(rng))]
    _view_rows.cache_clear()
    gc.collect()
    before = len(gc.get_objects())
    for hand in dealt:
        guide_view(hand)
        guide_view(hand, hand[3:5])
    assert _view_rows.cache_info().currsize == 400
    gc.collect(1)  # the young collections, which meet the rows first
    assert len(gc.get_objects()) - before < 2 * len(dealt)
    gc.collect()  # the first full collection that meets what is left
    assert len(gc.get_objects()) - before < 100


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
    assert len(fixture["hands"]) == 4
    for hand in fixture["hands"]:
        assert hand["guide"] == guide_view(hand["cards"], hand.get("front"))


# The guide as it was computed before it was made fast (each setting's two and
# five cards read in turn, the kickers worked out for every back, the JSON
# rows built on every call): the reference the fast guide must equal.
def _reference_guide(hand: tuple[int, ...]) -> Guide:
    (a, b), row = house_way_indices(hand)
    hw_fv = front_value_of((a, b))
    hw_bv = back_value_of(tuple(c for c in hand if c != a and c != b))
    named = codes(hand)
    settings = []
    for i, j in FRONT_POSITIONS:
        front = (hand[i], hand[j])
        rest = [k for k in range(7) if k != i and k != j]
        fv, bv = front_value_of(front), back_value_of([hand[k] for k in rest])
        reason = foul_reason_of_values(fv, bv)
        same = front == (a, b)
        settings.append(GuidedSetting(
            front=(named[i], named[j]), back=tuple(named[k] for k in rest),
            front_name=name_of_front_value(fv), back_name=name_of_back_value(bv),
            foul_reason=reason, house_way=same,
            front_cmp=(fv > hw_fv) - (fv < hw_fv), back_cmp=(bv > hw_bv) - (bv < hw_bv),
            back_words=(back_words(bv, hw_bv), back_words(hw_bv, bv)),
        ))
    return Guide(settings=tuple(settings), row=row, reason=REASONS[row])


def _reference_setting_json(s: GuidedSetting) -> dict[str, object]:
    out: dict[str, object] = {
        "front": list(s.front), "front_name": s.front_name, "back_name": s.back_name,
        "front_cmp": s.front_cmp, "back_cmp": s.back_cmp,
    }
    if s.foul_reason is not None:
        out["foul_reason"] = s.foul_reason
    if s.house_way:
        out["house_way"] = True
    if s.back_words[0] != s.back_name[:1].lower() + s.back_name[1:]:
        out["back_words"] = list(s.back_words)
    return out


def _reference_view(
    seven: str | Iterable[str], front: str | Iterable[str] | None = None
) -> dict[str, object]:
    g = _reference_guide(parse_indices(seven, count=7))
    hw = g.house_way
    chosen = g.settings if front is None else (g.setting(front),)
    return {
        "house_way": {"front": list(hw.front), "back": list(hw.back),
                      "front_name": hw.front_name, "back_name": hw.back_name,
                      "row": g.row, "row_words": ROW_WORDS[g.row], "reason": g.reason},
        "settings": [_reference_setting_json(s) for s in chosen],
    }


def _sorted(cards: list[int]) -> tuple[int, ...]:
    return tuple(sorted(cards))


# Seven of the 53 cards; seven with the joker; seven of two suits and the
# joker (flushes, straight flushes and backs whose names tie, often).
any_seven = st.one_of(
    st.lists(st.integers(0, 52), min_size=7, max_size=7, unique=True).map(_sorted),
    st.lists(st.integers(0, 51), min_size=6, max_size=6, unique=True).map(
        lambda cards: _sorted([*cards, JOKER])),
    st.lists(st.sampled_from([*range(26), JOKER]), min_size=7, max_size=7, unique=True).map(
        _sorted),
)


@given(any_seven)
@settings(max_examples=1500, database=None)
def test_a_guide_computed_fast_equals_the_reference_for_any_seven_cards(
    hand: tuple[int, ...],
) -> None:
    expected = _reference_guide(hand)
    fast = guide_of_indices.__wrapped__(hand)
    assert fast == expected
    assert [vars(s) for s in fast.settings] == [vars(s) for s in expected.settings]
    assert all(type(s) is GuidedSetting for s in fast.settings)
    assert guide_of_indices(hand) == expected  # memoised or not


def _dumped(view: dict[str, object]) -> str:
    return json.dumps(view)  # key order too: a frame's bytes must not change


@given(any_seven, st.randoms(use_true_random=False))
@settings(max_examples=500, database=None)
def test_a_guide_view_equals_the_reference_with_and_without_a_front(
    hand: tuple[int, ...], rng: random.Random,
) -> None:
    cards = codes(hand)
    shuffled = list(cards)
    rng.shuffle(shuffled)
    expected = _reference_view(cards)
    # A seat's tuple (memoised parsing), a list in any order, a typed string.
    for seven in (cards, shuffled, " ".join(shuffled).lower()):
        assert _dumped(guide_view(seven)) == _dumped(expected)
    for i, j in FRONT_POSITIONS:
        front = (cards[i], cards[j])
        expected = _reference_view(cards, front)
        assert _dumped(guide_view(cards, front)) == _dumped(expected)
        assert _dumped(guide_view(shuffled, [front[1], front[0]])) == _dumped(expected)
    assert guide_view(cards, f"{cards[6]} {cards[0]}") == _reference_view(cards, cards[::6])


@pytest.mark.parametrize(("seven", "front"), [
    (("As", "Ah", "8d", "8c", "Ks", "7h", "4d"), ("2c", "3c")),  # not of the hand
    (("As", "Ah", "8d", "8c", "Ks", "7h", "4d"), ("As", "As")),  # twice
    (("As", "Ah", "8d", "8c", "Ks", "7h", "4d"), ("As",)),  # one card
    (("As", "Ah", "8d", "8c", "Ks", "7h", "4x"), None),  # not a card
    (("As", "Ah", "8d", "8c", "Ks", "7h", ["4d"]), None),  # not text (and unhashable)
    (("As", "Ah", "8d", "8c", "Ks", "7h", 4), None),  # not text
    (("As", "Ah", "8d", "8c", "Ks", "7h"), None),  # six cards
    ("As Ah 8d 8c Ks 7h 7h", None),  # a card twice
])
def test_a_guide_view_refuses_what_it_refused_before_in_the_same_words(
    seven: Any, front: Any,
) -> None:
    try:
        _reference_view(seven, front)
    except ValueError as error:  # a CardError, or the front's sentence
        expected = error
    else:
        pytest.fail("the reference took it")
    for _ in range(2):  # and again, once the hand's parsing is memoised
        with pytest.raises(type(expected), match=f"^{re.escape(str(expected))}$"):
            guide_view(seven, front)


def _containers(value: object) -> Iterator[object]:
    """Every dict and list in a JSON-ready value, itself included."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _containers(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from _containers(item)


@pytest.mark.parametrize("cards", ["9s 9h Ks Qd 7c 5d 2h", "As Ah 8d 8c Ks 7h 4d"])
@pytest.mark.parametrize("locked", [False, True])
def test_each_frame_owns_every_dict_and_list_of_its_guide(cards: str, locked: bool) -> None:
    seven = tuple(cards.split())
    front = tuple(cards.split()[2:4]) if locked else None
    first, second = guide_view(seven, front), guide_view(seven, front)
    assert first == second
    assert not {id(c) for c in _containers(first)} & {id(c) for c in _containers(second)}
    pristine = json.dumps(first)
    for container in list(_containers(first)):  # a frame changed after it was built
        if isinstance(container, dict):
            for key in container:
                container[key] = "changed"
        else:
            assert isinstance(container, list)
            container.append("changed")
    assert json.dumps(guide_view(seven, front)) == pristine
    assert json.dumps(second) == pristine


def test_a_foul_sentence_is_memoised_by_the_backs_top_two_ranks_only() -> None:
    """The guide keeps foul sentences by front value and the back's category
    and top two ranks: every back sharing those gets the same sentence."""
    hands.warm_tables()
    below_two_pair = sorted({v for v in [*hands._RANK_TABLE.values(),
                                         *hands._FLUSH_TABLE.values()] if v >> 20 < TWO_PAIR})
    groups: dict[int, list[int]] = {}
    for value in below_two_pair:
        groups.setdefault(value >> 12, []).append(value)
    fronts = sorted({hands.FRONT_VALUES[a][b] for a in range(53) for b in range(53) if a != b})
    assert len(groups) > 100
    for members in groups.values():
        lowest, highest = members[0], members[-1]
        for fv in fronts:
            assert foul_reason_of_values(fv, lowest) == foul_reason_of_values(fv, highest)


def test_warm_tables_fills_the_back_values_so_no_hand_reads_one_lazily() -> None:
    hands.warm_tables()
    assert (len(hands._RANK_TABLE), len(hands._FLUSH_TABLE)) == (7995, 2002)
    assert hands.warm_tables() == 0
    # Every value is the one a lazily filled table reads.
    for table in (hands._RANK_TABLE, hands._FLUSH_TABLE):
        fresh = hands._Table(table.reading)
        assert {key: fresh[key] for key in table} == dict(table)

    def missing(self: object, key: int) -> int:
        raise AssertionError(f"rank key {key:#x} was not filled")

    @given(any_seven)
    @settings(max_examples=1000, database=None)
    def no_lazy_reading(hand: tuple[int, ...]) -> None:
        for five in itertools.combinations(hand, 5):
            hands.back_value_of(five)
        guide_of_indices.__wrapped__(hand)
        reference_indices(hand)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hands._Table, "__missing__", missing)
        no_lazy_reading()


def test_importing_the_engine_fills_no_table() -> None:
    """The engine also starts in the browser: the tables fill on use (or by
    warm_tables), never at import."""
    code = ("import games.engine, games.engine.guide, games.engine.hands as h; "
            "print(len(h._RANK_TABLE), len(h._FLUSH_TABLE))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=60, check=True)
    rank, flush = map(int, done.stdout.split())
    assert rank < 100
    assert flush < 100


def test_every_house_way_row_has_words_of_its_own() -> None:
    """Pages say a row in words (issue #45): each of the rules' rows has
    words, no two rows share them, and none is its id."""
    assert ROW_WORDS.keys() == REASONS.keys()
    assert len(set(ROW_WORDS.values())) == len(ROW_WORDS)
    for row, words in ROW_WORDS.items():
        assert "-" not in words, (row, words)
        assert row_words(row) == words
    assert row_words("not-a-row") == "not-a-row"
