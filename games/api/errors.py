"""REST's exception handler: the same ``{"error", "detail"}`` shape as the socket.

Wired in settings as ``REST_FRAMEWORK["EXCEPTION_HANDLER"]``.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from paigow_site.unavailable import RETRY_AFTER_SECONDS, UNAVAILABLE_SENTENCE, database_unavailable

from ..engine.errors import GameError, error_payload


def _sentence(detail: Any) -> str:
    """The first human sentence in DRF's nested error detail."""
    if isinstance(detail, dict):
        for value in detail.values():
            return _sentence(value)
        return "The request is not valid."
    if isinstance(detail, list):
        return _sentence(detail[0]) if detail else "The request is not valid."
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, GameError):
        answer = Response(error_payload(exc), status=exc.status)
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:  # a budget spent (429): when to ask again
            answer["Retry-After"] = str(retry_after)
        return answer
    if database_unavailable(exc):  # the pool lent no connection in time, or PostgreSQL is down
        return Response(
            {"error": "unavailable", "detail": UNAVAILABLE_SENTENCE},
            status=503,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, drf_exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else getattr(exc, "default_code", "invalid")
        body: dict[str, Any] = {"error": code, "detail": _sentence(exc.detail)}
        if isinstance(exc.detail, (dict, list)):
            body["fields"] = response.data
        response.data = body
    return response
