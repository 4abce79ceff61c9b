"""Template context shared by every page."""

from django.conf import settings
from django.http import HttpRequest
from django.utils.functional import cached_property

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


class ReviewDeck:
    """The signed-in player's review deck as the header and the lobby show it:
    ``due`` is counted on first use (one COUNT on the (user, due) index), so
    a page that never shows it never queries."""

    def __init__(self, user: object) -> None:
        self.user = user

    @cached_property
    def due(self) -> int:
        from games.review.selectors import review_due_count

        return review_due_count(user=self.user)


def review(request: HttpRequest) -> dict[str, object]:
    # Signed out: nothing (no deck, no query).
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"review_deck": ReviewDeck(user)}
