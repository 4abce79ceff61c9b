"""One error shape for the socket and REST: {"error": code, "detail": sentence}."""

from __future__ import annotations

from django.conf import settings
from rest_framework import exceptions as drf_exceptions

from games.api.errors import exception_handler
from games.engine import errors as exceptions


def test_rest_is_wired_to_the_shared_handler() -> None:
    assert settings.REST_FRAMEWORK["EXCEPTION_HANDLER"] == "games.api.errors.exception_handler"


def test_a_domain_error_has_the_same_shape_on_rest_as_on_the_socket() -> None:
    error = exceptions.StakeTooHigh("A stake of 5000 is more than the smaller stack.")
    response = exception_handler(error, {})
    assert response is not None
    assert response.status_code == 400
    assert response.data == exceptions.error_payload(error) == {
        "error": "stake_too_high", "detail": "A stake of 5000 is more than the smaller stack."
    }


def test_drfs_own_errors_get_the_same_shape() -> None:
    response = exception_handler(drf_exceptions.NotAuthenticated(), {})
    assert response is not None
    assert response.status_code == 401
    assert response.data["error"] == "not_authenticated"
    assert response.data["detail"] == "Authentication credentials were not provided."
    response = exception_handler(drf_exceptions.ValidationError({"stake": ["Too big."]}), {})
    assert response is not None
    assert (response.data["error"], response.data["detail"]) == ("invalid", "Too big.")


def test_every_domain_error_has_a_stable_code_and_a_sentence() -> None:
    classes = [
        c for c in vars(exceptions).values()
        if isinstance(c, type) and issubclass(c, exceptions.GameError)
    ]
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes))
    for cls in classes:
        assert cls().detail.endswith("."), cls
