"""The player account. A custom model from the first migration, so fields can
be added later without swapping AUTH_USER_MODEL under live data."""

from django.contrib.auth.models import AbstractUser


class User(AbstractUser):
    class Meta:
        db_table = "accounts_user"

    def __str__(self) -> str:
        return self.username
