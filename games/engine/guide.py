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
(memoised by the sorted deck indices) however many frames are built.
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
    HIGH_CARD,
    PAIR,
    THREE_OF_A_KIND,
    TWO_PAIR,
    back_value_of,
    foul_reason_of_values,
    front_value_of,
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
        raise ValueError("That front is not two of these seven cards.")


def _cmp(a: int, b: int) -> int:
    return (a > b) - (a < b)


@functools.lru_cache(maxsize=4096)
def guide_of_indices(hand: tuple[int, ...]) -> Guide:
    """The guide of seven sorted deck indices (memoised; internal)."""
    (a, b), row = house_way_indices(hand)
    hw_fv = front_value_of((a, b))
    hw_bv = back_value_of(tuple(c for c in hand if c != a and c != b))
    named = codes(hand)
    settings = []
    for i, j in FRONT_POSITIONS:
        front = (hand[i], hand[j])
        rest = [k for k in range(7) if k != i and k != j]
        fv, bv = front_value_of(front), back_value_of([hand[k] for k in rest])
        reason = foul_reason_of_values(fv, bv)
        same = front == (a, b)
        settings.append(GuidedSetting(
            front=(named[i], named[j]), back=tuple(named[k] for k in rest),
            front_name=_front_name(fv), back_name=_back_name(bv),
            foul_reason=reason, house_way=same,
            front_cmp=_cmp(fv, hw_fv), back_cmp=_cmp(bv, hw_bv),
            back_words=(back_words(bv, hw_bv), back_words(hw_bv, bv)),
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


def _setting_json(s: GuidedSetting) -> dict[str, object]:
    # Built for every frame while a seat chooses: what is mostly absent is left out.
    out: dict[str, object] = {
        "front": list(s.front), "front_name": s.front_name, "back_name": s.back_name,
        "front_cmp": s.front_cmp, "back_cmp": s.back_cmp,
    }
    if s.foul_reason is not None:
        out["foul_reason"] = s.foul_reason
    if s.house_way:
        out["house_way"] = True
    if s.back_words[0] != _lower(s.back_name):  # the names tie: the kickers named
        out["back_words"] = list(s.back_words)
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
    are not (the kicker named).

    >>> view = guide_view("As Ah 8d 8c Ks 7h 4d")
    >>> len(view["settings"]), view["house_way"]["row"], view["house_way"]["front"]
    (21, 'two-pair-split', ['8d', '8c'])
    >>> locked = guide_view("As Ah 8d 8c Ks 7h 4d", ["8c", "8d"])
    >>> locked["settings"]
    [{'front': ['8d', '8c'], 'front_name': 'Pair of eights', 'back_name': 'Pair of aces', \
'front_cmp': 0, 'back_cmp': 0, 'house_way': True}]
    >>> guide_view("9s 9h Ks Qd 7c 5d 2h", "Qd 7c")["settings"][0]["back_words"]
    ['pair of nines, king kicker', 'pair of nines, seven kicker']
    """
    g = hand_guide(seven)
    hw = g.house_way
    chosen = g.settings if front is None else (g.setting(front),)
    return {
        "house_way": {"front": list(hw.front), "back": list(hw.back),
                      "front_name": hw.front_name, "back_name": hw.back_name,
                      "row": g.row, "reason": g.reason},
        "settings": [_setting_json(s) for s in chosen],
    }
