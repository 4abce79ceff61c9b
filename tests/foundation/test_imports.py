"""The arrows between the background modules run one way: services queue
tasks by name through ``games.enqueue``, which imports nothing from
``games``; ``games.tasks`` calls the services, and no service imports it.
No module dodges a cycle with an import inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GAMES = REPO / "games"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, *, inside_functions: bool = False) -> set[str]:
    """The modules ``path`` imports (relative imports made absolute; ``from
    x import y`` counted as ``x`` and ``x.y``), at its top level or, with
    ``inside_functions``, only inside its functions."""
    tree = ast.parse(path.read_text())
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    nested = {id(n) for f in functions for n in ast.walk(f) if n is not f}
    found: set[str] = set()
    for node in ast.walk(tree):
        if (id(node) in nested) != inside_functions:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def test_enqueue_imports_nothing_from_games() -> None:
    assert {m for m in imported(GAMES / "enqueue.py") if m.split(".")[0] == "games"} == set()


def test_no_service_imports_the_tasks() -> None:
    for path in sorted((GAMES / "services").glob("*.py")):
        both = imported(path) | imported(path, inside_functions=True)
        assert "games.tasks" not in both, path.name


def test_services_and_tasks_import_at_the_top() -> None:
    for path in [*sorted((GAMES / "services").glob("*.py")), GAMES / "tasks.py",
                 GAMES / "enqueue.py"]:
        games_imports = {m for m in imported(path, inside_functions=True) if m.startswith("games")}
        assert games_imports == set(), path.name


def test_the_reader_sees_relative_imports() -> None:
    # What the tests above rely on: a relative import is read as the module it names.
    assert {"games.services.upkeep", "games.reports"} <= imported(GAMES / "tasks.py")
    assert "games.enqueue" in imported(GAMES / "services" / "luck.py")
    assert "games.services.costs" in imported(GAMES / "services" / "upkeep.py")


def test_every_task_enqueue_names_is_a_task() -> None:
    """A renamed task would leave its queued messages without a taker."""
    from celery import current_app

    from games import enqueue

    named = {value for key, value in vars(enqueue).items()
             if key.isupper() and isinstance(value, str) and value.startswith("games.")}
    assert len(named) == 9
    assert named <= set(current_app.tasks)


def test_the_task_names_stay_what_queued_messages_carry() -> None:
    """Messages in Redis, the beat schedule and the routes name these."""
    from celery import current_app
    from django.conf import settings

    games_tasks = {name for name in current_app.tasks if name.startswith("games.")}
    assert games_tasks == {
        "games.tables_close_idle", "games.invites_expire", "games.report_refresh",
        "games.report_refresh_users", "games.luck_verify", "games.luck_verify_hands",
        "games.luck_sweep", "games.practice_analyse", "games.exact_analyse",
        "games.luck_audit", "games.decision_cost", "games.decision_cost_hands",
        "games.decision_costs_sweep", "games.client_messages_forget",
        "games.practice_cost_hands", "games.practice_costs_sweep", "games.practice_test_score",
    }
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled | set(settings.CELERY_TASK_ROUTES) <= games_tasks
