"""The optional card-face pack (PNG-cards-1.3 file naming), served under /faces/.

The built-in SVG faces need nothing. A pack is a folder of PNGs named like
``ace_of_spades.png``, ``10_of_hearts.png``, ``black_joker.png`` and ``back.png``;
point ``CARD_FACES_DIR`` (a setting, or the environment variable of that name)
at it and the table offers it as a choice. Nothing from the pack is ever
copied into the repository.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest
from django.views.decorators.http import require_GET

FACE_NAME = re.compile(r"^(?:(?:[2-9]|10|jack|queen|king|ace)_of_(?:spades|hearts|diamonds|clubs)"
                       r"|black_joker|red_joker|back)\.png$")


def faces_dir() -> Path | None:
    """The configured face pack folder, or None when the site has none."""
    value = getattr(settings, "CARD_FACES_DIR", None) or os.environ.get("CARD_FACES_DIR", "")
    if not value:
        return None
    path = Path(value)
    return path if path.is_dir() else None


@require_GET
def face(request: HttpRequest, name: str) -> FileResponse:
    folder = faces_dir()
    if folder is None or not FACE_NAME.match(name):
        raise Http404("No such card face.")
    path = folder / name
    if not path.is_file():
        raise Http404("No such card face.")
    response = FileResponse(path.open("rb"), content_type="image/png")
    response["Cache-Control"] = "public, max-age=86400"
    return response
