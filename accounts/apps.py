import logging

from django.apps import AppConfig
from django.conf import settings


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from . import checks, signals  # noqa: F401  (connects the receivers, registers the checks)

        if not settings.DEBUG and not settings.EMAIL_ENABLED:
            # Said at every start, not only by `manage.py check` (daphne runs no checks).
            logging.getLogger("accounts").warning("%s %s", checks.NO_MAIL, checks.NO_MAIL_HINT)
