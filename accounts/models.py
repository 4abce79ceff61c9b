"""The player account. A custom model from the first migration, so fields can
be added later without swapping AUTH_USER_MODEL under live data."""

from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models, transaction
from django.db.models import Q
from django.dispatch import Signal

# Sent with ``user`` after a changed password is saved, by every path that
# sets one (the account page, the reset link, the admin, ``set_password()``
# then ``save()``), in the same transaction: accounts.signals revokes the
# player's API tokens on it, as the changed password ends their other sessions.
password_changed = Signal()


class User(AbstractUser):
    class Walkthrough(models.TextChoices):
        """How the first-table walkthrough ended (``accounts.walkthrough``)."""

        DONE = "done", "Done"
        SKIPPED = "skipped", "Skipped"

    # "" until the walkthrough of the first table is done or skipped; then
    # never shown again, on any device.
    walkthrough = models.CharField(
        max_length=8, choices=Walkthrough.choices, blank=True, default=""
    )
    walkthrough_at = models.DateTimeField(null=True, blank=True)
    # ``email`` (AbstractUser's, optional) is only used for a password reset
    # once its owner opened the link sent to it (accounts.emails).
    email_verified = models.BooleanField(default=False)

    class Meta:
        db_table = "accounts_user"
        constraints = (
            models.CheckConstraint(
                condition=(Q(walkthrough="") & Q(walkthrough_at__isnull=True))
                | (Q(walkthrough__in=["done", "skipped"]) & Q(walkthrough_at__isnull=False)),
                name="user_walkthrough_ended_with_time",
            ),
            models.CheckConstraint(
                condition=Q(email_verified=False) | ~Q(email=""),
                name="user_verified_email_is_an_address",
            ),
        )

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Django keeps the raw password in ``_password`` from set_password()
        # until the save that stores it (for password validators); a hash
        # upgrade at sign-in clears it first, so it is not a change.
        update_fields = kwargs.get("update_fields")
        changed = (
            getattr(self, "_password", None) is not None
            and not self._state.adding
            and (update_fields is None or "password" in update_fields)
        )
        with transaction.atomic():
            super().save(*args, **kwargs)
            if changed:
                password_changed.send(sender=type(self), user=self)

    def __str__(self) -> str:
        return self.username
