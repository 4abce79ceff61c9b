"""The API's token authentication: knox's, answering every bad token with a
clear 401 (``authentication_failed``) and a sentence the player can act on.

knox decodes the token as UTF-8 and lets the error out, so a header of raw
bytes (``Authorization: Token pgl_\\xff\\xfe``) was a 500 with a traceback.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from rest_framework import exceptions

INVALID_TOKEN = (
    "This API token is not valid: it was revoked (a password change revokes them all), "
    "has expired, or was mistyped. Make a new one on your account page."
)


class TokenAuthentication(KnoxTokenAuthentication):
    """``Authorization: Token <token>``; first in the API's classes, so an
    answer without valid credentials is 401 with ``WWW-Authenticate: Token``."""

    def authenticate_credentials(self, token: bytes) -> tuple[Any, Any]:
        try:
            token.decode("utf-8")
            return super().authenticate_credentials(token)  # type: ignore[no-any-return]
        except UnicodeDecodeError as error:
            raise exceptions.AuthenticationFailed(INVALID_TOKEN) from error
        except exceptions.AuthenticationFailed as error:
            if error.detail == "Invalid token.":
                raise exceptions.AuthenticationFailed(INVALID_TOKEN) from error
            raise


class TokenScheme(KnoxTokenScheme):  # type: ignore[no-untyped-call]
    """The schema's security scheme for it: knox's own (``Authorization: Token``)."""

    target_class = "accounts.authentication.TokenAuthentication"
