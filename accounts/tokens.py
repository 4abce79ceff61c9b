"""Personal API tokens (django-rest-knox): made on the account page, shown
once, revocable there.

Only the token's SHA-512 digest and its first characters (``token_key``, for
the lookup and for the player to tell tokens apart) are stored; the token
itself exists only in the answer to the request that made it. A token
expires after ``REST_KNOX["TOKEN_TTL"]``; the API reads it from
``Authorization: Token <token>``.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from knox.models import AuthToken

from .models import User

# Tokens one player may hold at once.
TOKENS_PER_USER = 10


class TooManyTokens(Exception):
    """The player already holds ``TOKENS_PER_USER`` live tokens."""


def tokens_of(*, user: Any) -> list[AuthToken]:
    """The player's tokens, newest first (an expired one is left out)."""
    now = timezone.now()
    return [
        token for token in AuthToken.objects.filter(user=user).order_by("-created")
        if token.expiry is None or token.expiry > now
    ]


def token_create(*, user: Any) -> tuple[AuthToken, str]:
    """A new token for ``user``: the stored row and the token, to show once."""
    with transaction.atomic():
        # The user's row serialises two creates of the same player.
        User.objects.select_for_update().filter(pk=user.pk).first()
        if len(tokens_of(user=user)) >= TOKENS_PER_USER:
            raise TooManyTokens
        instance, token = AuthToken.objects.create(user=user)
    return instance, token


def token_revoke(*, user: Any, token_key: str) -> bool:
    """Revoke the player's token that starts ``token_key``; False if none."""
    deleted: int = AuthToken.objects.filter(user=user, token_key=token_key).delete()[0]
    return deleted > 0


def tokens_revoke_all(*, user: Any) -> int:
    """Revoke every token of the player (a password change does); the count."""
    deleted: int = AuthToken.objects.filter(user=user).delete()[0]
    return deleted
