"""The models' choices are the engine's codes and labels (``games.engine.choices``):
the Django enumerations name them for the code, the engine's tuples are the list."""

from __future__ import annotations

from games import engine
from games.models import Deal, LedgerEntry, Table


def test_every_model_enumeration_is_the_engines_list_with_its_labels() -> None:
    assert Table.Mode.choices == engine.choices(engine.MODES)
    assert Table.Status.choices == engine.choices(engine.TABLE_STATUSES)
    assert Deal.Status.choices == engine.choices(engine.DEAL_STATUSES)
    assert LedgerEntry.Ledger.choices == engine.choices(engine.LEDGERS)


def test_the_database_checks_allow_exactly_the_engines_codes() -> None:
    checks = {
        constraint.name: dict(constraint.condition.children)  # type: ignore[attr-defined]
        for model in (Table, Deal, LedgerEntry)
        for constraint in model._meta.constraints
        if constraint.name.endswith("_valid")
    }
    assert checks["table_mode_valid"]["mode__in"] == list(engine.MODES)
    assert checks["table_status_valid"]["status__in"] == list(engine.TABLE_STATUSES)
    assert checks["deal_status_valid"]["status__in"] == list(engine.DEAL_STATUSES)
    assert checks["ledger_kind_valid"]["ledger__in"] == list(engine.LEDGERS)
