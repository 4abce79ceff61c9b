"""Which static files may be cached forever.

Pyodide sits under a folder named for its pinned version, the engine
archive carries a content hash and its memory snapshot a hash of what it
holds, so a returning player's browser can keep them for a year and only the
first visit pays the download. Whitenoise's own test
(hashed names from collectstatic) still applies in production.
"""

from __future__ import annotations

import re

_IMMUTABLE = re.compile(
    r"(/pyodide/\d+\.\d+\.\d+/[^/]+$)"  # the pinned Pyodide runtime
    r"|(/vendor/[a-z0-9-]+-\d+\.\d+\.\d+/[^/]+$)"  # pinned npm libraries (uPlot)
    r"|(/engine/engine-[0-9a-f]{12}\.zip$)"  # the content-hashed engine archive
    r"|(/engine/snapshot-[0-9a-f]{12}\.bin$)"  # its snapshot, named by what it holds
    r"|(/engine/worker-[0-9a-f]{12}/[^/]+$)"  # the worker's modules, named by their content
    r"|(\.[0-9a-f]{12}\.[A-Za-z0-9]+$)"  # collectstatic's manifest names
)


def immutable_file(path: str, url: str) -> bool:
    """True for files whose URL changes whenever their content does.

    >>> immutable_file("", "/static/pyodide/314.0.7/pyodide.asm.wasm")
    True
    >>> immutable_file("", "/static/engine/engine-79026ef1b417.zip")
    True
    >>> immutable_file("", "/static/engine/snapshot-82d7d0666752.bin")
    True
    >>> immutable_file("", "/static/engine/worker-0123456789ab/engine-worker.mjs")
    True
    >>> immutable_file("", "/static/js/engine-worker.mjs")
    False
    >>> immutable_file("", "/static/vendor/uplot-1.6.32/uPlot.iife.min.js")
    True
    >>> immutable_file("", "/static/css/site.css")
    False
    """
    return bool(_IMMUTABLE.search(url))
