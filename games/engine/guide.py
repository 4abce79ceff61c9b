"""What a seat needs to set its hand, computed with the deal: the guide.

For seven cards: the 21 settings with their front and back names and any
foul explanation, the house way with its row and reason, and for each
setting the coach's comparison with the house way (front and back compared
as the table compares them, and the sentences the coach shows). The server
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
    name = _lower(name_of_back_value(value))
    category = value >> 20
    if value == other or name != _lower(name_of_back_value(other)) or category not in _NAMED_SLOTS:
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


@dataclass(frozen=True)
class GuidedSetting:
    """One of the 21 settings as the page shows it, compared with the house way.

    ``front_cmp`` / ``back_cmp`` are 1, 0 or -1: this setting's front (back)
    against the house way's, as the table compares them. ``coach`` is the
    coach's lines, each (sentence, kind) with kind "same" (it is the house
    way), "foul" or "".
    """

    front: tuple[str, ...]
    back: tuple[str, ...]
    front_name: str
    back_name: str
    foul_reason: str | None
    house_way: bool
    front_cmp: int
    back_cmp: int
    coach: tuple[tuple[str, str], ...]

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


def _coach(*, same: bool, fv: int, bv: int, hw_fv: int, hw_bv: int, row: str,
           foul: bool) -> tuple[tuple[str, str], ...]:
    hw_front, hw_back = _lower(name_of_front_value(hw_fv)), _lower(name_of_back_value(hw_bv))
    if same:
        return ((f"Your setting is the house way: {hw_front} in front, {hw_back} behind.",
                 "same"),)
    my_front = _lower(name_of_front_value(fv))
    front, back = _cmp(fv, hw_fv), _cmp(bv, hw_bv)
    if front > 0:
        front_line = f"Your front gains: {my_front} beats the house way's {hw_front}."
    elif front < 0:
        front_line = f"Your front gives up strength: {my_front} against the house way's {hw_front}."
    else:
        front_line = f"Your front, {my_front}, matches the house way's."
    mine, theirs = back_words(bv, hw_bv), back_words(hw_bv, bv)
    if back < 0:
        back_line = f"Your back gives up: {mine} instead of {theirs}."
    elif back > 0:
        back_line = f"Your back gains: {mine} instead of {theirs}."
    else:
        back_line = f"Your back, {mine}, matches the house way's."
    lines = [(f"The house way sets {hw_front} in front and {hw_back} behind ({row}).", ""),
             (front_line, ""), (back_line, "")]
    if foul:
        lines.append(("This setting is a foul: it loses whatever the other side holds.", "foul"))
    return tuple(lines)


@functools.lru_cache(maxsize=4096)
def guide_of_indices(hand: tuple[int, ...]) -> Guide:
    """The guide of seven sorted deck indices (memoised; internal)."""
    (a, b), row = house_way_indices(hand)
    hw_fv = front_value_of((a, b))
    hw_bv = back_value_of(tuple(c for c in hand if c != a and c != b))
    settings = []
    for i, j in FRONT_POSITIONS:
        front = (hand[i], hand[j])
        back = tuple(c for k, c in enumerate(hand) if k != i and k != j)
        fv, bv = front_value_of(front), back_value_of(back)
        reason = foul_reason_of_values(fv, bv)
        same = front == (a, b)
        settings.append(GuidedSetting(
            front=codes(front), back=codes(back),
            front_name=name_of_front_value(fv), back_name=name_of_back_value(bv),
            foul_reason=reason, house_way=same,
            front_cmp=_cmp(fv, hw_fv), back_cmp=_cmp(bv, hw_bv),
            coach=_coach(same=same, fv=fv, bv=bv, hw_fv=hw_fv, hw_bv=hw_bv, row=row,
                         foul=reason is not None),
        ))
    return Guide(settings=tuple(settings), row=row, reason=REASONS[row])


def hand_guide(seven: str | Iterable[str]) -> Guide:
    """Everything a seat needs to set seven cards (see the module's docstring).

    >>> g = hand_guide("As Ah 8d 8c Ks 7h 4d")
    >>> len(g.settings), g.row, g.house_way.front, g.house_way.back_name
    (21, 'two-pair-split', ('8d', '8c'), 'Pair of aces')
    >>> g.reason
    'Split the two pairs: the higher pair in back, the lower pair in front.'
    >>> g.house_way.coach
    (('Your setting is the house way: pair of eights in front, pair of aces behind.', 'same'),)
    >>> aces = g.setting(["Ah", "As"])
    >>> aces.foul, aces.foul_reason
    (True, 'Your front, a pair of aces, beats your back, a pair of eights.')
    >>> [line for line, kind in aces.coach][1:3]
    ["Your front gains: pair of aces beats the house way's pair of eights.", \
'Your back gives up: pair of eights instead of pair of aces.']

    Only a kicker tells two backs apart: the coach names it.

    >>> g = hand_guide("9s 9h Ks Qd 7c 5d 2h")
    >>> g.house_way.front
    ('Ks', 'Qd')
    >>> g.setting(["Qd", "7c"]).coach[2][0]
    'Your back gains: pair of nines, king kicker instead of pair of nines, seven kicker.'
    """
    return guide_of_indices(parse_indices(seven, count=7))


def _setting_json(s: GuidedSetting) -> dict[str, object]:
    # The back is the other five cards, and a setting's coach lines after the
    # first (the house way's, the same for every setting) are its own.
    coach = s.coach if s.house_way else s.coach[1:]
    return {"front": list(s.front), "front_name": s.front_name, "back_name": s.back_name,
            "foul_reason": s.foul_reason, "house_way": s.house_way,
            "coach": [list(line) for line in coach]}


def guide_view(
    seven: str | Iterable[str], front: str | Iterable[str] | None = None
) -> dict[str, object]:
    """The guide as a seat's frame carries it (JSON-ready, a new dict each call).

    While the seat chooses (``front`` None) it has all 21 settings; once it
    locked ``front``, only that setting (nothing else can be chosen). Each
    setting's back is the other five cards; ``foul_reason`` is null unless it
    fouls; its ``coach`` lines follow the house way's ``coach`` line (the
    house way's own setting has its one line instead).

    >>> view = guide_view("As Ah 8d 8c Ks 7h 4d")
    >>> len(view["settings"]), view["house_way"]["row"], view["house_way"]["front"]
    (21, 'two-pair-split', ['8d', '8c'])
    >>> view["house_way"]["coach"]
    'The house way sets pair of eights in front and pair of aces behind (two-pair-split).'
    >>> locked = guide_view("As Ah 8d 8c Ks 7h 4d", ["8c", "8d"])
    >>> [s["front"] for s in locked["settings"]], locked["settings"][0]["house_way"]
    ([['8d', '8c']], True)
    """
    g = hand_guide(seven)
    hw = g.house_way
    chosen = g.settings if front is None else (g.setting(front),)
    intro = next(s for s in g.settings if not s.house_way).coach[0][0]
    return {
        "house_way": {"front": list(hw.front), "back": list(hw.back),
                      "front_name": hw.front_name, "back_name": hw.back_name,
                      "row": g.row, "reason": g.reason, "coach": intro},
        "settings": [_setting_json(s) for s in chosen],
    }
