"""Logging filters: keep secrets out of log records.

An invite link is a bearer secret (it seats whoever holds it), and Django's
request logger writes the path of every refused request (a 404, 410 or 429 on
``/invite/<token>/``) into its message. ``RedactInviteTokens`` sits on every
handler and replaces the token with ``[redacted]`` in the message and its
arguments before anything is written.
"""

from __future__ import annotations

import logging
import re
from typing import Any

INVITE_TOKEN = re.compile(r"(/invite/)[^/\s?#\"']+")
REDACTED = r"\1[redacted]"


def redact(text: str) -> str:
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
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
