"""What a page or an API call answers when the database cannot be reached in
time: a 503 with a sentence and Retry-After, never a 500 (issue 43)."""

from __future__ import annotations

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views import defaults

log = logging.getLogger(__name__)

# What a refused page or API call tells the client to wait, in seconds.
RETRY_AFTER_SECONDS = 5
UNAVAILABLE_SENTENCE = (
    "The site is too busy to answer right now, and nothing was changed. "
    "Please try again in a few seconds."
)


def database_unavailable(exc: BaseException | None) -> bool:
    """Whether ``exc`` says the database could not be reached in time: the
    pool lent no connection within ``DB_POOL_TIMEOUT_SECONDS`` (psycopg's
    ``PoolTimeout`` is an ``OperationalError``), or PostgreSQL is down or
    refused the connection. The client can only wait and try again."""
    return isinstance(exc, (OperationalError, InterfaceError))


def unavailable_response() -> HttpResponse:
    """The 503 a page gets when the database cannot be reached in time: one
    sentence, and when to try again. Rendered without the request (no
    context processor, nothing that reads the database again)."""
    response = HttpResponse(
        render_to_string("database_busy.html", {"sentence": UNAVAILABLE_SENTENCE}), status=503
    )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest, template_name: str = "500.html") -> HttpResponse:
    """``handler500``: a page, a middleware or the API that raised because
    the database was busy or down answers 503 with a sentence and
    Retry-After, never 500. Django calls it while handling the exception
    (``response_for_exception``), anywhere in the middleware chain, so a
    session read in a middleware is covered too; anything else is Django's
    own 500."""
    exc = sys.exc_info()[1]
    if database_unavailable(exc):
        # One line, no traceback: the cause is known and the client is told.
        log.warning("database unavailable for %s %s: %s", request.method, request.path, exc)
        return unavailable_response()
    return defaults.server_error(request, template_name)
