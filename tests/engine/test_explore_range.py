"""The progressive explorer: chunks of one opponent stream, their sums, the
intervals and the tied-with-the-best rule (games.engine.explore)."""

from __future__ import annotations

import random
from itertools import pairwise
from math import sqrt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import DECK, explore, explore_estimates, explore_settings, explore_sums, luck
from games.engine.batch import answer
from games.engine.cards import parse_indices
from games.engine.explore import (
    _STREAMS,
    EXPLORE_CHUNK_MAX,
    EXPLORE_STREAM_MAX,
    ExploreSums,
    SettingEstimate,
    tally_settings,
)
from games.engine.hands import FRONT_POSITIONS, back_value_of, front_value_of, is_foul_values
from games.engine.house_way import house_way_values
from games.engine.luck import LUCK_SAMPLES, SplitMix64, draw_opponents, luck_key, luck_seed
from games.engine.settle import outcome

seven_cards = st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True)
modes_sides = st.sampled_from([("solo", "player"), ("solo", "dealer"), ("friend", "player")])


def setting_values(cards: str | list[str]) -> list[tuple[int, int]]:
    hand = parse_indices(cards, count=7)
    return [(front_value_of((hand[i], hand[j])),
             back_value_of(tuple(c for k, c in enumerate(hand) if k not in (i, j))))
            for i, j in FRONT_POSITIONS]


def stream(cards: str | list[str], mode: str, side: str, count: int) -> list[tuple[int, int]]:
    """The explorer's opponents written out from rules §6: luck's key with n = 120,
    the same generator continued."""
    hand = parse_indices(cards, count=7)
    rng = SplitMix64(luck_seed(luck_key(hand, mode, side, LUCK_SAMPLES)))
    return [house_way_values(o) for o in draw_opponents(hand, count, rng)]


def result(mine: tuple[int, int], theirs: tuple[int, int], mode: str, side: str) -> int:
    """2 win, 1 push, 0 loss for the setting, straight from settle.outcome (rules §4)."""
    if side == "dealer":
        return 2 - outcome(True, theirs[0], theirs[1], mine[0], mine[1])
    return outcome(mode == "solo", mine[0], mine[1], theirs[0], theirs[1])


@settings(max_examples=25, deadline=None)
@given(seven_cards, modes_sides, st.lists(st.integers(0, 700), min_size=1, max_size=4))
def test_chunked_sums_add_up_to_one_big_run(cards: list[str], mode_side: tuple[str, str],
                                            cuts: list[int]) -> None:
    mode, side = mode_side
    stops = [0, *sorted(set(cuts)), 701]
    whole = explore_sums(cards, mode=mode, side=side, start=0, stop=701)
    total: ExploreSums | None = None
    for start, stop in pairwise(stops):
        chunk = explore_sums(cards, mode=mode, side=side, start=start, stop=stop)
        total = chunk if total is None else total.plus(chunk)
    assert total == whole


@settings(max_examples=15, deadline=None)
@given(seven_cards, modes_sides, st.integers(0, 300), st.integers(1, 200))
def test_a_chunk_is_the_same_whatever_was_asked_before(
    cards: list[str], mode_side: tuple[str, str], start: int, size: int
) -> None:
    mode, side = mode_side
    _STREAMS.clear()
    fresh = explore_sums(cards, mode=mode, side=side, start=start, stop=start + size)
    # After a later chunk (the remembered stream is past this start) and another hand's.
    explore_sums(cards, mode=mode, side=side, start=start + size, stop=start + size + 50)
    explore_sums("As Ah 8d 8c Ks 7h 4d", mode="solo", start=0, stop=10)
    assert explore_sums(cards, mode=mode, side=side, start=start, stop=start + size) == fresh


@settings(max_examples=20, deadline=None)
@given(seven_cards, modes_sides)
def test_the_first_120_opponents_are_lucks(cards: list[str], mode_side: tuple[str, str]) -> None:
    mode, side = mode_side
    sums = explore_sums(cards, mode=mode, side=side, start=0, stop=LUCK_SAMPLES)
    rows = explore_settings(cards)
    hw = next(k for k, r in enumerate(rows) if r.house_way)
    e = luck(cards, mode=mode, side=side)
    assert (sums.wins[hw], sums.pushes[hw], sums.losses[hw]) == (e.wins, e.pushes, e.losses)
    explored = {r.front: (r.wins, r.pushes, r.losses) for r in explore(cards, mode=mode,
                                                                       side=side).settings}
    assert [explored[r.front] for r in rows] == list(
        zip(sums.wins, sums.pushes, sums.losses, strict=True))


@settings(max_examples=12, deadline=None)
@given(seven_cards, modes_sides, st.integers(0, 400), st.integers(0, 150))
def test_sums_equal_settling_every_setting_against_every_opponent(
    cards: list[str], mode_side: tuple[str, str], start: int, size: int
) -> None:
    mode, side = mode_side
    opponents = stream(cards, mode, side, start + size)[start:]
    mine = setting_values(cards)
    ys = [[result(m, o, mode, side) for m in mine] for o in opponents]
    sums = explore_sums(cards, mode=mode, side=side, start=start, stop=start + size)
    assert sums.wins == tuple(sum(y[s] == 2 for y in ys) for s in range(21))
    assert sums.pushes == tuple(sum(y[s] == 1 for y in ys) for s in range(21))
    assert sums.losses == tuple(sum(y[s] == 0 for y in ys) for s in range(21))
    assert sums.products == tuple(tuple(sum(y[s] * y[t] for y in ys) for t in range(21))
                                  for s in range(21))


# Setting values (front, back) of a few hands, fouls among them, so opponents
# can foul too (a house way never does) and values repeat (copies).
POOL = sorted({v for cards in ("As Ah 8d 8c Ks 7h 4d", "2c 3d 4h 6s 8c Tc Qd",
                               "9s 9h 9d Kc Kd 2s 2h", "JK Ah Kd Qc Jh 5s 5d")
               for v in setting_values(cards)})


def test_the_pool_holds_fouls() -> None:
    assert any(is_foul_values(f, b) for f, b in POOL)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(POOL), min_size=1, max_size=21),
       st.lists(st.sampled_from(POOL), max_size=60), modes_sides)
def test_tally_settings_follows_the_rules_for_fouls_and_copies_on_both_sides(
    mine: list[tuple[int, int]], theirs: list[tuple[int, int]], mode_side: tuple[str, str]
) -> None:
    mode, side = mode_side
    wins, pushes, losses, products = tally_settings(
        mine, theirs, solo=mode == "solo", dealer=side == "dealer")
    ys = [[result(m, o, mode, side) for m in mine] for o in theirs]
    k = range(len(mine))
    assert wins == tuple(sum(y[s] == 2 for y in ys) for s in k)
    assert pushes == tuple(sum(y[s] == 1 for y in ys) for s in k)
    assert losses == tuple(sum(y[s] == 0 for y in ys) for s in k)
    assert products == tuple(tuple(sum(y[s] * y[t] for y in ys) for t in k) for s in k)


# ---------------------------------------------------------------- intervals and ties


def sums_of(ys: list[list[int]]) -> ExploreSums:
    """ExploreSums of per-opponent results (rows: opponents; columns: settings)."""
    k = range(len(ys[0]))
    return ExploreSums(
        start=0, stop=len(ys),
        wins=tuple(sum(y[s] == 2 for y in ys) for s in k),
        pushes=tuple(sum(y[s] == 1 for y in ys) for s in k),
        losses=tuple(sum(y[s] == 0 for y in ys) for s in k),
        products=tuple(tuple(sum(y[s] * y[t] for y in ys) for t in k) for s in k),
    )


def draw(rng: random.Random, chances: tuple[float, float]) -> int:
    u = rng.random()
    return 2 if u < chances[0] else (1 if u < chances[0] + chances[1] else 0)


A = (0.45, 0.30)  # win, push: expected score 0.45 + 0.30 / 2 = 0.6
C = (0.35, 0.30)  # 0.5
TRUE = (0.6, 0.6, 0.5)
TRIALS = 200


def simulated(rng: random.Random, n: int) -> list[list[int]]:
    """Three settings with exact expected scores 0.6, 0.6 and 0.5. The second is
    the first on 80% of opponents and a fresh draw of the same odds otherwise
    (so equal in expectation, and correlated as related settings are); the
    third is independent."""
    out = []
    for _ in range(n):
        first = draw(rng, A)
        second = first if rng.random() < 0.8 else draw(rng, A)
        out.append([first, second, draw(rng, C)])
    return out


@pytest.fixture(scope="module")
def trials() -> list[tuple[SettingEstimate, ...]]:
    rng = random.Random(20261201)
    return [explore_estimates(sums_of(simulated(rng, 1000)), house_way=2) for _ in range(TRIALS)]


def test_each_settings_95_percent_interval_contains_its_exact_mean_about_95_times_in_100(
    trials: list[tuple[SettingEstimate, ...]],
) -> None:
    covered = sum(r.low <= TRUE[r.index] <= r.high for rows in trials for r in rows)
    assert 0.92 <= covered / (3 * TRIALS) <= 0.98, covered


def test_the_paired_interval_of_the_difference_contains_the_exact_difference(
    trials: list[tuple[SettingEstimate, ...]],
) -> None:
    covered = 0
    for rows in trials:
        best = rows[0]
        covered += sum(r.behind_low <= TRUE[best.index] - TRUE[r.index] <= r.behind_high
                       for r in rows[1:])
    assert 0.92 <= covered / (2 * TRIALS) <= 0.99, covered


def test_two_settings_equal_in_expectation_are_tied_about_95_times_in_100(
    trials: list[tuple[SettingEstimate, ...]],
) -> None:
    other = [next(r for r in rows if r.index in (0, 1) and r.standing != "best")
             for rows in trials]
    assert 0.90 <= sum(r.standing == "tied" for r in other) / TRIALS <= 0.99


def test_a_setting_a_tenth_worse_is_behind_at_1000_opponents(
    trials: list[tuple[SettingEstimate, ...]],
) -> None:
    assert all(next(r for r in rows if r.index == 2).standing == "behind" for rows in trials)


def test_the_paired_interval_is_sharper_than_the_two_settings_own_intervals(
    trials: list[tuple[SettingEstimate, ...]],
) -> None:
    """The point of pairing: the difference of two related settings is known
    better than comparing their own intervals would tell (for independent
    estimates the difference's interval is √(a² + b²) wide)."""
    for rows in trials[:20]:
        pair = [r for r in rows if r.index in (0, 1)]
        unpaired = sqrt(sum((r.high - r.low) ** 2 for r in pair))
        assert pair[1].behind_high - pair[1].behind_low < 0.75 * unpaired


def test_the_tie_rule_at_its_edges() -> None:
    same = [[2, 2, 0], [1, 1, 1], [0, 0, 1]]  # 0 and 1 never differ; 2 differs
    rows = explore_estimates(sums_of(same * 10), house_way=1)
    by = {r.index: r for r in rows}
    # Equal scores: the house way is best; an identical setting is tied (interval [0, 0]).
    assert (by[1].standing, by[0].standing, by[0].behind_low, by[0].behind_high) == (
        "best", "tied", 0.0, 0.0)
    # Always worse by the same margin (no spread): behind.
    always = [[2, 1], [2, 1], [1, 0]]
    assert explore_estimates(sums_of(always), house_way=1)[1].standing == "behind"
    # One opponent: nothing is known yet, so everything is tied with the best.
    one = explore_estimates(sums_of([[2, 0]]), house_way=0)
    assert [r.standing for r in one] == ["best", "tied"]


def test_a_real_hand_separates_with_more_opponents() -> None:
    cards = "7d 3h 6c As Jc Ts 4s"  # no pair: many settings close together
    hw = next(k for k, s in enumerate(explore_settings(cards)) if s.house_way)
    few = explore_estimates(explore_sums(cards, mode="solo", start=0, stop=120), hw)
    many = explore_estimates(explore_sums(cards, mode="solo", start=0, stop=10_000), hw)
    assert sum(r.standing == "tied" for r in few) >= 10
    assert sum(r.standing == "tied" for r in many) <= 3
    assert all(r.standing == "behind" for r in many if explore_settings(cards)[r.index].foul)
    assert max(r.high - r.low for r in few) > 0.09
    assert max(r.high - r.low for r in many) < 0.02


# ---------------------------------------------------------------- the batch op


def test_the_batch_op_answers_the_sums_with_the_settings() -> None:
    got = answer({"op": "explore_range", "cards": "As Ah 8d 8c Ks 7h 4d", "mode": "solo",
                  "side": "dealer", "start": 120, "stop": 620})
    sums = explore_sums("As Ah 8d 8c Ks 7h 4d", mode="solo", side="dealer", start=120, stop=620)
    rows = explore_settings("As Ah 8d 8c Ks 7h 4d")
    assert (got["start"], got["stop"]) == (120, 620)
    assert got["products"] == [list(r) for r in sums.products]
    assert got["settings"] == [
        {"front": " ".join(r.front), "back": " ".join(r.back), "front_name": r.front_name,
         "back_name": r.back_name, "foul": r.foul, "house_way": r.house_way,
         "wins": sums.wins[k], "pushes": sums.pushes[k], "losses": sums.losses[k]}
        for k, r in enumerate(rows)]


BASE = {"op": "explore_range", "cards": "As Ah 8d 8c Ks 7h 4d", "mode": "solo"}


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"start": 0}, "The request needs a “stop” field."),
        ({"stop": 10}, "The request needs a “start” field."),
        ({"start": -1, "stop": 10},
         "The explorer's “start” is a whole number of opponents, at least 0."),
        ({"start": 0, "stop": True},
         "The explorer's “stop” is a whole number of opponents, at least 0."),
        ({"start": 0, "stop": "120"},
         "The explorer's “stop” is a whole number of opponents, at least 0."),
        ({"start": 20, "stop": 10}, "The explorer's “stop” comes after its “start”."),
        ({"start": 0, "stop": EXPLORE_CHUNK_MAX + 1},
         f"One explorer request covers at most {EXPLORE_CHUNK_MAX:,} opponents."),
        ({"start": EXPLORE_STREAM_MAX, "stop": EXPLORE_STREAM_MAX + 1},
         f"The explorer's stream ends at {EXPLORE_STREAM_MAX:,} opponents."),
        ({"start": 0, "stop": 10, "side": "dealer", "mode": "friend"},
         "“dealer” is not a side at a friend table: use player."),
    ],
)
def test_the_batch_op_refuses_bad_ranges_with_a_sentence(fields: dict[str, object],
                                                         error: str) -> None:
    assert answer({**BASE, **fields}) == {"error": error}


def test_an_empty_range_has_zero_sums() -> None:
    sums = explore_sums("As Ah 8d 8c Ks 7h 4d", mode="friend", start=5, stop=5)
    assert (sums.samples, sum(sums.wins), sums.products[3][4]) == (0, 0, 0)
