"""Pai Gow Lab's game engine: pure standard-library Python (rules in rules.md).

Cards are string codes at this API ("As", "Td", "JK"); see :mod:`.cards`.

>>> house_way("As Ah 8d 8c Ks 7h 4d").setting.front
('8d', '8c')
"""

from .batch import answer
from .cards import DECK, RED_SUITS, SUIT_SYMBOLS, CardError, card_name, parse_cards, sort_cards
from .choices import (
    DEAL_STATUSES,
    LABELS,
    LEDGERS,
    MODES,
    PARTS,
    RESULTS,
    SIDES,
    TABLE_STATUSES,
    choices,
)
from .drills import DRILL_LESSONS, DRILLS, check_drill, deal_drill, in_drill
from .exact import ExactAnalysis, ExactSetting, canonical, exact, exact_for, exact_key
from .explore import (
    Exploration,
    ExploredSetting,
    ExplorerSetting,
    ExploreSums,
    SettingEstimate,
    explore,
    explore_estimates,
    explore_settings,
    explore_sums,
)
from .fair import deal_hands, deck_commitment, shuffle_deck, verify_shuffle
from .guide import Guide, GuidedSetting, backs_in_words, guide_view, hand_guide
from .hand_history import record_problems
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
from .house_way import HouseWay, house_way, left_house_way
from .luck import LUCK_SAMPLES, LuckEstimate, half_up, luck, luck_average, luck_from_counts
from .practice import (
    PRACTICE_OPPONENTS,
    Analysis,
    DecisionCost,
    analysis_from_rows,
    decision_cost,
    sampled_analysis,
)
from .settle import (
    SCORES,
    LedgerDelta,
    Settlement,
    ledger_delta,
    mirror_part,
    mirror_result,
    settle,
)
from .skill import skill
from .view import DealSnapshot, SeatState, seat_view

__all__ = [
    "DEAL_STATUSES",
    "DECK",
    "DRILLS",
    "DRILL_LESSONS",
    "LABELS",
    "LEDGERS",
    "LUCK_SAMPLES",
    "MODES",
    "PARTS",
    "PRACTICE_OPPONENTS",
    "RED_SUITS",
    "RESULTS",
    "SCORES",
    "SIDES",
    "SUIT_SYMBOLS",
    "TABLE_STATUSES",
    "Analysis",
    "CardError",
    "DealSnapshot",
    "DecisionCost",
    "ExactAnalysis",
    "ExactSetting",
    "Exploration",
    "ExploreSums",
    "ExploredSetting",
    "ExplorerSetting",
    "Guide",
    "GuidedSetting",
    "HouseWay",
    "LedgerDelta",
    "LuckEstimate",
    "SeatState",
    "Setting",
    "SettingDescription",
    "SettingEstimate",
    "Settlement",
    "all_settings",
    "analysis_from_rows",
    "answer",
    "back_category",
    "back_name",
    "backs_in_words",
    "best_five",
    "canonical",
    "card_name",
    "check_drill",
    "choices",
    "compare_back",
    "compare_front",
    "deal_drill",
    "deal_hands",
    "decision_cost",
    "deck_commitment",
    "describe_setting",
    "exact",
    "exact_for",
    "exact_key",
    "explore",
    "explore_estimates",
    "explore_settings",
    "explore_sums",
    "foul_reason",
    "front_name",
    "guide_view",
    "half_up",
    "hand_guide",
    "house_way",
    "in_drill",
    "is_foul",
    "ledger_delta",
    "left_house_way",
    "luck",
    "luck_average",
    "luck_from_counts",
    "mirror_part",
    "mirror_result",
    "parse_cards",
    "record_problems",
    "sampled_analysis",
    "seat_view",
    "settle",
    "shuffle_deck",
    "skill",
    "sort_cards",
    "verify_shuffle",
]
