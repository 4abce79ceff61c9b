"""A wrong password anywhere ``authenticate()`` is called counts against the
shared password limit (``accounts.limits.PASSWORDS``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver

from . import limits


@receiver(user_login_failed, dispatch_uid="accounts.count_wrong_password")
def count_wrong_password(
    sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any
) -> None:
    username = str(credentials.get(get_user_model().USERNAME_FIELD) or "")
    if username:
        limits.password_failed(request, username)
