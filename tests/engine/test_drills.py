"""Practice drills (engine.drills) and the practice analysis (engine.practice)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    DECK,
    DRILLS,
    analysis_from_rows,
    deal_drill,
    decision_cost,
    explore,
    house_way,
    in_drill,
    sampled_analysis,
)
from games.engine.drills import (
    DRILL_LESSONS,
    FULL_HOUSE_ROWS,
    QUADS_ROWS,
    STRAIGHT_ROWS,
    THREE_PAIR_ROWS,
    TWO_PAIR_ROWS,
    deal_drill_attempts,
)
from games.engine.house_way import REASONS

seeds = st.integers(min_value=0, max_value=2**64 - 1)
families = st.sampled_from(sorted(DRILLS))
seven_cards = st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True)

# A deal draws far fewer candidates than this (two pair, the least likely
# proposal, takes about 5 on average); it bounds the time a deal can take.
ATTEMPTS_BOUND = 200


@settings(max_examples=300, database=None)
@given(family=families, seed=seeds)
def test_every_dealt_hand_belongs_to_its_family(family: str, seed: int) -> None:
    hand = deal_drill(family, random.Random(seed))
    assert in_drill(family, hand)


@settings(max_examples=300, database=None)
@given(family=families, seed=seeds)
def test_a_dealt_hand_is_seven_distinct_cards_in_deck_order(family: str, seed: int) -> None:
    hand = deal_drill(family, random.Random(seed))
    assert list(hand) == sorted(set(hand), key=DECK.index)
    assert len(hand) == 7


@settings(max_examples=300, database=None)
@given(family=families, seed=seeds)
def test_each_family_is_dealt_within_a_bounded_number_of_candidates(family: str, seed: int) -> None:
    _, attempts = deal_drill_attempts(family, random.Random(seed))
    assert attempts <= ATTEMPTS_BOUND


@pytest.mark.parametrize("family", sorted(DRILLS))
def test_a_thousand_deals_of_each_family_average_a_few_candidates(family: str) -> None:
    rng = random.Random(20)
    attempts = [deal_drill_attempts(family, rng)[1] for _ in range(1000)]
    assert sum(attempts) / len(attempts) < 10


def test_the_same_seed_deals_the_same_hand() -> None:
    assert deal_drill("three-pair", random.Random(5)) == deal_drill("three-pair", random.Random(5))


def test_the_families_name_only_house_way_rows_that_exist() -> None:
    rows = STRAIGHT_ROWS | TWO_PAIR_ROWS | THREE_PAIR_ROWS | FULL_HOUSE_ROWS | QUADS_ROWS
    assert rows <= set(REASONS)


def test_every_drill_has_a_lesson() -> None:
    assert set(DRILL_LESSONS) == set(DRILLS)


@pytest.mark.parametrize(
    ("family", "cards"),
    [
        ("two-pair", "As Ah 8d 8c Ks 7h 4d"),
        ("two-pair", "2s 2h 3d 3c 7h 6d 5c"),
        ("straights-with-pairs", "JK Ah 9s 9d Kc Qh Jd"),
        ("straights-with-pairs", "Ah JK As Ac Jh 2h Kh"),
        ("three-pair", "As 3s 2s JK 4s 4d 2c"),
        ("full-house", "9s 9h 9d 2c 2s Ah Kd"),
        ("four-of-a-kind", "7s 7h 7d 7c Ah Jd 3c"),
        ("joker", "JK 5s 4h 3d 2c 9s 9d"),
    ],
)
def test_the_rules_worked_examples_fall_in_their_family(family: str, cards: str) -> None:
    assert in_drill(family, cards)


@pytest.mark.parametrize(
    ("family", "cards"),
    [
        ("two-pair", "9s 9h 9d 2c 2s Ah Kd"),  # a full house
        ("three-pair", "As Ah 8d 8c Ks 7h 4d"),
        ("straights-with-pairs", "Ks Qh Jd Tc 9h 4d 2c"),  # a straight with no pair
        ("four-of-a-kind", "9s 9h 9d 2c 2s Ah Kd"),
        ("full-house", "7s 7h 7d 7c Ah Jd 3c"),
    ],
)
def test_hands_of_other_families_are_not_dealt_for_a_drill(family: str, cards: str) -> None:
    assert not in_drill(family, cards)


@settings(max_examples=100, database=None)
@given(cards=seven_cards)
def test_any_hand_is_in_the_any_drill_and_the_joker_drill_is_the_joker(cards: list[str]) -> None:
    assert (in_drill("any", cards), in_drill("joker", cards)) == (True, "JK" in cards)


def test_an_unknown_drill_is_refused_with_the_list_of_drills() -> None:
    with pytest.raises(ValueError, match="choose one of any, two-pair"):
        deal_drill("five-aces", random.Random(1))


# ------------------------------------------------------------------ the analysis and its cost


def test_the_sampled_analysis_matches_the_explorer_over_the_same_opponents() -> None:
    hand = "As Ah 8d 8c Ks 7h 4d"
    analysis = sampled_analysis(hand, opponents=120)
    explored = {row.front: row.expected for row in explore(hand, mode="solo").settings}
    assert dict(zip(analysis.fronts, analysis.expected, strict=True)) == explored


def test_the_house_way_of_the_two_pair_lesson_is_the_best_setting() -> None:
    analysis = sampled_analysis("As Ah 8d 8c Ks 7h 4d", opponents=5000)
    assert analysis.best_front == ("8d", "8c")


def test_a_foul_gives_up_the_whole_best_score() -> None:
    analysis = sampled_analysis("As Ah 8d 8c Ks 7h 4d", opponents=1000)
    cost = decision_cost(analysis, "As Ah")
    assert cost.loss == cost.best_expected


@settings(max_examples=40, deadline=None, database=None)
@given(cards=seven_cards)
def test_no_setting_loses_less_than_nothing_and_the_best_loses_nothing(cards: list[str]) -> None:
    analysis = sampled_analysis(cards, opponents=200)
    costs = [decision_cost(analysis, front) for front in analysis.fronts]
    assert min(c.loss for c in costs) == 0
    assert all(c.loss >= 0 for c in costs)
    assert decision_cost(analysis, analysis.best_front).at_best


def test_equal_scores_make_the_house_way_the_best() -> None:
    hand = "As Ah 8d 8c Ks 7h 4d"
    fronts = sampled_analysis(hand, opponents=10).fronts
    rows = [{"front": list(f), "expected": 0.5} for f in fronts]
    analysis = analysis_from_rows(hand, rows, opponents=53_524_680, exact=True)
    assert analysis.best_front == house_way(hand).setting.front


def test_exact_rows_replace_sampled_ones_through_the_same_cost() -> None:
    hand = "As Ah 8d 8c Ks 7h 4d"
    fronts = sampled_analysis(hand, opponents=10).fronts
    rows = [{"front": list(f), "expected": k / 100} for k, f in enumerate(fronts)]
    cost = decision_cost(analysis_from_rows(hand, rows, opponents=53_524_680, exact=True),
                         list(fronts[0]))
    assert (cost.best_front, cost.loss) == (fronts[20], pytest.approx(0.2))


def test_an_analysis_missing_a_setting_is_refused() -> None:
    hand = "As Ah 8d 8c Ks 7h 4d"
    rows = [{"front": ["As", "Ah"], "expected": 0.5}]
    with pytest.raises(ValueError, match="one row for each of the hand's 21 settings"):
        analysis_from_rows(hand, rows, opponents=1, exact=True)


def test_a_front_that_is_not_in_the_hand_is_refused() -> None:
    analysis = sampled_analysis("As Ah 8d 8c Ks 7h 4d", opponents=10)
    with pytest.raises(ValueError, match="not two of these seven cards"):
        decision_cost(analysis, "2c 3c")
