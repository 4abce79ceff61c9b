"""The site's settings with a boot lever switched off, for benchmarks/boot.py only.

PAIGOW_BOOT_LEVERS names the levers to switch off (comma-separated):

- ``no-snapshot``: /static/manifest.json is served without its "snapshot",
  and the table page without its ``data-engine-snapshot``, so the table's
  worker boots Python and imports the engine, as before;
- ``no-compression``: whitenoise ignores the .br/.gz copies and sends every
  static file whole;
- ``no-early-start``: the table page comes without its engine-start.mjs (and
  the preload of engine-client.mjs), so table.mjs starts the worker from the
  manifest once its own modules have loaded;
- ``no-page-urls``: the table page comes without the worker's URLs
  (``data-engine-*``), so engine-start.mjs fetches the manifest first and
  starts js/engine-worker.mjs, whose modules are revalidated on every visit
  (instead of the build's content-named, cached-for-good copy);
- ``no-kept-snapshot`` and ``no-kept-wasm`` are the benchmark's own (before
  the return visit it deletes the worker's kept file of the snapshot, or of
  Pyodide's WebAssembly), no change here.

Serving the change from the site keeps the browser's HTTP cache working as it
does for players (Playwright's request routing would switch it off).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any
from wsgiref.headers import Headers

from django.http import HttpResponse
from whitenoise.middleware import WhiteNoiseMiddleware
from whitenoise.responders import MissingFileError, StaticFile

from paigow_site.settings import *  # noqa: F403 - the site's settings, then the levers
from paigow_site.settings import BASE_DIR, MIDDLEWARE, STATIC_URL

LEVERS_OFF = {lever for lever in os.environ.get("PAIGOW_BOOT_LEVERS", "").split(",") if lever}
MANIFEST_URL = f"{STATIC_URL}manifest.json"
EARLY_START = re.compile(
    rb'<link rel="modulepreload" href="[^"]*/engine-client\.mjs">'
    rb'|<script type="module" async src="[^"]*/engine-start\.mjs"[^>]*></script>'
)
# What each lever takes out of the table page's HTML.
HTML_LEVERS = (
    ("no-early-start", EARLY_START),
    ("no-snapshot", re.compile(rb' data-engine-snapshot="[^"]*"')),
    ("no-page-urls", re.compile(rb' data-engine-[a-z]+="[^"]*"')),
)


class LeverWhiteNoise(WhiteNoiseMiddleware):
    def __call__(self, request: Any) -> Any:
        if "no-snapshot" in LEVERS_OFF and request.path_info == MANIFEST_URL:
            manifest = json.loads((BASE_DIR / "frontend" / "build" / "manifest.json").read_text())
            manifest.pop("snapshot", None)
            response = HttpResponse(json.dumps(manifest), content_type="application/json")
            response["Cache-Control"] = "no-cache"
            return response
        response = super().__call__(request)
        patterns = [pattern for lever, pattern in HTML_LEVERS if lever in LEVERS_OFF]
        if patterns and "text/html" in response.get("Content-Type", ""):
            for pattern in patterns:
                response.content = pattern.sub(b"", response.content)
            if response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
        return response

    def get_static_file(self, path: str, url: str, stat_cache: Any = None) -> Any:
        if "no-compression" not in LEVERS_OFF:
            return super().get_static_file(path, url, stat_cache=stat_cache)
        # WhiteNoise.get_static_file without the .br/.gz alternatives.
        if stat_cache is None and not Path(path).exists():
            raise MissingFileError(path)
        headers = Headers([])
        self.add_mime_headers(headers, path, url)
        self.add_cache_headers(headers, path, url)
        if self.add_headers_function is not None:
            self.add_headers_function(headers, path, url)
        return StaticFile(path, headers.items(), stat_cache=stat_cache)


MIDDLEWARE = [
    "benchmarks.boot_site.LeverWhiteNoise" if name == "whitenoise.middleware.WhiteNoiseMiddleware"
    else name
    for name in MIDDLEWARE
]
