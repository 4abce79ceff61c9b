"""The cost of a decision: the expected score a locked setting gives up against the best.

This is the project's own measure, beside decision skill (rules §7, which
compares the setting with the house way against the one opponent actually
met). Here the seven cards meet many opponents, each set by the house way and
settled as in rules §4 (fouls lose), and every one of the 21 settings meets
the same opponents: the loss is the best setting's expected score minus the
locked setting's. A foul is one of the 21 settings and counts like any other.

:func:`decision_cost` estimates it from the setting explorer's stream
(opponents 0 to ``samples`` of :func:`~games.engine.explore.explore_sums`, the
first 120 being luck's), so it agrees with what the page's explorer shows at
that many opponents; an exact analysis over every opponent replaces it later.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from .cards import parse_cards
from .exact import OPPONENTS
from .explore import (
    EXPLORE_CHUNK_MAX,
    ExploreSums,
    explore_estimates,
    explore_settings,
    explore_sums,
)

# How a cost was computed: over a sample of opponents, or over every one.
COST_METHODS = ("sampled", "exact")
# Opponents of an exact analysis: every seven of the 46 cards left, C(46, 7).
EXACT_OPPONENTS = OPPONENTS
# A stored loss's places: an exact loss is a multiple of 1 / (2 × C(46, 7)),
# about 9.3e-9, so nine places keep every nonzero one above 0.
LOSS_PLACES = Decimal("0.000000001")


@dataclass(frozen=True)
class DecisionCost:
    """The locked setting against the best of the 21 over the same opponents.

    ``chosen_expected`` and ``best_expected`` are mean scores (win 1, push ½,
    loss 0); ``loss`` is their difference, at least 0. ``at_best`` is true
    when the locked setting is the best, or tied with it by the explorer's
    rule (the 95% interval of the paired difference includes 0).
    """

    opponents: int
    chosen_expected: float
    best_expected: float
    best_front: tuple[str, ...]
    at_best: bool

    @property
    def loss(self) -> float:
        """The expected score given up against the best setting (0 at the best)."""
        return max(0.0, self.best_expected - self.chosen_expected)


def _sums(seven: tuple[str, ...], mode: str, side: str, samples: int) -> ExploreSums:
    total: ExploreSums | None = None
    for start in range(0, samples, EXPLORE_CHUNK_MAX):
        chunk = explore_sums(
            seven, mode=mode, side=side, start=start, stop=min(samples, start + EXPLORE_CHUNK_MAX)
        )
        total = chunk if total is None else total.plus(chunk)
    assert total is not None  # samples >= 1
    return total


def decision_cost(
    seven: str | Iterable[str], *, mode: str, side: str = "player",
    front: str | Iterable[str], samples: int,
) -> DecisionCost:
    """Estimate what the setting with ``front`` gives up against the best setting,
    over the first ``samples`` opponents of the explorer's stream.

    The house way of the two-pair lesson (rules §9) is the best here, so it
    gives up nothing; a foul gives up much:

    >>> hw = decision_cost("As Ah 8d 8c Ks 7h 4d", mode="solo", front="8d 8c", samples=2000)
    >>> hw.at_best, hw.loss, hw.best_front, hw.opponents
    (True, 0.0, ('8d', '8c'), 2000)
    >>> foul = decision_cost("As Ah 8d 8c Ks 7h 4d", mode="solo", front="As Ah", samples=2000)
    >>> foul.at_best, foul.loss > 0.3, foul.best_expected == hw.best_expected
    (False, True, True)
    """
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError("A decision cost needs a whole number of opponents, at least 1.")
    cards = parse_cards(seven, count=7)
    chosen = frozenset(parse_cards(front, count=2))
    settings = explore_settings(cards)
    index = next((k for k, s in enumerate(settings) if frozenset(s.front) == chosen), None)
    if index is None:
        raise ValueError("The front must be two of the seven cards.")
    house_way = next(k for k, s in enumerate(settings) if s.house_way)
    sums = _sums(cards, mode, side, samples)
    rows = explore_estimates(sums, house_way)
    best = rows[0]
    mine = next(r for r in rows if r.index == index)
    return DecisionCost(
        opponents=sums.samples,
        chosen_expected=mine.expected,
        best_expected=best.expected,
        best_front=settings[best.index].front,
        at_best=mine.standing != "behind",
    )
