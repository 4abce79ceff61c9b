"""The password limit's two jobs around a response: write the trusted-device
cookie a right password earned, and answer a polite 503 when the cache that
holds the limits is down (the attempt is refused, never let through uncounted)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from . import limits

log = logging.getLogger(__name__)


class PasswordLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        limits.set_device_cookie(request, response)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, limits.LimiterUnavailable):
            return None
        # One line, no traceback: the cause is known and the player is told.
        log.warning("refused %s %s: %s", request.method, request.path, exception)
        response = render(request, "accounts/limits_unavailable.html", status=503)
        response["Retry-After"] = "60"
        return response
