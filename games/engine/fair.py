"""Shuffling, the deck commitment and the deal (the server's side of fairness)."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence

from .cards import DECK, INDEX, sort_cards


def shuffle_deck(rng: random.Random) -> tuple[str, ...]:
    """All 53 codes in an order drawn from ``rng`` (the server passes SystemRandom).

    >>> deck = shuffle_deck(random.Random(1))
    >>> len(deck), sorted(deck) == sorted(DECK)
    (53, True)
    """
    deck = list(DECK)
    rng.shuffle(deck)
    return tuple(deck)


def deck_commitment(deck_order: Sequence[str], secret: str) -> str:
    """SHA-256 hex of the deck order and the secret, published before the deal.

    >>> len(deck_commitment(DECK, "s3cret"))
    64
    """
    return hashlib.sha256((" ".join(deck_order) + "|" + secret).encode()).hexdigest()


def verify_shuffle(deck_order: Sequence[str], secret: str, commitment: str) -> bool:
    """True when the deck is all 53 cards once each and matches the commitment.

    >>> commitment = deck_commitment(DECK, "x")
    >>> verify_shuffle(DECK, "x", commitment), verify_shuffle(DECK, "y", commitment)
    (True, False)
    """
    if len(deck_order) != 53 or set(deck_order) != set(INDEX):
        return False
    return hmac.compare_digest(deck_commitment(deck_order, secret), commitment.lower())


def deal_hands(deck_order: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Seat 0 gets cards 1-7 of the deck, seat 1 cards 8-14, each in deck order.

    >>> deal_hands(DECK)[1]
    ('7s', '6s', '5s', '4s', '3s', '2s', 'Ah')
    """
    if len(deck_order) < 14:
        raise ValueError("The deck is too short to deal two hands.")
    return sort_cards(deck_order[0:7]), sort_cards(deck_order[7:14])
