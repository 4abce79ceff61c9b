"""Swagger UI's stylesheet under the site's policy.

drf-spectacular-sidecar ships Swagger UI's files, and the docs page loads them
from the site's static files. Its ``swagger-ui.css`` draws some two dozen icons
(arrows, the copy button, a select's chevron) from ``data:`` URLs, which the
site's Content-Security-Policy (``img-src 'self'``) blocks. This serves the same
stylesheet with each ``data:`` URL moved to a URL of the site that answers its
bytes, so the page needs no exception to the policy. Both are read once a
process, from the installed sidecar (a new Swagger UI needs no change here).
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from pathlib import Path
from urllib.parse import unquote_to_bytes

from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET

STYLESHEET = "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css"
# url("data:…") with CSS escapes inside the quotes, or url(data:…) bare.
DATA_URL = re.compile(r'url\(\s*"data:((?:[^"\\]|\\.)*)"\s*\)|url\(\s*data:([^)"\']*)\)')
CSS_ESCAPE = re.compile(r"\\(.)")
DAY = 24 * 60 * 60


def _bytes(body: str) -> tuple[str, bytes]:
    """A data URL's body (after ``data:``) as its media type and bytes."""
    header, _, payload = body.partition(",")
    media_type = header.split(";")[0] or "text/plain"
    if header.endswith(";base64"):
        return media_type, base64.b64decode(payload)
    return media_type, unquote_to_bytes(payload)


@cache
def _rewritten() -> tuple[str, dict[str, tuple[str, bytes]]]:
    """The stylesheet with its data: URLs replaced, and what each new name holds."""
    path = finders.find(STYLESHEET)
    if not isinstance(path, str):  # pragma: no cover - the sidecar is a dependency
        raise Http404("Swagger UI's stylesheet is not installed.")
    images: dict[str, tuple[str, bytes]] = {}
    prefix = reverse("api:docs-image", args=["x"])[:-1]

    def moved(match: re.Match[str]) -> str:
        quoted, bare = match.groups()
        body = CSS_ESCAPE.sub(r"\1", quoted) if quoted is not None else bare
        media_type, data = _bytes(body)
        extension = media_type.rsplit("/", 1)[-1].split("+")[0]
        name = f"{hashlib.sha256(data).hexdigest()[:16]}.{extension}"
        images[name] = (media_type, data)
        return f'url("{prefix}{name}")'

    return DATA_URL.sub(moved, Path(path).read_text(encoding="utf-8")), images


def _cached(response: HttpResponse) -> HttpResponse:
    patch_cache_control(response, public=True, max_age=DAY)
    return response


@require_GET
def stylesheet(request: HttpRequest) -> HttpResponse:
    css, _ = _rewritten()
    return _cached(HttpResponse(css, content_type="text/css; charset=utf-8"))


@require_GET
def image(request: HttpRequest, name: str) -> HttpResponse:
    found = _rewritten()[1].get(name)
    if found is None:
        raise Http404("There is no such image.")
    media_type, data = found
    return _cached(HttpResponse(data, content_type=media_type))
