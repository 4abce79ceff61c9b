"""What a practice setting gave up: an analysis of the 21 settings and its cost.

An :class:`Analysis` is each setting's expected score against opponents set
by the house way (solo: copies go to the dealer, rules §4), either sampled
(:func:`sampled_analysis`: the explorer's stream, the same opponents for all
21 settings) or exact (``exact=True``: any source of the explorer's row
shape, through :func:`analysis_from_rows`). :func:`decision_cost` reads the
best setting and what a chosen front gave up from any analysis, so exact
figures replace sampled ones without changing anything downstream.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .cards import codes, parse_indices
from .explore import explore_settings, explore_sums

# Opponents of a sampled practice analysis (one explorer stream).
PRACTICE_OPPONENTS = 20_000


@dataclass(frozen=True)
class Analysis:
    """The expected score of each of the 21 settings (``fronts`` in the
    explorer's order: front deck indices ascending), over ``opponents``
    opponents, ``exact`` when they are all C(46, 7) of them."""

    fronts: tuple[tuple[str, ...], ...]
    expected: tuple[float, ...]
    house_front: tuple[str, ...]
    opponents: int
    exact: bool

    @property
    def best_front(self) -> tuple[str, ...]:
        """The front of the highest expected score; on equal scores the house
        way's, then the first in the explorer's order."""
        top = max(self.expected)
        tied = [f for f, e in zip(self.fronts, self.expected, strict=True) if e == top]
        return self.house_front if self.house_front in tied else tied[0]


def sampled_analysis(
    seven: str | Iterable[str], *, opponents: int = PRACTICE_OPPONENTS, mode: str = "solo"
) -> Analysis:
    """Each setting's expected score over the first ``opponents`` of the
    explorer's stream (its first 120 are luck's).

    >>> a = sampled_analysis("As Ah 8d 8c Ks 7h 4d", opponents=2000)
    >>> len(a.expected), a.opponents, a.exact, a.house_front
    (21, 2000, False, ('8d', '8c'))
    """
    rows = explore_settings(seven)
    sums = explore_sums(seven, mode=mode, start=0, stop=opponents)
    expected = tuple((2 * w + p) / (2 * opponents) for w, p in zip(sums.wins, sums.pushes,
                                                                    strict=True))
    house = next(r.front for r in rows if r.house_way)
    return Analysis(fronts=tuple(r.front for r in rows), expected=expected, house_front=house,
                    opponents=opponents, exact=False)


def analysis_from_rows(
    seven: str | Iterable[str], rows: Iterable[Mapping[str, object]], *, opponents: int,
    exact: bool,
) -> Analysis:
    """An analysis from rows of the explorer's shape (``front``: two codes,
    ``expected``: a number), in any order, one for each of the 21 settings.

    >>> a = sampled_analysis("As Ah 8d 8c Ks 7h 4d", opponents=500)
    >>> rows = [{"front": list(f), "expected": e} for f, e in zip(a.fronts, a.expected)]
    >>> analysis_from_rows("As Ah 8d 8c Ks 7h 4d", rows[::-1], opponents=500, exact=False) == a
    True
    """
    settings = explore_settings(seven)
    by_front: dict[tuple[str, ...], float] = {}
    for row in rows:
        front = row["front"]
        value = row["expected"]
        if not isinstance(front, (str, list, tuple)) or not isinstance(value, (int, float)):
            raise ValueError("Each analysis row has a front (two cards) and an expected score.")
        by_front[codes(sorted(parse_indices(front, count=2)))] = float(value)
    fronts = tuple(s.front for s in settings)
    if set(by_front) != set(fronts):
        raise ValueError("An analysis has one row for each of the hand's 21 settings.")
    return Analysis(fronts=fronts, expected=tuple(by_front[f] for f in fronts),
                    house_front=next(s.front for s in settings if s.house_way),
                    opponents=opponents, exact=exact)


@dataclass(frozen=True)
class DecisionCost:
    """A chosen front against the analysis: its expected score, the best
    setting's, and ``loss`` = best − chosen (0 at the best)."""

    front: tuple[str, ...]
    expected: float
    best_front: tuple[str, ...]
    best_expected: float
    loss: float

    @property
    def at_best(self) -> bool:
        """Whether the chosen setting scores as well as the best one."""
        return self.loss == 0


def decision_cost(analysis: Analysis, front: str | Sequence[str]) -> DecisionCost:
    """What choosing ``front`` gave up against the analysis's best setting.

    >>> a = sampled_analysis("As Ah 8d 8c Ks 7h 4d", opponents=2000)
    >>> hw = decision_cost(a, "8c 8d")
    >>> hw.front, hw.best_front, hw.at_best, hw.loss
    (('8d', '8c'), ('8d', '8c'), True, 0.0)
    >>> foul = decision_cost(a, ["As", "Ah"])
    >>> foul.expected, foul.at_best, foul.loss == hw.best_expected
    (0.0, False, True)
    """
    wanted = codes(sorted(parse_indices(front, count=2)))
    if wanted not in analysis.fronts:
        raise ValueError("That front is not two of these seven cards.")
    chosen = analysis.expected[analysis.fronts.index(wanted)]
    best = analysis.best_front
    top = analysis.expected[analysis.fronts.index(best)]
    return DecisionCost(front=wanted, expected=chosen, best_front=best, best_expected=top,
                        loss=top - chosen)
