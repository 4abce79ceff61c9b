"""System checks: production that sends no e-mail says so, loudly."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks

NO_MAIL = (
    "No EMAIL_HOST: this site sends no e-mail, so players cannot verify an address "
    "or reset a forgotten password (the reset page tells them to ask you)."
)
NO_MAIL_HINT = (
    "Set EMAIL_HOST (and EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, "
    "DEFAULT_FROM_EMAIL) to offer the reset; leave it unset only if you mean to "
    "set forgotten passwords yourself (manage.py changepassword)."
)


@checks.register(checks.Tags.security)
def mail_for_password_resets(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if settings.DEBUG or settings.EMAIL_ENABLED:
        return []
    return [checks.Warning(NO_MAIL, hint=NO_MAIL_HINT, id="accounts.W001")]
