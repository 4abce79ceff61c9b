"""docs/configuration.md is the one reference of the environment: every
variable the code reads has its row there, and every row names a variable
the code reads."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("paigow_site", "games", "accounts")
# os.environ["X"], os.environ.get("X"), os.getenv("X"), and settings.py's
# env_bool/env_list/env_int/env_float("X") helpers (paigow_site/env.py).
READ = re.compile(
    r"""(?:os\.environ(?:\.get)?[\[(]|os\.getenv\(|env_(?:bool|list|int|float)\()\s*["']([A-Z][A-Z0-9_]+)["']"""
)
ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]+)` \|", re.MULTILINE)
# Read by the process but set by tools, not by an operator.
NOT_SETTINGS = {"DJANGO_SETTINGS_MODULE"}


def variables_read() -> set[str]:
    found: set[str] = set()
    for folder in SOURCES:
        for path in (REPO / folder).rglob("*.py"):
            found.update(READ.findall(path.read_text()))
    return found - NOT_SETTINGS


def variables_documented() -> set[str]:
    return set(ROW.findall((REPO / "docs" / "configuration.md").read_text()))


def test_every_variable_the_code_reads_has_a_row() -> None:
    assert variables_read() - variables_documented() == set()


def test_every_row_names_a_variable_the_code_reads() -> None:
    assert variables_documented() - variables_read() == set()


def test_the_reader_finds_the_variables_it_should() -> None:
    assert {"DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG", "SERVER_UVLOOP"} <= variables_read()
