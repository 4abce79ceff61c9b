"""``{% invite_waiting %}``: on the sign-in and sign-up pages, who invited the
signed-out visitor whose invite link waits in the session (``views.join``),
so they know why they are asked to sign in. The token never leaves the
server's session: it was posted, not put in a URL."""

from __future__ import annotations

from typing import Any

from django import template

from games import services
from games.engine.errors import GameError
from games.views import PENDING_INVITE

register = template.Library()


@register.inclusion_tag("games/_invite_waiting.html", takes_context=True)
def invite_waiting(context: template.Context) -> dict[str, Any]:
    request = getattr(context, "request", None)
    token = request.session.get(PENDING_INVITE) if request is not None else None
    if not token:
        return {}
    try:
        invite = services.invite_preview(token=token)
    except GameError as exc:  # withdrawn, used or expired since it was opened
        return {"refused": exc.detail}
    return {"host": invite.created_by.username}
