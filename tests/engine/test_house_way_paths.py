"""The fast, pattern-cached house way agrees with the literal reference."""

from __future__ import annotations

import itertools
import random

import pytest

from games.engine.cards import JOKER
from games.engine.hands import RANK_KEY
from games.engine.house_way import PATTERN_CACHE, house_way_indices, reference_indices


def _resuit(hand: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    """The same ranks with other suits (a different hand, same rank pattern)."""
    by_slot: dict[int, int] = {}
    for c in hand:
        if c != JOKER:
            by_slot[c % 13] = by_slot.get(c % 13, 0) + 1
    out = [JOKER] if JOKER in hand else []
    for slot, n in by_slot.items():
        out += [s * 13 + slot for s in rng.sample(range(4), n)]
    return tuple(sorted(out))


def test_fast_house_way_matches_reference_on_random_hands() -> None:
    rng = random.Random(97)
    PATTERN_CACHE.clear()
    for _ in range(4_000):
        hand = tuple(sorted(rng.sample(range(53), 7)))
        house_way_indices(_resuit(hand, rng))  # fill the cache from a sibling hand
        assert house_way_indices(hand) == reference_indices(hand), hand


def test_fast_house_way_matches_reference_on_paired_hands() -> None:
    # Random deals rarely hold quads, trips or many pairs: build them on purpose.
    rng = random.Random(98)
    for _ in range(3_000):
        slots = rng.choices(range(13), k=rng.randint(2, 5))
        cards: set[int] = set()
        for slot in slots:
            for suit in rng.sample(range(4), rng.randint(1, 4)):
                cards.add(suit * 13 + slot)
        pool = [c for c in range(53) if c not in cards]
        cards = set(list(cards)[:7])
        cards |= set(rng.sample(pool, 7 - len(cards)))
        hand = tuple(sorted(cards))
        assert house_way_indices(hand) == reference_indices(hand), hand


@pytest.mark.slow
def test_fast_house_way_matches_reference_on_every_rank_pattern() -> None:
    # Every multiset of seven ranks (joker included), suited so no flush forms.
    checked = 0
    for jokers in (0, 1):
        for slots in itertools.combinations_with_replacement(range(13), 7 - jokers):
            if any(slots.count(s) > 4 for s in set(slots)):
                continue
            cards: list[int] = []
            for n, slot in enumerate(slots):
                suit = n % 4  # spread the suits: at most two of a suit
                while suit * 13 + slot in cards:
                    suit = (suit + 1) % 4
                cards.append(suit * 13 + slot)
            hand = tuple(sorted(cards + [JOKER] * jokers))
            PATTERN_CACHE.pop(sum(RANK_KEY[c] for c in hand), None)
            assert house_way_indices(hand) == reference_indices(hand), hand
            checked += 1
    assert checked == 67_600
