"""Logging filters: keep secrets out of log records.

An invite link is a bearer secret (it seats whoever holds it). New links
carry the token after "#", which browsers never send, but a link of the older
form (``/invite/<token>/``), a pasted or crafted URL, or a ``next=`` that
quotes one would put it in a path, and Django's request logger writes the path
of every refused request (a 404, 410 or 429) into its message.
``RedactInviteTokens`` sits on every handler and replaces the token with
``[redacted]`` in the message, its arguments and its traceback before anything
is written; ``paigow_site.server`` applies the same ``redact`` to daphne's
access log, which does not go through Python logging.
"""

from __future__ import annotations

import logging
import re
from typing import Any

# "/invite/" (or its percent-encoded form inside a query string, "%2Finvite%2F")
# and what follows up to the next path, query or field separator.
INVITE_TOKEN = re.compile(
    r"((?:/|%2F)invite(?:/|%2F))(?:(?!%2F)[^/?#&\s\"'])+", re.IGNORECASE
)
REDACTED = r"\1[redacted]"


def redact(text: str) -> str:
    """
    >>> redact("GET /invite/abcDEF-_123/ 404")
    'GET /invite/[redacted]/ 404'
    >>> redact("GET /accounts/sign-in/?next=%2Finvite%2FabcDEF%2F 200")
    'GET /accounts/sign-in/?next=%2Finvite%2F[redacted]%2F 200'
    >>> redact("POST /invite/ 302")
    'POST /invite/ 302'
    """
    return INVITE_TOKEN.sub(REDACTED, text)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, (bytes, bytearray)):
        return redact(bytes(value).decode("utf-8", "replace"))
    return value


class RedactInviteTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, dict):
            record.args = {key: _clean(value) for key, value in record.args.items()}
        elif isinstance(record.args, tuple):
            record.args = tuple(_clean(value) for value in record.args)
        if record.exc_info and not record.exc_text:
            # Formatted here, so the redacted text is what the handler writes
            # (a formatter only formats a traceback that has no text yet).
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
