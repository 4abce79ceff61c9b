"""The browser client's rules constants equal the engine's.

frontend/src/js/rules.mjs is the one place the JavaScript names the luck
sample count (rules §6); the engine's is the default of
games.engine.luck.luck's `samples`. A page that drew another number of
opponents would send luck counts the server refuses.
"""

from __future__ import annotations

import importlib
import inspect
import re

from tests.conftest import REPO

# The module, not the function games.engine re-exports under the same name.
engine_luck = importlib.import_module("games.engine.luck")

JS = REPO / "frontend" / "src" / "js"
RULES = JS / "rules.mjs"


def js_constant(name: str) -> int:
    match = re.search(rf"^export const {name} = (\d+);", RULES.read_text(), re.MULTILINE)
    assert match, f"{RULES} exports no integer {name}"
    return int(match.group(1))


def engine_samples() -> int:
    default = inspect.signature(engine_luck.luck).parameters["samples"].default
    assert isinstance(default, int)
    return default


def test_the_js_luck_sample_count_is_the_engines() -> None:
    samples = js_constant("LUCK_SAMPLES")
    assert samples == engine_samples()
    assert samples == getattr(engine_luck, "LUCK_SAMPLES", samples)


def test_no_other_client_module_spells_the_sample_count() -> None:
    count = str(engine_samples())
    spelled = [
        path.relative_to(REPO).as_posix()
        for path in sorted(JS.glob("*.mjs"))
        if path != RULES and re.search(rf"(?<![\w.]){count}(?![\w.])", path.read_text())
    ]
    assert spelled == [], f"use LUCK_SAMPLES from js/rules.mjs instead of {count} in {spelled}"


def test_no_page_template_spells_the_sample_count() -> None:
    # The table and rules pages take it from the engine (paigow_site.context).
    templates = REPO / "games" / "templates"
    spelled = [
        path.relative_to(REPO).as_posix()
        for path in templates.rglob("*.html")
        if re.search(r"\b120 random\b", path.read_text())
    ]
    assert spelled == []


def test_the_rules_page_names_the_engines_count(client: object) -> None:
    page = client.get("/rules/")  # type: ignore[attr-defined]
    assert f"deals {engine_luck.LUCK_SAMPLES} random opponents" in page.content.decode()


def test_the_clients_suit_symbols_are_the_engines() -> None:
    source = (JS / "cards.mjs").read_text()
    match = re.search(r"^export const SUIT_SYMBOLS = \{([^}]*)\};", source, re.MULTILINE)
    assert match, "cards.mjs exports no SUIT_SYMBOLS"
    symbols = dict(re.findall(r'(\w): "([^"]+)"', match.group(1)))
    assert symbols == importlib.import_module("games.engine.cards").SUIT_SYMBOLS
