"""The 100-hand test's published deck order: test number N deals the same
hands to everyone.

How to reproduce test N's hands without the site (Python 3, standard library)::

    import random
    rng = random.Random(f"paigow-test-{N}")      # a str seed: the same on every platform
    for _ in range(100):
        deck = list(DECK)                          # the 53 codes in engine.cards.DECK's order
        rng.shuffle(deck)                          # one shuffle of the whole deck per hand
        hand = sort_cards(deck[:7])                # the first seven, in DECK's order

A ``str`` seed is hashed with SHA-512 by ``random.seed`` (version 2), so the
order depends on N alone: not on the process, the hash seed or the machine.
"""

from __future__ import annotations

import random

from .cards import DECK, sort_cards

TEST_HANDS = 100


def test_seed(number: int) -> str:
    """The seed of test ``number``'s deck order (published with the test).

    >>> test_seed(7)
    'paigow-test-7'
    """
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError("A test number is a whole number from 1 up.")
    return f"paigow-test-{number}"


def test_hands(number: int, count: int = TEST_HANDS) -> tuple[tuple[str, ...], ...]:  # noqa: PT028
    """The ``count`` (100) seven-card hands of test ``number``, in order, each
    in the deck's order (``sort_cards``): the first seven cards of a fresh shuffle of the
    53-card deck per hand, all drawn from one ``random.Random(test_seed(number))``.

    >>> hands = test_hands(1)
    >>> len(hands), hands[0]
    (100, ('As', '3s', 'Ah', 'Qh', 'Jh', 'Ac', 'Qc'))
    >>> test_hands(1, count=3) == hands[:3], test_hands(2)[0] == hands[0]
    (True, False)
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError("A test has at least one hand.")
    rng = random.Random(test_seed(number))
    hands = []
    for _ in range(count):
        deck = list(DECK)
        rng.shuffle(deck)
        hands.append(sort_cards(deck[:7]))
    return tuple(hands)


# Named like a test, but it is the product: pytest must not collect it where imported.
test_seed.__test__ = False  # type: ignore[attr-defined]
test_hands.__test__ = False  # type: ignore[attr-defined]
