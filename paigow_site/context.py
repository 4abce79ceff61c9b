"""Template context shared by every page."""

from django.conf import settings
from django.http import HttpRequest

from games.engine import LUCK_SAMPLES


def site(request: HttpRequest) -> dict[str, object]:
    # The pages name the luck sample count from the engine, never a copy.
    return {"site_version": settings.VERSION, "luck_samples": LUCK_SAMPLES}
