"""The player account. A custom model from the first migration, so fields can
be added later without swapping AUTH_USER_MODEL under live data."""

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q


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

    class Meta:
        db_table = "accounts_user"
        constraints = (
            models.CheckConstraint(
                condition=(Q(walkthrough="") & Q(walkthrough_at__isnull=True))
                | (Q(walkthrough__in=["done", "skipped"]) & Q(walkthrough_at__isnull=False)),
                name="user_walkthrough_ended_with_time",
            ),
        )

    def __str__(self) -> str:
        return self.username
