"""axe-core 4.14 (frontend/node_modules, a dev dependency) run on a live page.

The script is evaluated through the DevTools protocol, which the page's CSP
does not govern, so the page under test keeps its real policy. Experimental
rules run too. Only serious and critical violations fail a page: those block
a screen-reader or keyboard user.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import REPO

AXE = REPO / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")

# The experimental rules too: label-content-name-mismatch (a button whose
# accessible name does not contain its visible text) is one of them.
_RUN = """async () => {
  const rules = Object.fromEntries(
    axe.getRules(["experimental"]).map((rule) => [rule.ruleId, { enabled: true }]));
  const result = await axe.run(document, { resultTypes: ["violations"], rules });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" ")),
  }));
}"""


def violations(page: Any) -> list[dict[str, Any]]:
    """Every axe violation on the page as it is now."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = page.evaluate(_RUN)
    return found


def blocking(page: Any) -> list[dict[str, Any]]:
    """The serious and critical violations: a page must have none."""
    return [v for v in violations(page) if v["impact"] in BLOCKING]
