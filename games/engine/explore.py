"""The setting explorer: all 21 settings of a hand against luck's opponents.

Each setting of the seven cards meets exactly the opponents of the luck draw
(rules §6: same key, same SplitMix64 draw, each opponent set by the house
way) and is settled with the table's mode (solo: copies go to the dealer;
fouls lose per rules §4). The house-way row therefore has exactly the luck
counts of the hand. The opponents' house ways are computed once and reused
for every setting, so exploring costs little more than one luck estimate.

:func:`explore` answers one fixed number of samples. The page's progressive
explorer uses :func:`explore_sums` instead: opponents ``start`` to ``stop`` of
one stream per hand whose first 120 are luck's, with the sums the page adds
up chunk by chunk, and :func:`explore_estimates` (each setting's 95% interval,
and "tied with the best" from the paired difference) says what they show.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from math import sqrt
from typing import Literal

from .cards import codes, parse_indices
from .hands import (
    FRONT_POSITIONS,
    back_value_of,
    front_value_of,
    is_foul_values,
    name_of_back_value,
    name_of_front_value,
)
from .house_way import house_way_indices, house_way_values
from .luck import (
    LUCK_SAMPLES,
    SplitMix64,
    check_side,
    draw_opponents,
    luck_key,
    luck_seed,
    opponent_values,
    tally,
)
from .settle import check_mode


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


# ---------------------------------------------------------------- the progressive explorer
#
# The page refines the explorer in chunks: opponents [start, stop) of one
# endless stream per hand, the first LUCK_SAMPLES of which are exactly luck's
# (same key, seed and draw: rules §6, with n = 120 in the key); past them the
# same SplitMix64 generator simply keeps drawing. Every setting meets the same
# opponents, so the page can compare settings pairwise: each chunk returns,
# besides each setting's wins, pushes and losses, the sums of products
# y_s × y_t over its opponents (y = 2 × score: 0 loss, 1 push, 2 win), from
# which the variance of any two settings' per-opponent difference follows.

# The most opponents one chunk request may ask for (it blocks the worker).
EXPLORE_CHUNK_MAX = 50_000
# The furthest opponent a request may reach (the stream is drawn from its start).
EXPLORE_STREAM_MAX = 1_000_000
# z of a two-sided 95% interval, as luck's (rules §6).
Z95 = 1.96

# Where each recently explored hand's stream stopped: (cards, mode, side) ->
# (next opponent index, generator state). Only a shortcut: a request that
# does not continue a remembered stream redraws it from its start, with the
# same opponents, so answers never depend on it.
_STREAMS: dict[tuple[tuple[int, ...], str, str], tuple[int, int]] = {}
_STREAMS_KEPT = 8

# Translate tables on the bytes of per-opponent results (one byte each).
_IS_WIN = bytes(1 if b == 2 else 0 for b in range(256))
_IS_PUSH = bytes(1 if b == 1 else 0 for b in range(256))


@dataclass(frozen=True)
class ExploreSums:
    """Sums over opponents ``start`` to ``stop`` (excluded) of the explorer's stream.

    ``wins``, ``pushes`` and ``losses`` are per setting, in the fixed order of
    the 21 fronts (``FRONT_POSITIONS``: front deck indices in order);
    ``products[s][t]`` is the sum of y_s × y_t (y = 2 × score), so
    ``products[s][s]`` is 4·wins + pushes. Sums of adjacent chunks add up
    (:meth:`plus`) to the sums of the whole range.
    """

    start: int
    stop: int
    wins: tuple[int, ...]
    pushes: tuple[int, ...]
    losses: tuple[int, ...]
    products: tuple[tuple[int, ...], ...]

    @property
    def samples(self) -> int:
        """How many opponents the sums cover."""
        return self.stop - self.start

    def plus(self, later: ExploreSums) -> ExploreSums:
        """These sums followed by the next chunk's (which must start at ``stop``).

        >>> a = explore_sums("As Ah 8d 8c Ks 7h 4d", mode="solo", start=0, stop=50)
        >>> b = explore_sums("As Ah 8d 8c Ks 7h 4d", mode="solo", start=50, stop=120)
        >>> a.plus(b) == explore_sums("As Ah 8d 8c Ks 7h 4d", mode="solo", start=0, stop=120)
        True
        """
        if later.start != self.stop:
            raise ValueError("Chunks add up only in order: the next one starts where this stops.")
        return ExploreSums(
            start=self.start, stop=later.stop,
            wins=tuple(a + b for a, b in zip(self.wins, later.wins, strict=True)),
            pushes=tuple(a + b for a, b in zip(self.pushes, later.pushes, strict=True)),
            losses=tuple(a + b for a, b in zip(self.losses, later.losses, strict=True)),
            products=tuple(tuple(a + b for a, b in zip(r, q, strict=True))
                           for r, q in zip(self.products, later.products, strict=True)),
        )


def _stream_opponents(
    hand: tuple[int, ...], mode: str, side: str, start: int, stop: int
) -> list[tuple[int, ...]]:
    """Opponents ``start`` to ``stop`` of the hand's explorer stream."""
    key = (hand, mode, side)
    kept = _STREAMS.get(key)
    if kept is not None and kept[0] <= start:
        at, state = kept
        rng = SplitMix64(0)
        rng.state = state
    else:
        at, rng = 0, SplitMix64(luck_seed(luck_key(hand, mode, side, LUCK_SAMPLES)))
    for _ in draw_opponents(hand, start - at, rng):
        pass  # skipped: drawn only to move the generator on
    opponents = list(draw_opponents(hand, stop - start, rng))
    _STREAMS.pop(key, None)
    if len(_STREAMS) >= _STREAMS_KEPT:
        del _STREAMS[next(iter(_STREAMS))]
    _STREAMS[key] = (stop, rng.state)
    return opponents


def _part_table(k: int) -> bytes:
    """For the k-th sorted value: 2 below slot 2k + 1 (it wins), 1 at it (copy), 0 above."""
    return bytes(2 if slot < 2 * k + 1 else (1 if slot == 2 * k + 1 else 0) for slot in range(256))


def _outcome_table(foul: bool, copy: int) -> bytes:
    """Result byte (2 win, 1 push, 0 loss) of code 9·their_foul + 3·front_part + back_part.

    ``copy`` is what a copied part counts for this side: -1 (solo player),
    +1 (solo dealer), 0 (friend); a won part +1, a lost one -1 (rules §4).
    """
    out = bytearray(256)
    for code in range(18):
        their_foul, parts = divmod(code, 9)
        if foul or their_foul:
            out[code] = 1 if foul and their_foul else (0 if foul else 2)
            continue
        net = sum(copy if part == 1 else part - 1 for part in divmod(parts, 3))
        out[code] = 2 if net == 2 else (0 if net == -2 else 1)
    return bytes(out)


_PART_TABLES = tuple(_part_table(k) for k in range(len(FRONT_POSITIONS)))
_OUTCOME_TABLES = {(foul, copy): _outcome_table(foul, copy)
                   for foul in (False, True) for copy in (-1, 0, 1)}


def explore_sums(
    seven: str | Iterable[str], *, mode: str, side: str = "player", start: int, stop: int
) -> ExploreSums:
    """The explorer's sums over opponents ``start`` to ``stop`` of the hand's stream.

    The first 120 opponents are luck's (rules §6), so the house way's counts
    over them are the luck counts, and every row agrees with :func:`explore`:

    >>> s = explore_sums("As Ah 8d 8c Ks 7h 4d", mode="solo", start=0, stop=120)
    >>> x = explore("As Ah 8d 8c Ks 7h 4d", mode="solo")
    >>> rows = {r.front: (r.wins, r.pushes, r.losses) for r in x.settings}
    >>> fronts = [r.front for r in explore_settings("As Ah 8d 8c Ks 7h 4d")]
    >>> all(rows[f] == (s.wins[k], s.pushes[k], s.losses[k]) for k, f in enumerate(fronts))
    True
    >>> s.products[0][0] == 4 * s.wins[0] + s.pushes[0]
    True
    """
    for name, value in (("start", start), ("stop", stop)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"The explorer's “{name}” is a whole number of opponents, at least 0.")
    if stop < start:
        raise ValueError("The explorer's “stop” comes after its “start”.")
    if stop - start > EXPLORE_CHUNK_MAX:
        raise ValueError(f"One explorer request covers at most {EXPLORE_CHUNK_MAX:,} opponents.")
    if stop > EXPLORE_STREAM_MAX:
        raise ValueError(f"The explorer's stream ends at {EXPLORE_STREAM_MAX:,} opponents.")
    hand = parse_indices(seven, count=7)
    check_mode(mode)
    check_side(mode, side)
    values = []
    for i, j in FRONT_POSITIONS:
        back = tuple(c for k, c in enumerate(hand) if k != i and k != j)
        values.append((front_value_of((hand[i], hand[j])), back_value_of(back)))
    opponents = (house_way_values(o) for o in _stream_opponents(hand, mode, side, start, stop))
    wins, pushes, losses, products = tally_settings(
        values, opponents, solo=mode == "solo", dealer=mode == "solo" and side == "dealer")
    return ExploreSums(start=start, stop=stop, wins=wins, pushes=pushes, losses=losses,
                       products=products)


Tallies = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...]]


def tally_settings(
    settings: list[tuple[int, int]], opponents: Iterable[tuple[int, int]], *, solo: bool,
    dealer: bool,
) -> Tallies:
    """:func:`~games.engine.luck.tally` for up to 21 settings (front and back values)
    against the same opponents at once: each setting's wins, pushes and losses,
    and the sums of y_s × y_t over the opponents (y = 2 win, 1 push, 0 loss).

    ``solo`` and ``dealer`` mean what they mean for ``tally``: copies go to the
    dealer, fouls lose and two fouls push (rules §4). The opponents are read
    once; the rest is bytewise work in C, so 21 settings cost about one.

    >>> opponents = opponent_values(parse_indices("As Ah 8d 8c Ks 7h 4d"), "solo", "player", 120)
    >>> mine = opponents[:3]  # any three settings, as values
    >>> wins, pushes, losses, products = tally_settings(mine, opponents, solo=True, dealer=False)
    >>> [(wins[k], pushes[k], losses[k]) for k in range(3)] == [
    ...     tally(f, b, opponents, solo=True, dealer=False) for f, b in mine]
    True
    >>> products[0][0] == 4 * wins[0] + pushes[0], products[0][1] == products[1][0]
    (True, True)
    """
    fronts = [f for f, _ in settings]
    backs = [b for _, b in settings]
    fouls = [is_foul_values(f, b) for f, b in settings]
    front_sorted, back_sorted = sorted(set(fronts)), sorted(set(backs))
    n_front, n_back = len(front_sorted), len(back_sorted)

    # One pass over the opponents: each one's slot among the settings' fronts
    # and backs (2p + 1 when equal to the p-th smallest, 2p just below it), and
    # whether it fouls (a house way never does; rules §4 say what it would
    # mean, so it is counted, not assumed).
    front_slots, back_slots, their_fouls = bytearray(), bytearray(), bytearray()
    for tf, tb in opponents:
        p = bisect_left(front_sorted, tf)
        front_slots.append(2 * p + 1 if p < n_front and front_sorted[p] == tf else 2 * p)
        p = bisect_left(back_sorted, tb)
        back_slots.append(2 * p + 1 if p < n_back and back_sorted[p] == tb else 2 * p)
        their_fouls.append(9 if is_foul_values(tf, tb) else 0)

    # Then per setting, bytewise: each part's result, the code
    # 9·their_foul + 3·front + back (one byte, no carries), the result.
    n = len(front_slots)
    fouled = int.from_bytes(their_fouls, "little")
    copy = (1 if dealer else -1) if solo else 0
    wins, pushes, losses, win_bits, push_bits = [], [], [], [], []
    for fv, bv, foul in zip(fronts, backs, fouls, strict=True):
        front_part = front_slots.translate(_PART_TABLES[front_sorted.index(fv)])
        back_part = back_slots.translate(_PART_TABLES[back_sorted.index(bv)])
        code = (3 * int.from_bytes(front_part, "little") + int.from_bytes(back_part, "little")
                + fouled).to_bytes(n, "little")
        result = code.translate(_OUTCOME_TABLES[foul, copy])
        won, pushed = result.count(2), result.count(1)
        wins.append(won)
        pushes.append(pushed)
        losses.append(n - won - pushed)
        win_bits.append(int.from_bytes(result.translate(_IS_WIN), "little"))
        push_bits.append(int.from_bytes(result.translate(_IS_PUSH), "little"))
    # y_s·y_t = 4·(both win) + 2·(one wins, the other pushes) + (both push).
    products = [[0] * len(settings) for _ in settings]
    for s, (ws, ps) in enumerate(zip(win_bits, push_bits, strict=True)):
        products[s][s] = 4 * wins[s] + pushes[s]
        for t in range(s + 1, len(settings)):
            wt, pt = win_bits[t], push_bits[t]
            products[s][t] = products[t][s] = (
                4 * (ws & wt).bit_count() + 2 * ((ws & pt).bit_count() + (ps & wt).bit_count())
                + (ps & pt).bit_count()
            )
    return tuple(wins), tuple(pushes), tuple(losses), tuple(tuple(r) for r in products)


@dataclass(frozen=True)
class ExplorerSetting:
    """One of the 21 settings, as the progressive explorer lists them."""

    front: tuple[str, ...]
    back: tuple[str, ...]
    front_name: str
    back_name: str
    foul: bool
    house_way: bool


def explore_settings(seven: str | Iterable[str]) -> tuple[ExplorerSetting, ...]:
    """The 21 settings in the order of :class:`ExploreSums` (front deck indices in order).

    >>> rows = explore_settings("As Ah 8d 8c Ks 7h 4d")
    >>> len(rows), rows[0].front, sum(r.house_way for r in rows)
    (21, ('As', 'Ks'), 1)
    """
    hand = parse_indices(seven, count=7)
    hw_front, _ = house_way_indices(hand)
    out = []
    for i, j in FRONT_POSITIONS:
        front = (hand[i], hand[j])
        back = tuple(c for k, c in enumerate(hand) if k != i and k != j)
        fv, bv = front_value_of(front), back_value_of(back)
        out.append(ExplorerSetting(
            front=codes(front), back=codes(back), front_name=name_of_front_value(fv),
            back_name=name_of_back_value(bv), foul=is_foul_values(fv, bv),
            house_way=front == hw_front,
        ))
    return tuple(out)


Standing = Literal["best", "tied", "behind"]


@dataclass(frozen=True)
class SettingEstimate:
    """A setting's expected score with its 95% interval, and how it stands against the best.

    ``behind`` is the best's expected score minus this one's over the same
    opponents, with the 95% interval of that paired difference
    (``behind_low``, ``behind_high``). The rule: a setting is **tied** with
    the best while that interval includes 0 (``behind_low <= 0``), else
    **behind**; the best is the highest expected score (on equal scores the
    house way, then the front's deck indices in order).
    """

    index: int
    expected: float
    low: float
    high: float
    behind: float
    behind_low: float
    behind_high: float
    standing: Standing


def half_width(n: int, total: int, squares: int) -> float:
    """1.96 × the standard error of a mean of n scores y / 2 (y whole), as luck's
    interval (rules §6): s² = Σ(x − mean)² / (n − 1), h = 1.96 × √(s² / n).

    ``total`` is Σy and ``squares`` Σy²; all arithmetic is on whole numbers
    until one division, so the page's JavaScript gets the very same float.

    58 wins, 49 pushes and 13 losses (Σy = 165, Σy² = 281) give luck's
    interval 7.2 (6.6–7.7), that is 1 + 9 × (0.6875 ± h):

    >>> h = half_width(120, 165, 281)
    >>> round(h, 4), round(1 + 9 * (0.6875 - h), 1), round(1 + 9 * (0.6875 + h), 1)
    (0.0603, 6.6, 7.7)
    """
    if n < 2:
        return float("inf")
    return Z95 * sqrt((n * squares - total * total) / (4 * n * (n - 1)) / n)


def explore_estimates(sums: ExploreSums, house_way: int) -> tuple[SettingEstimate, ...]:
    """Each setting's estimate from the explorer's sums, best first.

    ``house_way`` is the index of the house-way setting (it wins equal scores).

    >>> sums = explore_sums("As Ah 8d 8c Ks 7h 4d", mode="solo", start=0, stop=2000)
    >>> hw = next(k for k, s in enumerate(explore_settings("As Ah 8d 8c Ks 7h 4d")) if s.house_way)
    >>> rows = explore_estimates(sums, hw)
    >>> rows[0].standing, rows[0].behind, rows[-1].standing
    ('best', 0.0, 'behind')
    >>> all(r.low <= r.expected <= r.high for r in rows)
    True
    """
    n = sums.samples
    totals = [2 * w + p for w, p in zip(sums.wins, sums.pushes, strict=True)]
    order = sorted(range(len(totals)), key=lambda k: (-totals[k], k != house_way, k))
    best = order[0]
    rows = []
    for k in order:
        expected = totals[k] / (2 * n) if n else 0.0
        h = half_width(n, totals[k], sums.products[k][k])
        # The paired difference d = y_best − y_k per opponent.
        d1 = totals[best] - totals[k]
        d2 = sums.products[best][best] + sums.products[k][k] - 2 * sums.products[best][k]
        behind = d1 / (2 * n) if n else 0.0
        hd = 0.0 if k == best else half_width(n, d1, d2)
        standing: Standing = (
            "best" if k == best else ("tied" if behind - hd <= 0 else "behind")
        )
        rows.append(SettingEstimate(
            index=k, expected=expected, low=max(0.0, expected - h), high=min(1.0, expected + h),
            behind=behind, behind_low=behind - hd, behind_high=behind + hd, standing=standing,
        ))
    return tuple(rows)
