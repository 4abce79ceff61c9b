"""Template context shared by every page."""

from django.conf import settings
from django.http import HttpRequest

from games.engine import LUCK_SAMPLES
from games.engine.cost import EXACT_OPPONENTS


def site(request: HttpRequest) -> dict[str, object]:
    # The pages name the luck sample count from the engine, never a copy, and
    # the decision cost's opponents from the settings and the engine.
    return {
        "site_version": settings.VERSION,
        "luck_samples": LUCK_SAMPLES,
        "decision_cost_samples": f"{settings.DECISION_COST_SAMPLES:,}",
        "exact_opponents": f"{EXACT_OPPONENTS:,}",
    }
