"""Pai Gow Lab's game engine: pure standard-library Python (rules in rules.md).

Cards are string codes at this API ("As", "Td", "JK"); see :mod:`.cards`.

>>> house_way("As Ah 8d 8c Ks 7h 4d").setting.front
('8d', '8c')
"""

from .batch import answer
from .cards import DECK, CardError, card_name, parse_cards, sort_cards
from .explore import Exploration, ExploredSetting, explore
from .fair import deal_hands, deck_commitment, shuffle_deck, verify_shuffle
from .hands import (
    Setting,
    SettingDescription,
    all_settings,
    back_category,
    back_name,
    best_five,
    compare_back,
    compare_front,
    describe_setting,
    foul_reason,
    front_name,
    is_foul,
)
from .house_way import HouseWay, house_way
from .luck import LuckEstimate, luck, luck_from_counts
from .settle import LedgerDelta, Settlement, ledger_delta, mirror_result, settle
from .skill import skill
from .view import DealSnapshot, SeatState, seat_view

__all__ = [
    "DECK",
    "CardError",
    "DealSnapshot",
    "Exploration",
    "ExploredSetting",
    "HouseWay",
    "LedgerDelta",
    "LuckEstimate",
    "SeatState",
    "Setting",
    "SettingDescription",
    "Settlement",
    "all_settings",
    "answer",
    "back_category",
    "back_name",
    "best_five",
    "card_name",
    "compare_back",
    "compare_front",
    "deal_hands",
    "deck_commitment",
    "describe_setting",
    "explore",
    "foul_reason",
    "front_name",
    "house_way",
    "is_foul",
    "ledger_delta",
    "luck",
    "luck_from_counts",
    "mirror_result",
    "parse_cards",
    "seat_view",
    "settle",
    "shuffle_deck",
    "skill",
    "sort_cards",
    "verify_shuffle",
]
