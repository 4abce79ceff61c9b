"""Statistical checks against known exact results (seeded, so deterministic)."""

from __future__ import annotations

import math
import random
import statistics

from games.engine.hands import back_value_of, best_five_indices, front_value_of
from games.engine.house_way import house_way_setting_of
from games.engine.luck import luck_counts, luck_from_counts
from games.engine.settle import outcome

# Alspach's exact counts of best five-card categories over all C(53, 7) hands.
ALSPACH = {
    10: 1_128, 8: 210_964, 7: 307_472, 6: 4_188_528, 5: 6_172_088, 4: 11_236_028,
    3: 7_470_676, 2: 35_553_816, 1: 64_221_960, 0: 24_780_420,
}
TOTAL = 154_143_080
# chi-square critical values at p = 0.001 by degrees of freedom
CHI2_999 = {6: 22.458, 7: 24.322, 8: 26.124}


def test_alspach_counts_sum_to_all_seven_card_hands() -> None:
    assert sum(ALSPACH.values()) == TOTAL == math.comb(53, 7)


def test_best_five_categories_match_alspach_chi_square() -> None:
    rng = random.Random(53_007)
    n = 60_000
    seen = dict.fromkeys(ALSPACH, 0)
    for _ in range(n):
        category = back_value_of(best_five_indices(rng.sample(range(53), 7))) >> 20
        seen[8 if category == 9 else category] += 1  # royals count as straight flushes
    # Merge the rare top categories so every expected count is large.
    rare = (10, 8, 7)
    bins = [rare] + [(c,) for c in (6, 5, 4, 3, 2, 1, 0)]
    chi2 = 0.0
    for group in bins:
        expected = n * sum(ALSPACH[c] for c in group) / TOTAL
        observed = sum(seen[c] for c in group)
        chi2 += (observed - expected) ** 2 / expected
    assert chi2 < CHI2_999[len(bins) - 1], (chi2, seen)


def _house_way_values(hand: tuple[int, ...]) -> tuple[int, int]:
    front, back = house_way_setting_of(hand)
    return front_value_of(front), back_value_of(back)


def test_house_way_against_house_way_solo_is_about_28_42_30() -> None:
    rng = random.Random(2_8_42_30)
    n = 6_000
    tally = [0, 0, 0]
    for _ in range(n):
        cards = rng.sample(range(53), 14)
        player = _house_way_values(tuple(sorted(cards[:7])))
        dealer = _house_way_values(tuple(sorted(cards[7:])))
        tally[outcome(True, *player, *dealer)] += 1
    losses, pushes, wins = (t / n for t in tally)
    for observed, expected in ((wins, 0.28), (pushes, 0.42), (losses, 0.30)):
        sigma = math.sqrt(expected * (1 - expected) / n)
        assert abs(observed - expected) < 4 * sigma + 0.01, (wins, pushes, losses)


def test_friend_mode_mean_luck_is_five_and_a_half() -> None:
    rng = random.Random(55)
    lucks = []
    for _ in range(60):
        hand = tuple(sorted(rng.sample(range(53), 7)))
        wins, pushes, losses = luck_counts(hand, "friend", "player", 120)
        lucks.append(luck_from_counts(wins=wins, pushes=pushes, losses=losses).luck)
    mean = statistics.fmean(lucks)
    se = statistics.stdev(lucks) / math.sqrt(len(lucks))
    assert abs(mean - 5.5) < 4 * se, (mean, se)
