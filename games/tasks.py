"""Celery tasks: thin wrappers that take ids and call ``games.upkeep``.

Each task is idempotent (the work is claimed with a conditional update or a
unique row), so a retry or a duplicate delivery (``acks_late``) has one
effect. A database that is briefly unreachable is retried with exponential
backoff. The schedule is ``CELERY_BEAT_SCHEDULE`` in the settings.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import InterfaceError, OperationalError

from . import upkeep

RETRY = {
    "bind": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": True,
    "retry_backoff_max": 300,
    "retry_jitter": True,
    "max_retries": 5,
    "acks_late": True,
    "ignore_result": True,  # the effect is in the database; nothing waits for a result
}


@shared_task(name="games.tables_close_idle", **RETRY)
def tables_close_idle(self: Any) -> int:
    return len(upkeep.tables_close_idle())


@shared_task(name="games.invites_expire", **RETRY)
def invites_expire(self: Any) -> int:
    return upkeep.invites_expire()


@shared_task(name="games.report_refresh", **RETRY)
def report_refresh(self: Any, user_id: int) -> bool:
    return upkeep.report_refresh(user_id=user_id)


@shared_task(name="games.luck_verify", **RETRY)
def luck_verify(self: Any, hand_id: int) -> str | None:
    return upkeep.luck_verify(hand_id=hand_id)


@shared_task(name="games.luck_audit", **RETRY)
def luck_audit(self: Any, size: int | None = None) -> dict[str, int]:
    return upkeep.luck_audit_sample(size=size)


@shared_task(name="games.client_messages_forget", **RETRY)
def client_messages_forget(self: Any) -> int:
    return upkeep.client_messages_forget()
