"""``{% engine_urls %}``: the engine worker's URLs as data attributes (each after a space), or "".

The table page's early start (``engine-start.mjs``) reads them from its own
``<script>`` element and starts the worker with its URLs at once, instead of
fetching the client manifest first (one round trip fewer before the worker
starts). They come from the client build's manifest (frontend/build.py), with
the same static prefix the client would join them to; without a build there
are none and the page fetches the manifest as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django import template
from django.conf import settings
from django.contrib.staticfiles import finders
from django.utils.html import format_html_join

register = template.Library()

# Manifest key -> data attribute (data-engine-<name>), in the order written.
ATTRIBUTES = (("worker", "worker"), ("pyodide", "pyodide"), ("engine", "archive"),
              ("snapshot", "snapshot"))


def build_manifest() -> dict[str, Any]:
    """The client build's manifest.json, or {} when there is none (or it is unreadable)."""
    found = finders.find("manifest.json")
    if not isinstance(found, str):
        return {}
    try:
        manifest = json.loads(Path(found).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


@register.simple_tag
def engine_urls() -> str:
    """`` data-engine-worker="…" data-engine-pyodide="…" …`` for the engine's files.

    Empty unless the manifest names the worker, Pyodide and the engine archive;
    the snapshot's attribute only when the build made one.
    """
    manifest = build_manifest()
    if not all(isinstance(manifest.get(key), str) for key in ("worker", "pyodide", "engine")):
        return ""
    pairs = [(f"data-engine-{name}", f"{settings.STATIC_URL}{manifest[key]}")
             for key, name in ATTRIBUTES if isinstance(manifest.get(key), str)]
    return format_html_join("", ' {}="{}"', pairs)
