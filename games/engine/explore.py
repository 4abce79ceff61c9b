"""The setting explorer: all 21 settings of a hand against luck's opponents.

Each setting of the seven cards meets exactly the opponents of the luck draw
(rules §6: same key, same SplitMix64 draw, each opponent set by the house
way) and is settled with the table's mode (solo: copies go to the dealer;
fouls lose per rules §4). The house-way row therefore has exactly the luck
counts of the hand. The opponents' house ways are computed once and reused
for every setting, so exploring costs little more than one luck estimate.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .cards import codes, parse_indices
from .hands import (
    FRONT_POSITIONS,
    back_value_of,
    front_value_of,
    is_foul_values,
    name_of_back_value,
    name_of_front_value,
)
from .house_way import house_way_indices
from .luck import LUCK_SAMPLES, opponent_values, tally


@dataclass(frozen=True)
class ExploredSetting:
    """One setting, its names and foul flag, and its record against the opponents.

    ``expected`` is the mean score, (2·wins + pushes) / (2·samples).
    """

    front: tuple[str, ...]
    back: tuple[str, ...]
    front_name: str
    back_name: str
    foul: bool
    wins: int
    pushes: int
    losses: int
    expected: float
    house_way: bool


@dataclass(frozen=True)
class Exploration:
    """The 21 settings of a hand, best expected score first.

    Ties keep the house way first, then the front's deck indices in order.
    """

    samples: int
    settings: tuple[ExploredSetting, ...]

    @property
    def house_way(self) -> ExploredSetting:
        """The row of the house-way setting."""
        return next(s for s in self.settings if s.house_way)


def explore(
    seven: str | Iterable[str], *, mode: str, side: str = "player", samples: int = LUCK_SAMPLES
) -> Exploration:
    """Score every setting of seven cards against the opponents luck would draw.

    >>> x = explore("As Ah 8d 8c Ks 7h 4d", mode="solo")
    >>> len(x.settings), x.samples, sum(s.house_way for s in x.settings)
    (21, 120, 1)
    >>> hw = x.house_way
    >>> hw.front, hw.back_name
    (('8d', '8c'), 'Pair of aces')
    >>> from games.engine.luck import luck
    >>> e = luck("As Ah 8d 8c Ks 7h 4d", mode="solo", side="player")
    >>> (hw.wins, hw.pushes, hw.losses) == (e.wins, e.pushes, e.losses)
    True
    >>> [s.expected for s in x.settings] == sorted((s.expected for s in x.settings), reverse=True)
    True
    >>> x.settings[-1].foul
    True
    """
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError("The explorer needs a whole number of samples, at least 1.")
    hand = parse_indices(seven, count=7)
    opponents = opponent_values(hand, mode, side, samples)
    solo = mode == "solo"
    dealer = solo and side == "dealer"
    hw_front, _ = house_way_indices(hand)
    rows: list[tuple[int, bool, tuple[int, int], ExploredSetting]] = []
    for i, j in FRONT_POSITIONS:
        front = (hand[i], hand[j])
        back = tuple(c for k, c in enumerate(hand) if k != i and k != j)
        fv, bv = front_value_of(front), back_value_of(back)
        wins, pushes, losses = tally(fv, bv, opponents, solo=solo, dealer=dealer)
        is_house_way = front == hw_front
        row = ExploredSetting(
            front=codes(front), back=codes(back),
            front_name=name_of_front_value(fv), back_name=name_of_back_value(bv),
            foul=is_foul_values(fv, bv), wins=wins, pushes=pushes, losses=losses,
            expected=(2 * wins + pushes) / (2 * samples), house_way=is_house_way,
        )
        rows.append((2 * wins + pushes, is_house_way, front, row))
    rows.sort(key=lambda r: (-r[0], not r[1], r[2]))
    return Exploration(samples=samples, settings=tuple(r[3] for r in rows))
