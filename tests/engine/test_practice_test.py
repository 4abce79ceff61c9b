"""The 100-hand test's deck order (``engine.test_hands``): published, so the
same number deals the same hands to everyone, in any process."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import engine
from games.engine.cards import DECK
from tests.conftest import REPO

PRINT_HANDS = "from games import engine; print(engine.test_hands(5))"


def test_a_test_number_deals_the_same_hands_in_another_process() -> None:
    outputs = {
        subprocess.run([sys.executable, "-c", PRINT_HANDS], cwd=REPO, env={"PYTHONHASHSEED": seed},
                       capture_output=True, text=True, check=True, timeout=60).stdout
        for seed in ("1", "2")
    }
    assert outputs == {f"{engine.test_hands(5)}\n"}


def test_the_first_hand_of_test_1_is_the_published_one() -> None:
    assert engine.test_hands(1)[0] == ("As", "3s", "Ah", "Qh", "Jh", "Ac", "Qc")


# The published order may never change: a digest of every hand of tests 1 and 100.
PUBLISHED = {
    1: "3adeed30b0f17d738fde00515e25d1aa30b8ee2f90b26cbe6b0ca09cf262b642",
    100: "474c1606e706696a2ab676524bb3499421e863ae2f331ff29e83195d1c195c71",
}


@pytest.mark.parametrize("number", list(PUBLISHED))
def test_all_100_hands_of_a_published_test_stay_the_same(number: int) -> None:
    digest = hashlib.sha256(repr(engine.test_hands(number)).encode()).hexdigest()
    assert digest == PUBLISHED[number]


def recipe(number: int) -> tuple[tuple[str, ...], ...]:
    """The module docstring's recipe, as anyone would write it from there."""
    rng = random.Random(f"paigow-test-{number}")
    hands = []
    for _ in range(100):
        deck = list(DECK)
        rng.shuffle(deck)
        hands.append(engine.sort_cards(deck[:7]))
    return tuple(hands)


@settings(max_examples=30, deadline=None)
@given(number=st.integers(min_value=1, max_value=10**12))
def test_any_test_number_deals_what_the_published_recipe_deals(number: int) -> None:
    assert engine.test_hands(number) == recipe(number)
    assert engine.test_hands(number) == engine.test_hands(number)  # no state kept between calls


@settings(max_examples=30, deadline=None)
@given(number=st.integers(min_value=1, max_value=10**6), count=st.integers(1, 100))
def test_any_shorter_test_is_the_start_of_the_full_one(number: int, count: int) -> None:
    assert engine.test_hands(number, count=count) == engine.test_hands(number)[:count]


def test_different_numbers_deal_different_hands() -> None:
    hands = {engine.test_hands(number) for number in range(1, 21)}
    assert len(hands) == 20


def test_every_hand_is_seven_distinct_cards_of_the_deck() -> None:
    for number in (1, 2, 99):
        hands = engine.test_hands(number)
        assert len(hands) == engine.TEST_HANDS == 100
        assert len(set(hands)) == 100
        for hand in hands:
            assert len(hand) == 7 == len(set(hand))
            assert set(hand) <= set(DECK)
            assert hand == engine.sort_cards(hand)


def test_a_shorter_test_is_the_start_of_the_full_one() -> None:
    assert engine.test_hands(3, count=3) == engine.test_hands(3)[:3]


@pytest.mark.parametrize("number", [0, -1, True, 1.5, "1"])
def test_a_test_number_is_a_whole_number_from_one(number: object) -> None:
    with pytest.raises(ValueError, match="A test number"):
        engine.test_hands(number)  # type: ignore[arg-type]


def test_a_test_has_at_least_one_hand() -> None:
    with pytest.raises(ValueError, match="at least one hand"):
        engine.test_hands(1, count=0)
