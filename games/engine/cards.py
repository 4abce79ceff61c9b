"""Card codes, the deck order of rules §1, parsing and its errors.

Internally a card is an int: its index in the deck order (0 = As … 12 = 2s,
13 = Ah …, 51 = 2c, 52 = JK).  ``index % 13`` is the rank slot (0 = ace …
12 = deuce) and ``index // 13`` the suit, so ``14 - index % 13`` is the rank
value used for comparisons (ace 14 … deuce 2).  The public API speaks codes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

RANKS = "AKQJT98765432"
SUITS = "shdc"
JOKER = 52

DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + ("JK",)
INDEX: dict[str, int] = {code: i for i, code in enumerate(DECK)}

RANK_WORDS = {
    14: "ace", 13: "king", 12: "queen", 11: "jack", 10: "ten", 9: "nine",
    8: "eight", 7: "seven", 6: "six", 5: "five", 4: "four", 3: "three", 2: "two",
}
RANK_PLURALS = {v: ("sixes" if v == 6 else w + "s") for v, w in RANK_WORDS.items()}
SUIT_WORDS = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
# How a suit is drawn on a card, and which suits are printed red.
SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
RED_SUITS = frozenset("hd")
_NUMBER_WORDS = (
    "none", "one", "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "eleven", "twelve", "thirteen",
)
# What a person calls a group of cards of a given size, for count errors.
_GROUP_WORDS = {2: "A front", 5: "A back", 7: "A hand", 53: "A deck"}


class CardError(ValueError):
    """A card list a player typed or sent is not usable; str() is a sentence."""


def rank_value(card: int) -> int:
    """Rank value of a card index, the joker read as an ace.

    >>> rank_value(INDEX["As"]), rank_value(INDEX["2c"]), rank_value(JOKER)
    (14, 2, 14)
    """
    return 14 if card == JOKER else 14 - card % 13


def _number(n: int) -> str:
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def card_name(code: str) -> str:
    """A card's name for people.

    >>> card_name("As"), card_name("Th"), card_name("JK")
    ('Ace of spades', 'Ten of hearts', 'Joker')
    """
    named = _NAMES.get(code)
    if named is not None:
        return named
    return _name_of(_index_of(code))


def _name_of(idx: int) -> str:
    if idx == JOKER:
        return "Joker"
    word = RANK_WORDS[14 - idx % 13]
    return f"{word.capitalize()} of {SUIT_WORDS[DECK[idx][1]]}"


# Every frame after a reveal names the whole deck's 53 cards: looked up, not
# formatted again each time (docs/benchmarks.md, seventeenth round).
_NAMES: dict[str, str] = {code: _name_of(i) for i, code in enumerate(DECK)}


def _lower_name(idx: int) -> str:
    return "the joker" if idx == JOKER else "the " + card_name(DECK[idx]).lower()


def _index_of(token: str) -> int:
    """Index of one typed card; forgiving about case and "10" for a ten."""
    t = token.strip()
    found = INDEX.get(t)
    if found is not None:
        return found
    up = t.upper()
    if up in ("JK", "JOKER"):
        return JOKER
    if up.startswith("10"):
        up = "T" + up[2:]
    if len(up) == 2:
        found = INDEX.get(up[0] + up[1].lower())
        if found is not None:
            return found
    raise CardError(
        f"“{t}” is not a card: write a rank (2-9, T, J, Q, K, A) and a suit "
        "(s, h, d, c), or JK for the joker."
    )


def parse_indices(cards: str | Iterable[str], *, count: int | None = None) -> tuple[int, ...]:
    """Like :func:`parse_cards` but returns sorted deck indices.

    >>> parse_indices("Kd As JK")
    (0, 27, 52)
    """
    if isinstance(cards, str):
        tokens = [t for t in re.split(r"[\s,;]+", cards) if t]
    else:
        tokens = []
        for item in cards:
            if not isinstance(item, str):
                raise CardError(
                    f"“{item!r}” is not a card: cards are written as text like As or JK."
                )
            tokens.append(item)
    seen: set[int] = set()
    for token in tokens:
        idx = _index_of(token)
        if idx in seen:
            raise CardError(f"You listed {_lower_name(idx)} twice.")
        seen.add(idx)
    if count is not None and len(seen) != count:
        what = _GROUP_WORDS.get(count, "This")
        raise CardError(
            f"{what} needs {_number(count)} card{'s' if count != 1 else ''}; "
            f"you gave {_number(len(seen))}."
        )
    return tuple(sorted(seen))


def parse_cards(cards: str | Iterable[str], *, count: int | None = None) -> tuple[str, ...]:
    """Parse "As Kd" or ["As", "Kd"] into codes in deck order.

    Raises :class:`CardError` (a ``ValueError``) with a sentence for a player.

    >>> parse_cards("Kd as JK")
    ('As', 'Kd', 'JK')
    >>> parse_cards(["7c", "7c"])
    Traceback (most recent call last):
    ...
    games.engine.cards.CardError: You listed the seven of clubs twice.
    >>> parse_cards("As Ks Qs Js Ts 9s", count=7)
    Traceback (most recent call last):
    ...
    games.engine.cards.CardError: A hand needs seven cards; you gave six.
    """
    return codes(parse_indices(cards, count=count))


def codes(indices: Iterable[int]) -> tuple[str, ...]:
    """Codes of deck indices, in the order given.

    >>> codes([0, 52])
    ('As', 'JK')
    """
    return tuple(DECK[i] for i in indices)


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """Codes sorted into deck order (As, Ks … 2c, JK).

    >>> sort_cards(["JK", "2c", "Ah", "As"])
    ('As', 'Ah', '2c', 'JK')
    """
    return tuple(sorted(cards, key=_index_of))


def by_rank(cards: Iterable[str]) -> tuple[str, ...]:
    """Codes as the table shows a hand: the joker first, then ranks together
    from high to low, a rank's cards in the order spades, hearts, diamonds,
    clubs (the table page's ``byRank`` in js/cards.mjs). For people only:
    the API, the CSV and the luck key keep deck order.

    >>> by_rank(["3s", "8d", "4d", "9c", "3c"])
    ('9c', '8d', '4d', '3s', '3c')
    >>> by_rank("Jd As 2c JK Ah".split())
    ('JK', 'As', 'Ah', 'Jd', '2c')
    """
    return tuple(sorted(cards, key=_rank_place))


def _rank_place(code: str) -> int:
    idx = _index_of(code)
    # Deck order is by suit, then rank: by rank first here, the joker leading.
    return -1 if idx == JOKER else idx % 13 * 4 + idx // 13


def text(indices: Iterable[int]) -> str:
    """Space-separated codes, as the vectors and the luck key write them.

    >>> text([0, 13])
    'As Ah'
    """
    return " ".join(DECK[i] for i in indices)
