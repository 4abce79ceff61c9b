"""Writes: every change of a table, each one state transition.

Split by what they change: ``tables`` (opening a table, stakes, deals,
settings and the reveal), ``invites`` (links and the friend's seat) and
``luck`` (the devices' estimates), ``practice`` (the practice table's hands,
with no table, stake or ledger) and ``costs`` (each revealed hand's decision
cost, written in the background), ``upkeep`` (what only the background
writes: idle tables, expired invites, the luck checks and audit, the costs'
sweep, old message ids; not re-exported here, the tasks call it by module).
Each queues its background work through ``games.enqueue``, by task name,
never by importing ``games.tasks``. ``transition`` opens a table for one
transition: the row lock, the seats and the latest deal, passed to the
service by argument. The socket's own writes (presence, message ids) live in
``games.realtime``.
"""

from .costs import hand_cost_record
from .invites import (
    INVITE_TOKEN,
    invite_accept,
    invite_create,
    invite_preview,
    invite_revoke,
    table_join,
)
from .luck import LUCK_SAMPLES, luck_record
from .practice import (
    practice_analyse,
    practice_cost_exact,
    practice_costs_sweep,
    practice_deal,
    practice_lock,
)
from .tables import (
    deal_rebet,
    deal_reveal,
    deal_start,
    setting_lock,
    stake_accept,
    stake_propose,
    table_close,
    table_start,
)
from .transition import OpenTable, table_lock, table_open, table_open_with, transition

__all__ = [
    "INVITE_TOKEN",
    "LUCK_SAMPLES",
    "OpenTable",
    "deal_rebet",
    "deal_reveal",
    "deal_start",
    "hand_cost_record",
    "invite_accept",
    "invite_create",
    "invite_preview",
    "invite_revoke",
    "luck_record",
    "practice_analyse",
    "practice_cost_exact",
    "practice_costs_sweep",
    "practice_deal",
    "practice_lock",
    "setting_lock",
    "stake_accept",
    "stake_propose",
    "table_close",
    "table_join",
    "table_lock",
    "table_open",
    "table_open_with",
    "table_start",
    "transition",
]
