"""The first-table walkthrough: whether a player still gets it, and its end.

The table page (``games.views.table_detail``) shows the walkthrough while
``walkthrough_pending``; the page's "Skip the walkthrough" and its last step
post to ``accounts:walkthrough``, which calls ``walkthrough_end``. The first
end is kept: a walkthrough done stays done, a skip stays a skip.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from .models import User

OUTCOMES = tuple(User.Walkthrough.values)


def walkthrough_pending(*, user: Any) -> bool:
    """Whether the signed-in ``user`` has neither done nor skipped the walkthrough."""
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(User.objects.filter(pk=user.pk, walkthrough="").exists())


def walkthrough_end(*, user: Any, outcome: str) -> str:
    """Record that the walkthrough was done or skipped; returns the stored
    outcome (the first one, when it had already ended). A queryset update:
    no save signal, so the player's table sockets are not re-checked."""
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown walkthrough outcome {outcome!r}")
    User.objects.filter(pk=user.pk, walkthrough="").update(
        walkthrough=outcome, walkthrough_at=timezone.now()
    )
    stored: str = User.objects.values_list("walkthrough", flat=True).get(pk=user.pk)
    return stored
