"""A wrong password anywhere ``authenticate()`` is called counts against the
shared password limit (``accounts.limits.PASSWORDS``); a changed password,
however it was changed, revokes the player's API tokens."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver

from . import limits, tokens
from .models import password_changed


@receiver(user_login_failed, dispatch_uid="accounts.count_wrong_password")
def count_wrong_password(
    sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any
) -> None:
    username = str(credentials.get(get_user_model().USERNAME_FIELD) or "")
    if username:
        limits.password_failed(request, username)


@receiver(password_changed, dispatch_uid="accounts.revoke_tokens_on_password_change")
def revoke_tokens(sender: Any, user: Any, **kwargs: Any) -> None:
    """A changed password ends the player's other sessions (Django's session
    hash); it ends their API tokens too, so a leaked token dies with it."""
    tokens.tokens_revoke_all(user=user)
