"""Hypothesis properties of the engine's rules."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    DECK,
    CardError,
    compare_back,
    compare_front,
    house_way,
    is_foul,
    luck,
    mirror_result,
    parse_cards,
    settle,
)

seven_cards = st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True)
fourteen_cards = st.lists(st.sampled_from(DECK), min_size=14, max_size=14, unique=True)
five_cards = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True)
two_cards = st.lists(st.sampled_from(DECK), min_size=2, max_size=2, unique=True)


@given(seven_cards)
@settings(max_examples=500, database=None)
def test_house_way_never_fouls_and_partitions_the_seven_cards(cards: list[str]) -> None:
    hw = house_way(cards)
    assert len(hw.setting.front) == 2
    assert len(hw.setting.back) == 5
    assert sorted(hw.setting.front + hw.setting.back) == sorted(cards)
    assert not is_foul(hw.setting.front, hw.setting.back)
    assert hw.reason.endswith(".")


@given(five_cards, five_cards)
@settings(database=None)
def test_compare_back_is_antisymmetric(a: list[str], b: list[str]) -> None:
    assert compare_back(a, b) == -compare_back(b, a)
    assert compare_back(a, a) == 0


@given(two_cards, two_cards)
@settings(database=None)
def test_compare_front_is_antisymmetric(a: list[str], b: list[str]) -> None:
    assert compare_front(a, b) == -compare_front(b, a)


@given(fourteen_cards, st.randoms(use_true_random=False))
@settings(database=None)
def test_friend_settle_is_symmetric(cards: list[str], rng: random.Random) -> None:
    rng.shuffle(cards)
    f1, b1, f2, b2 = cards[:2], cards[2:7], cards[7:9], cards[9:14]
    one = settle(mode="friend", front=f1, back=b1, other_front=f2, other_back=b2)
    two = settle(mode="friend", front=f2, back=b2, other_front=f1, other_back=b1)
    assert two.result == mirror_result(one.result)
    assert one.score + two.score == 1.0


@given(fourteen_cards)
@settings(database=None)
def test_solo_copies_go_to_the_dealer(cards: list[str]) -> None:
    front, back = cards[:2], cards[2:7]
    # Playing against an exact copy of one's own values: the player never wins.
    s = settle(mode="solo", front=front, back=back, other_front=front, other_back=back)
    assert s.result in ("loss", "push")
    if not is_foul(front, back):
        assert s.result == "loss"


@given(seven_cards, st.sampled_from([("solo", "player"), ("solo", "dealer"), ("friend", "player")]))
@settings(max_examples=25, deadline=None, database=None)
def test_luck_lies_in_range_and_inside_its_interval(
    cards: list[str], table: tuple[str, str]
) -> None:
    mode, side = table
    e = luck(cards, mode=mode, side=side, samples=40)
    assert 1.0 <= e.low <= e.luck <= e.high <= 10.0
    assert e.wins + e.pushes + e.losses == 40
    # The same deal written in another order gives the identical estimate.
    assert luck(list(reversed(cards)), mode=mode, side=side, samples=40) == e


@given(st.text(max_size=30))
@settings(database=None)
def test_parse_errors_are_sentences(text: str) -> None:
    try:
        parse_cards(text, count=7)
    except CardError as exc:
        message = str(exc)
        # A sentence: starts with a capital (or an opening quote) and ends with a stop.
        assert (message[0].isupper() or message[0] == "“")
        assert message.endswith(".")
        assert "Traceback" not in message
