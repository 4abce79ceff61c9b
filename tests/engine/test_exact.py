"""The exact analysis (games.engine.exact): its counting core against plain
enumeration, its rows against settling opponents one by one and against the
sampling explorer, hands whose answer follows from reasoning, suit classes,
and the batch op."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from math import comb, sqrt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    DECK,
    ExactAnalysis,
    canonical,
    exact,
    exact_for,
    exact_key,
    explore_settings,
    explore_sums,
)
from games.engine.batch import answer
from games.engine.cards import parse_indices
from games.engine.exact import OPPONENTS, opponent_counts, setting_counts
from games.engine.hands import FRONT_POSITIONS, back_value_of, front_value_of
from games.engine.house_way import house_way_values
from games.engine.settle import outcome
from tests.engine import exact_reference

SUIT_ORDERS = list(itertools.permutations("shdc"))
MODES_SIDES = [("solo", "player"), ("solo", "dealer"), ("friend", "player")]


def relabelled(cards: str, order: tuple[str, ...]) -> str:
    """The hand with suit "shdc"[k] written order[k]."""
    to = dict(zip("shdc", order, strict=True))
    return " ".join(c if c == "JK" else c[0] + to[c[1]] for c in cards.split())


def setting_values(hand: tuple[int, ...]) -> list[tuple[int, int]]:
    return [(front_value_of((hand[i], hand[j])),
             back_value_of(tuple(c for k, c in enumerate(hand) if k not in (i, j))))
            for i, j in FRONT_POSITIONS]


def result(mine: tuple[int, int], theirs: tuple[int, int], mode: str, side: str) -> int:
    """2 win, 1 push, 0 loss for a setting, straight from settle.outcome (rules §4)."""
    if side == "dealer":
        return 2 - outcome(True, theirs[0], theirs[1], mine[0], mine[1])
    return outcome(mode == "solo", mine[0], mine[1], theirs[0], theirs[1])


def enumerated(available: list[int]) -> Counter[tuple[int, int]]:
    """Every seven-card hand of ``available`` set by the engine's house way, one by one."""
    return Counter(house_way_values(h) for h in itertools.combinations(sorted(available), 7))


# Small card sets rich in what the counting core must get right: flushes with
# the joker and without, pairs across the flush suit, straights, full ranks.
SMALL_SETS = {
    "ten spades, the joker, pairs off suit": (
        [*range(10), 52, 13, 14, 26, 40, 41]),
    "two suits of eight, no joker": [*range(2, 10), *range(15, 23)],
    "four full ranks and four hearts": [
        *(13 * s + r for s in range(4) for r in (0, 4, 8, 9)), 14, 15, 16, 18],
    "wheel and broadway ranks, the joker": [
        *(13 * s + r for s in (0, 1) for r in (0, 1, 2, 3, 4, 9, 10, 11, 12)), 52],
}


@pytest.mark.parametrize("name", list(SMALL_SETS))
def test_the_counting_core_matches_plain_enumeration(name: str) -> None:
    available = SMALL_SETS[name]
    assert opponent_counts(available) == enumerated(available)


def test_the_counting_core_matches_plain_enumeration_on_random_card_sets() -> None:
    rng = random.Random(20261201)
    for _ in range(6):
        available = rng.sample(range(53), 16)
        assert opponent_counts(available) == enumerated(available), available


@pytest.mark.parametrize(("mode", "side"), MODES_SIDES)
def test_each_row_is_what_settling_every_opponent_one_by_one_gives(mode: str, side: str) -> None:
    # The hand holds the cards the small set leaves out, so every opponent is legal.
    hand = parse_indices("As Ah 8d 8c Ks 7h 4d")
    available = [c for c in SMALL_SETS["ten spades, the joker, pairs off suit"] if c not in hand]
    opponents = enumerated(available)
    mine = setting_values(hand)
    expected = []
    for values in mine:
        counted = [0, 0, 0]
        for theirs, w in opponents.items():
            counted[result(values, theirs, mode, side)] += w
        expected.append((counted[2], counted[1], counted[0]))
    got = setting_counts(mine, opponent_counts(available), solo=mode == "solo",
                         dealer=mode == "solo" and side == "dealer")
    assert got == expected


def test_a_fouling_opponent_loses_and_two_fouls_push() -> None:
    # House ways never foul, but the rules say what a foul would mean (rules §4).
    foul = (front_value_of(parse_indices("As Ah")), back_value_of(parse_indices("Kd 9c 7h 4s 2d")))
    legal = (front_value_of(parse_indices("Kd Qh")), back_value_of(parse_indices("9s 9h 7c 4c 2c")))
    counts = {foul: 2, legal: 3}
    got = setting_counts([legal, foul], counts, solo=True, dealer=False)
    assert got == [(2, 0, 3), (0, 2, 3)]


HANDS = ["As Ah 8d 8c Ks 7h 4d", "JK 9s 8s 7s 6s Kh Kd", "2c 3d 4h 7s 8c Td Qh"]


@pytest.fixture(scope="module")
def first() -> ExactAnalysis:
    return exact(HANDS[0], mode="solo")


def test_every_row_counts_every_opponent_exactly_once(first: ExactAnalysis) -> None:
    assert first.opponents == comb(46, 7) == OPPONENTS
    assert all(s.wins + s.pushes + s.losses == OPPONENTS for s in first.settings)


def test_rows_come_best_first_with_the_house_way_first_among_equals(first: ExactAnalysis) -> None:
    scores = [2 * s.wins + s.pushes for s in first.settings]
    assert scores == sorted(scores, reverse=True)
    assert first.best == first.settings[0]
    assert (first.house_way.front, first.house_way.back_name) == (("8d", "8c"), "Pair of aces")
    # Settings of equal values have equal rows: the front's deck indices order them.
    for a, b in itertools.pairwise(first.settings):
        if 2 * a.wins + a.pushes == 2 * b.wins + b.pushes and not a.house_way:
            assert parse_indices(a.front) < parse_indices(b.front)


def test_expected_is_wins_and_half_the_pushes_over_every_opponent(first: ExactAnalysis) -> None:
    assert all(s.expected == (2 * s.wins + s.pushes) / (2 * OPPONENTS) for s in first.settings)


def within(exact_share: float, seen: int, n: int, z: float = 4.5) -> bool:
    """A sampled count within z standard errors of an exact share."""
    if exact_share in (0.0, 1.0):
        return seen == exact_share * n
    return abs(seen / n - exact_share) <= z * sqrt(exact_share * (1 - exact_share) / n)


def agrees_with_the_explorer(cards: str, mode: str, side: str) -> list[str]:
    """Rows whose exact win or loss share is off the explorer's 100,000 opponents."""
    a = exact(cards, mode=mode, side=side)
    sums = explore_sums(cards, mode=mode, side=side, start=0, stop=50_000).plus(
        explore_sums(cards, mode=mode, side=side, start=50_000, stop=100_000))
    rows = {s.front: s for s in a.settings}
    off = []
    for k, setting in enumerate(explore_settings(cards)):
        row = rows[setting.front]
        assert row.house_way == setting.house_way
        for share, seen in ((row.wins, sums.wins[k]), (row.losses, sums.losses[k])):
            if not within(share / OPPONENTS, seen, sums.samples):
                off.append(f"{row.front}: exact {share / OPPONENTS:.5f}, sampled {seen}")
    return off


def test_every_row_agrees_with_the_sampling_explorer() -> None:
    assert agrees_with_the_explorer(HANDS[1], "solo", "player") == []


@pytest.mark.slow
@pytest.mark.parametrize(("cards", "mode_side"), [
    (HANDS[0], ("solo", "dealer")), (HANDS[0], ("friend", "player")),
    (HANDS[2], ("solo", "player")), ("Ah Kh Qh Jh JK 2c 2d", ("friend", "player")),
    ("9s 9h 9d 9c 5s 5h Ad", ("solo", "player")),
])
def test_more_rows_agree_with_the_sampling_explorer(cards: str, mode_side: tuple[str, str]) -> None:
    assert agrees_with_the_explorer(cards, *mode_side) == []


def test_five_aces_with_low_cards_in_front_push_every_opponent() -> None:
    # Five aces win every back (no opponent can have them), and 3-2, the
    # lowest front there is, never wins a front: a push, whoever gets copies.
    for mode in ("friend", "solo"):
        row = next(s for s in exact("As Ah Ad Ac JK 3s 2h", mode=mode).settings
                   if s.front == ("3s", "2h"))
        assert (row.wins, row.pushes, row.losses) == (0, OPPONENTS, 0)


def test_five_aces_and_kings_as_the_dealer_win_every_opponent() -> None:
    # No ace or joker is left: no front beats kings, a copy is the dealer's,
    # and no back beats five aces.
    a = exact("As Ah Ad Ac JK Ks Kh", mode="solo", side="dealer")
    row = a.house_way
    assert (row.front, row.back_name) == (("Ks", "Kh"), "Five aces")
    assert (row.wins, row.pushes, row.losses) == (OPPONENTS, 0, 0)
    assert a.best == row


def test_five_aces_and_kings_as_the_player_never_lose() -> None:
    # Only a front of the two other kings copies (then the player pushes):
    # at most the C(44, 5) opponents holding both.
    row = exact("As Ah Ad Ac JK Ks Kh", mode="solo").house_way
    assert row.losses == 0
    assert 0 < row.pushes <= comb(44, 5)


def test_a_setting_that_fouls_loses_to_every_opponent() -> None:
    a = exact("As Ah Kd 9c 7h 4s 2d", mode="friend")
    # AA over ace high, and A-K over ace-nine high: a house way never fouls,
    # so nothing pushes with them.
    fouls = [s for s in a.settings if s.foul]
    assert {s.front for s in fouls} == {("As", "Ah"), ("As", "Kd"), ("Ah", "Kd")}
    assert {(s.wins, s.pushes, s.losses) for s in fouls} == {(0, 0, OPPONENTS)}
    assert a.settings[-3:] == tuple(fouls)


# ------------------------------------------------------------- suit classes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True),
       st.sampled_from(SUIT_ORDERS), st.sampled_from(MODES_SIDES))
def test_hands_that_differ_by_suits_share_one_class(cards: list[str], order: tuple[str, ...],
                                                    mode_side: tuple[str, str]) -> None:
    hand = " ".join(cards)
    other = relabelled(hand, order)
    mode, side = mode_side
    assert exact_key(hand, mode=mode, side=side) == exact_key(other, mode=mode, side=side)
    rep, suit_map = canonical(hand)
    assert canonical(rep)[0] == rep
    assert sorted(relabelled(rep, tuple(suit_map[s] for s in "shdc")).split(),
                  key=DECK.index) == sorted(cards, key=DECK.index)


def test_the_key_names_the_mode_and_side() -> None:
    keys = {exact_key(HANDS[0], mode=m, side=s) for m, s in MODES_SIDES}
    assert len(keys) == 3


def check_relabelling(cards: str, order: tuple[str, ...], mode: str, side: str) -> None:
    member = relabelled(cards, order)
    rep, _ = canonical(member)
    assert exact_for(member, exact(rep, mode=mode, side=side)) == exact(member, mode=mode,
                                                                         side=side)


@pytest.mark.parametrize(("cards", "order", "mode_side"), [
    # Four kings: the house way's split picks the lowest deck indices, so the
    # member's house-way row is not the image of the representative's.
    ("Ks Kh Kd Kc 9s 5h 2d", ("c", "d", "s", "h"), ("solo", "player")),
    ("JK 9s 8s 7s 6s Kh Kd", ("h", "c", "s", "d"), ("friend", "player")),
])
def test_a_class_analysis_relabelled_is_the_members_own(cards: str, order: tuple[str, ...],
                                                        mode_side: tuple[str, str]) -> None:
    check_relabelling(cards, order, *mode_side)


@pytest.mark.slow
def test_class_analyses_relabelled_are_the_members_own_on_random_hands() -> None:
    rng = random.Random(7)
    for _ in range(8):
        cards = " ".join(rng.sample(DECK, 7))
        check_relabelling(cards, rng.choice(SUIT_ORDERS), *rng.choice(MODES_SIDES))


def test_exact_for_refuses_an_analysis_of_another_class(first: ExactAnalysis) -> None:
    with pytest.raises(ValueError, match="suit class"):
        exact_for(HANDS[2], first)


def test_a_suit_map_must_be_a_permutation(first: ExactAnalysis) -> None:
    with pytest.raises(ValueError, match="different suit"):
        first.relabel({"s": "h", "h": "h", "d": "d", "c": "c"})


# ------------------------------------------------------------- JSON and the batch op


def test_the_batch_op_answers_the_analysis_as_json(first: ExactAnalysis) -> None:
    got = answer({"op": "exact", "cards": HANDS[0], "mode": "solo", "side": "player"})
    assert got == first.to_json()
    assert got["opponents"] == 53_524_680
    row = got["settings"][0]
    assert list(row) == ["front", "back", "front_name", "back_name", "foul", "wins", "pushes",
                         "losses", "expected", "house_way"]
    assert (row["front"], row["back"]) == ("8d 8c", "As Ks Ah 7h 4d")


def test_an_analysis_survives_its_json(first: ExactAnalysis) -> None:
    assert ExactAnalysis.from_json(first.to_json()) == first


@pytest.mark.parametrize(("request_", "words"), [
    ({"op": "exact", "cards": HANDS[0], "mode": "casino"}, "not a table mode"),
    ({"op": "exact", "cards": HANDS[0], "mode": "friend", "side": "dealer"}, "not a side"),
    ({"op": "exact", "cards": "As Ks", "mode": "solo"}, "seven cards"),
    ({"op": "exact", "mode": "solo"}, "“cards”"),
])
def test_the_batch_op_explains_a_bad_request(request_: dict[str, str], words: str) -> None:
    assert words in answer(request_)["error"]


def test_available_cards_must_be_deck_indices() -> None:
    with pytest.raises(ValueError, match="deck indices"):
        opponent_counts([0, 53])


# ------------------------------------------------------------- shipped tables, today's counting

# Every hand these tests analyse, and the benchmark's shapes (benchmarks/exact.py).
EVERY_HAND = [
    *HANDS, "Ah Kh Qh Jh JK 2c 2d", "9s 9h 9d 9c 5s 5h Ad", "As Ah Ad Ac JK 3s 2h",
    "As Ah Ad Ac JK Ks Kh", "As Ah Kd 9c 7h 4s 2d", "Ks Kh Kd Kc 9s 5h 2d",
    "2s 3s 4s 5s 6s 7s 8s", "As Ks Qs Js Ts 9s 8s", "Ah Kh Qh Jh Th 9h 2h",
    "2s 3s 4s 5s 6s 7s JK", "As Kh Qd Jc 9s 8h 7d",
]


def rows(analysis: ExactAnalysis) -> list[tuple[str, int, int, int]]:
    return sorted((" ".join(s.front), s.wins, s.pushes, s.losses) for s in analysis.settings)


def check_against_todays_counting(cards: str) -> None:
    hand = parse_indices(cards)
    left = [c for c in range(53) if c not in hand]
    counts = exact_reference.opponent_counts(left)
    assert opponent_counts(left) == counts, cards
    for mode, side in MODES_SIDES:
        assert rows(exact(cards, mode=mode, side=side)) == exact_reference.exact_rows(
            hand, counts, mode=mode, side=side), (cards, mode, side)


@pytest.mark.slow
@pytest.mark.parametrize("cards", EVERY_HAND)
def test_the_shipped_tables_give_the_same_rows_as_todays_counting(cards: str) -> None:
    check_against_todays_counting(cards)


@pytest.mark.slow
@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True),
       st.sampled_from(SUIT_ORDERS))
def test_a_random_hand_and_a_member_of_its_suit_class_count_as_today(
        cards: list[str], order: tuple[str, ...]) -> None:
    hand = " ".join(cards)
    check_against_todays_counting(hand)
    check_against_todays_counting(relabelled(hand, order))
