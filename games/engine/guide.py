"""What a seat needs to set its hand, computed with the deal: the guide.

For seven cards: the 21 settings with their front and back names and any
foul explanation, the house way with its row and reason, and for each
setting the coach's comparison with the house way (front and back compared
as the table compares them, and the backs named as the coach names them:
the kicker that decides when both names are the same). The server
sends it in the seat's own part of its view (``view.seat_view``), so the
table page names hands, warns of a foul, offers the house way and coaches
from the first frame, without waiting for the engine to load on the device.

A guide depends only on the seven cards, so it is computed once per hand
(memoised by the sorted deck indices) however many frames are built; its
JSON rows too, as flat tuples from which each frame makes its own dicts and
lists (a frame owns them).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from .cards import RANK_WORDS, codes, parse_indices
from .hands import (
    FLUSH,
    FOUR_OF_A_KIND,
    FRONT_POSITIONS,
    FRONT_VALUES,
    HIGH_CARD,
    PAIR,
    RANK_KEY,
    SUIT_KEY,
    THREE_OF_A_KIND,
    TWO_PAIR,
    back_value_from_keys,
    back_value_of,
    foul_reason_of_values,
    name_of_back_value,
    name_of_front_value,
)
from .house_way import REASONS, house_way_indices

# How many leading rank slots a back's name already says, by category; the
# slots after them are kickers the name leaves out (rules §2.1's order).
_NAMED_SLOTS = {FOUR_OF_A_KIND: 1, THREE_OF_A_KIND: 1, TWO_PAIR: 2, PAIR: 1, FLUSH: 1,
                HIGH_CARD: 1}


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


# Each house-way row (house_way.REASONS's ids) in the words of the rules
# page's "When you hold" column: what every page a player reads shows; the
# ids stay in the API, the CSV and the frames.
ROW_WORDS: dict[str, str] = {
    "five-aces-kings": "Five aces and a pair of kings",
    "five-aces-split": "Five aces",
    "royal-flush": "Royal flush",
    "straight-flush": "Straight flush",
    "straight-or-flush": "Straight or flush",
    "quads-low-keep": "Four of a kind, 2s to 6s",
    "quads-mid-keep": "Four of a kind, 7s to 10s, kept together",
    "quads-mid-split": "Four of a kind, 7s to 10s, split",
    "quads-high-keep": "Four of a kind, jacks to kings, kept together",
    "quads-high-split": "Four of a kind, jacks to kings, split",
    "quads-aces-keep": "Four aces, kept together",
    "quads-aces-split": "Four aces, split",
    "two-trips": "Two three of a kinds",
    "full-house-two-pair": "Three of a kind and two pairs",
    "full-house-deuces-ak": "Three of a kind, a pair of 2s, and an ace and a king",
    "full-house-split": "Three of a kind and one pair",
    "three-pair": "Three pairs",
    "trip-aces": "Three aces",
    "trips": "Three of a kind",
    "two-pair-keep": "Two pair, kept together",
    "two-pair-split": "Two pair, split",
    "one-pair": "One pair",
    "no-pair": "No pair",
}
for _straight in ("royal-flush", "straight-flush", "straight-or-flush"):
    for _tail, _as in (("keep", "two pair kept together"), ("split", "two pair split"),
                       ("three-pair", "three pairs")):
        ROW_WORDS[f"{_straight}-as-pairs-{_tail}"] = f"{ROW_WORDS[_straight]} played as {_as}"
assert ROW_WORDS.keys() == REASONS.keys(), "a house-way row without words"


def row_words(row: str) -> str:
    """A house-way row's words for people (the id itself if it is unknown).

    >>> row_words("two-pair-split"), row_words("trips")
    ('Two pair, split', 'Three of a kind')
    >>> row_words("straight-or-flush-as-pairs-keep")
    'Straight or flush played as two pair kept together'
    """
    return ROW_WORDS.get(row, row)


# Names by value (a few thousand backs and a few hundred fronts exist).
_back_name = functools.lru_cache(maxsize=16384)(name_of_back_value)
_front_name = functools.lru_cache(maxsize=1024)(name_of_front_value)


def _slots(value: int) -> list[int]:
    return [value >> shift & 15 for shift in (16, 12, 8, 4, 0)]


def back_words(value: int, other: int) -> str:
    """A back's name as the coach says it beside ``other``, a back it is
    compared with: the plain name, plus the kickers up to the one that
    decides when both names are the same but the backs are not (lower case).

    >>> from games.engine.hands import back_value_of as v
    >>> from games.engine.cards import parse_indices as p
    >>> nines_king = v(p("9s 9h Ks 5d 2c"))
    >>> back_words(nines_king, v(p("9s 9h Qs 5d 2c")))
    'pair of nines, king kicker'
    >>> back_words(v(p("9s 9h Ks 6d 2c")), v(p("9s 9h Kd 5d 2c")))
    'pair of nines, king-six kickers'
    >>> back_words(v(p("Ks 9h 7s 5d 2c")), v(p("Kd 8h 7s 5d 2c")))
    'king-nine high'
    >>> back_words(nines_king, v(p("8s 8h Ks 5d 2c")))
    'pair of nines'
    """
    name = _lower(_back_name(value))
    category = value >> 20
    if value == other or category not in _NAMED_SLOTS or _back_name(value) != _back_name(other):
        return name
    mine, theirs = _slots(value), _slots(other)
    decides = next(i for i in range(5) if mine[i] != theirs[i])
    named = _NAMED_SLOTS[category]
    words = "-".join(RANK_WORDS[r] for r in mine[:decides + 1])
    if category in (HIGH_CARD, FLUSH):
        return f"{'flush, ' if category == FLUSH else ''}{words} high"
    kickers = mine[named:decides + 1]
    word = "kicker" if len(kickers) == 1 else "kickers"
    return f"{name}, {'-'.join(RANK_WORDS[r] for r in kickers)} {word}"


def backs_in_words(mine: str | Iterable[str], theirs: str | Iterable[str]) -> tuple[str, str]:
    """Two backs that met at a reveal, each as :func:`back_words` says it
    beside the other: the deciding kicker is named when the names tie.

    >>> backs_in_words("9s 9h Ks 5d 2c", "9d 9c 7s 5h 2d")
    ('pair of nines, king kicker', 'pair of nines, seven kicker')
    >>> backs_in_words("As Ah Ks 5d 2c", "9d 9c 7s 5h 2d")
    ('pair of aces', 'pair of nines')
    """
    a = back_value_of(parse_indices(mine, count=5))
    b = back_value_of(parse_indices(theirs, count=5))
    return back_words(a, b), back_words(b, a)


@dataclass(frozen=True)
class GuidedSetting:
    """One of the 21 settings as the page shows it, compared with the house way.

    ``front_cmp`` / ``back_cmp`` are 1, 0 or -1: this setting's front (back)
    against the house way's, as the table compares them. ``back_words`` is
    how the coach names this back and the house way's beside each other
    (:func:`back_words`: the kicker that decides when the names are the same).
    """

    front: tuple[str, ...]
    back: tuple[str, ...]
    front_name: str
    back_name: str
    foul_reason: str | None
    house_way: bool
    front_cmp: int
    back_cmp: int
    back_words: tuple[str, str]

    @property
    def foul(self) -> bool:
        """Whether the setting fouls (rules §2.3)."""
        return self.foul_reason is not None


_NOT_IN_HAND = "That front is not two of these seven cards."


@dataclass(frozen=True)
class Guide:
    """A hand's 21 settings (fronts in lexicographic deck order, as
    ``hands.all_settings``) and the house way's row and reason."""

    settings: tuple[GuidedSetting, ...]
    row: str
    reason: str

    @property
    def house_way(self) -> GuidedSetting:
        """The house way's setting."""
        return next(s for s in self.settings if s.house_way)

    def setting(self, front: str | Iterable[str]) -> GuidedSetting:
        """The setting with this front (two codes, any order).

        Raises ValueError (a sentence) when the front is not two of the hand's cards.
        """
        wanted = codes(parse_indices(front, count=2))
        for s in self.settings:
            if s.front == wanted:
                return s
        raise ValueError(_NOT_IN_HAND)


# The 21 settings as positions in seven sorted cards, in FRONT_POSITIONS
# order: the front's two, then the back's five.
_LAYOUT: tuple[tuple[int, ...], ...] = tuple(
    (i, j, *(k for k in range(7) if k != i and k != j)) for i, j in FRONT_POSITIONS
)
# The smallest back value of two pair: no back at or above it can be fouled.
_TWO_PAIR_MIN = TWO_PAIR << 20


@functools.lru_cache(maxsize=16384)
def _back_names(value: int) -> tuple[str, str]:
    """A back value's name, and the same name lower-cased (the coach's plain words)."""
    name = _back_name(value)
    return name, _lower(name)


# back_words both ways of two different backs whose names tie, by their rank
# slots down to the one that decides and that slot's shift (nothing else
# changes the words). Bounded: emptied when full.
_TIED_WORDS: dict[tuple[int, int, int], tuple[str, str]] = {}
_TIED_WORDS_MAX = 16384


def _tied_back_words(value: int, other: int) -> tuple[str, str]:
    """``(back_words(value, other), back_words(other, value))`` for two
    different backs with the same name (memoised)."""
    shift = ((value ^ other).bit_length() - 1) & ~3  # the deciding slot's shift
    key = (value >> shift, other >> shift, shift)
    words = _TIED_WORDS.get(key)
    if words is None:
        if len(_TIED_WORDS) >= _TIED_WORDS_MAX:
            _TIED_WORDS.clear()
        words = _TIED_WORDS[key] = (back_words(value, other), back_words(other, value))
    return words


# Foul sentences ("" when legal) by front value and the back's category and
# top two ranks: a back that can be fouled is below two pair, and the
# sentence names it by no more than those (hands.foul_reason_of_values).
# Bounded: emptied when full.
_FOUL_REASONS: dict[int, str] = {}
_FOUL_REASONS_MAX = 16384


def _foul_reason(fv: int, bv: int) -> str | None:
    """``foul_reason_of_values(fv, bv)`` (memoised)."""
    if bv >= _TWO_PAIR_MIN:
        return None
    key = fv << 24 | bv >> 12  # an int: no tuple made
    reason = _FOUL_REASONS.get(key)
    if reason is None:
        if len(_FOUL_REASONS) >= _FOUL_REASONS_MAX:
            _FOUL_REASONS.clear()
        reason = _FOUL_REASONS[key] = foul_reason_of_values(fv, bv) or ""
    return reason or None


# Small: the frames keep their own rows (_view_rows); a practice drill asks
# for its hand's guide as it is dealt and as it is answered.
@functools.lru_cache(maxsize=256)
def guide_of_indices(hand: tuple[int, ...]) -> Guide:
    """The guide of seven sorted deck indices (memoised; internal).

    The same guide as reading each setting's two and five cards in turn, from
    the hand's summed card keys less each front's two; the kickers are worked
    out only for backs whose names tie.

    >>> g = guide_of_indices(parse_indices("As Ah 8d 8c Ks 7h 4d"))
    >>> g.row, g.house_way.front, g.settings[0].front, g.settings[0].back
    ('two-pair-split', ('8d', '8c'), ('As', 'Ks'), ('Ah', '7h', '8d', '4d', '8c'))
    >>> g.settings[0].back_name, g.settings[0].back_cmp, g.settings[0].back_words
    ('Pair of eights', -1, ('pair of eights', 'pair of aces'))
    """
    (a, b), row = house_way_indices(hand)
    rank_key = suit_key = 0
    for c in hand:
        rank_key += RANK_KEY[c]
        suit_key += SUIT_KEY[c]
    hw_fv = FRONT_VALUES[a][b]
    hw_bv = back_value_from_keys(rank_key - RANK_KEY[a] - RANK_KEY[b],
                                 suit_key - SUIT_KEY[a] - SUIT_KEY[b])
    hw_name, hw_words = _back_names(hw_bv)
    named = codes(hand)
    settings = []
    for i, j, p, q, r, s, t in _LAYOUT:
        ci, cj = hand[i], hand[j]
        fv = FRONT_VALUES[ci][cj]
        bv = back_value_from_keys(rank_key - RANK_KEY[ci] - RANK_KEY[cj],
                                  suit_key - SUIT_KEY[ci] - SUIT_KEY[cj])
        name, words = _back_names(bv)
        # The fields in order, positional (keywords cost more, 21 times a hand).
        settings.append(GuidedSetting(
            (named[i], named[j]),  # front
            (named[p], named[q], named[r], named[s], named[t]),  # back
            _front_name(fv),
            name,  # back_name
            _foul_reason(fv, bv),
            ci == a and cj == b,  # house_way
            (fv > hw_fv) - (fv < hw_fv),  # front_cmp
            (bv > hw_bv) - (bv < hw_bv),  # back_cmp
            # back_words: the kickers are named only when the names tie but the backs do not.
            _tied_back_words(bv, hw_bv) if name == hw_name and bv != hw_bv
            else (words, hw_words),
        ))
    return Guide(settings=tuple(settings), row=row, reason=REASONS[row])


def hand_guide(seven: str | Iterable[str]) -> Guide:
    """Everything a seat needs to set seven cards (see the module's docstring).

    >>> g = hand_guide("As Ah 8d 8c Ks 7h 4d")
    >>> len(g.settings), g.row, g.house_way.front, g.house_way.back_name
    (21, 'two-pair-split', ('8d', '8c'), 'Pair of aces')
    >>> g.reason
    'Split the two pairs: the higher pair in back, the lower pair in front.'
    >>> aces = g.setting(["Ah", "As"])
    >>> aces.foul, aces.foul_reason
    (True, 'Your front, a pair of aces, beats your back, a pair of eights.')
    >>> aces.front_cmp, aces.back_cmp, aces.back_words
    (1, -1, ('pair of eights', 'pair of aces'))

    Only a kicker tells two backs apart: the coach names it.

    >>> g = hand_guide("9s 9h Ks Qd 7c 5d 2h")
    >>> g.house_way.front, g.setting(["Qd", "7c"]).back_cmp
    (('Ks', 'Qd'), 1)
    >>> g.setting(["Qd", "7c"]).back_words
    ('pair of nines, king kicker', 'pair of nines, seven kicker')
    """
    return guide_of_indices(parse_indices(seven, count=7))


# A setting as the memo keeps it (_view_rows): the front's two codes, the
# front's and the back's names, the two comparisons with the house way, the
# foul sentence or None, whether it is the house way, and the coach's words
# for the two backs or (None, None) when the names say enough.
_SettingRow = tuple[str, str, str, str, int, int, str | None, bool, str | None, str | None]
# The house way as the memo keeps it: the front's two codes, the back's five,
# the two names, the row and its reason.
_HouseWayRow = tuple[str, ...]


def _setting_row(s: GuidedSetting) -> _SettingRow:
    tied = s.back_words[0] != _lower(s.back_name)  # the names tie: the kickers named
    words = s.back_words if tied else (None, None)
    return (s.front[0], s.front[1], s.front_name, s.back_name, s.front_cmp, s.back_cmp,
            s.foul_reason, s.house_way, words[0], words[1])


@functools.lru_cache(maxsize=2048)
def _view_rows(
    hand: tuple[int, ...],
) -> tuple[_HouseWayRow, tuple[_SettingRow, ...], tuple[int, ...]]:
    """A hand's guide as it goes in frames, built once: the house way's row,
    the 21 settings' (FRONT_POSITIONS order), and each setting's front as
    one number (``_front_key``), in the same order. Each frame gets dicts and
    lists made from them (guide_view).

    Flat tuples of strings and numbers only: a web process keeps thousands of
    hands here for as long as it lives, and CPython's cyclic collector visits
    every object it tracks on each full collection, with every socket of the
    process waiting. It stops tracking such a tuple the first time it meets
    it; kept as dicts and lists (and with the guide's objects), the hands
    made full collections of up to 300 ms under load (docs/benchmarks.md,
    "Sixteenth round"). The guide is computed for the rows and not kept
    (``guide_of_indices`` keeps the few a practice drill asks for twice)."""
    g = guide_of_indices.__wrapped__(hand)
    hw = g.house_way
    house_way = (*hw.front, *hw.back, hw.front_name, hw.back_name, g.row, g.reason)
    fronts = tuple(_front_key(hand[i], hand[j]) for i, j in FRONT_POSITIONS)
    return house_way, tuple(_setting_row(s) for s in g.settings), fronts


def _front_key(a: int, b: int) -> int:
    return a * 64 + b if a < b else b * 64 + a


def _setting_json(r: _SettingRow) -> dict[str, object]:
    """A frame's own dict of a setting; what is mostly absent is left out."""
    out: dict[str, object] = {
        "front": [r[0], r[1]], "front_name": r[2], "back_name": r[3],
        "front_cmp": r[4], "back_cmp": r[5],
    }
    if r[6] is not None:
        out["foul_reason"] = r[6]
    if r[7]:
        out["house_way"] = True
    if r[8] is not None:
        out["back_words"] = [r[8], r[9]]
    return out


def guide_view(
    seven: str | Iterable[str], front: str | Iterable[str] | None = None
) -> dict[str, object]:
    """The guide as a seat's frame carries it (JSON-ready, a new dict each call).

    While the seat chooses (``front`` None) it has all 21 settings; once it
    locked ``front``, only that setting (nothing else can be chosen). A
    setting's back is the other five cards; ``foul_reason`` is there only when
    it fouls, ``house_way`` (true) only on the house way's setting, and
    ``back_words`` only when the two backs' names are the same but the backs
    are not (the kicker named). The house way carries its row's id and its
    words (``row_words``). The rows are built once per hand; each call
    makes its own dicts and lists of them: a frame owns all of its dicts and lists.

    >>> view = guide_view("As Ah 8d 8c Ks 7h 4d")
    >>> len(view["settings"]), view["house_way"]["row"], view["house_way"]["front"]
    (21, 'two-pair-split', ['8d', '8c'])
    >>> view["house_way"]["row_words"]
    'Two pair, split'
    >>> locked = guide_view("As Ah 8d 8c Ks 7h 4d", ["8c", "8d"])
    >>> locked["settings"]
    [{'front': ['8d', '8c'], 'front_name': 'Pair of eights', 'back_name': 'Pair of aces', \
'front_cmp': 0, 'back_cmp': 0, 'house_way': True}]
    >>> guide_view("9s 9h Ks Qd 7c 5d 2h", "Qd 7c")["settings"][0]["back_words"]
    ['pair of nines, king kicker', 'pair of nines, seven kicker']
    >>> locked["settings"][0]["front"].clear()
    >>> guide_view("As Ah 8d 8c Ks 7h 4d", "8d 8c")["settings"][0]["front"]
    ['8d', '8c']
    """
    way, rows, fronts = _view_rows(parse_indices(seven, count=7))
    if front is None:
        chosen = rows
    else:
        two = parse_indices(front, count=2)
        key = _front_key(two[0], two[1])
        if key not in fronts:
            raise ValueError(_NOT_IN_HAND)
        chosen = (rows[fronts.index(key)],)
    house_way = {"front": [way[0], way[1]], "back": list(way[2:7]), "front_name": way[7],
                 "back_name": way[8], "row": way[9], "row_words": row_words(way[9]),
                 "reason": way[10]}
    return {"house_way": house_way, "settings": [_setting_json(r) for r in chosen]}
