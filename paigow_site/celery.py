"""The Celery app: Redis when REDIS_URL is set, eager (in-process) otherwise.

The broker settings live in Django settings under the CELERY_ namespace, so the
environment decides in one place.

Two things here guard what the settings rely on:

- ``RedisTransport``: kombu's Redis transport, except that a channel never
  restores its unacknowledged messages as it closes. When Redis went away
  while a worker held one (every reveal leaves a report refresh with a
  countdown), Celery's consumer collects the broken connection (which drops
  the transport's client) and then closes it; kombu's channel then tried to
  restore the message over a connection pool it rebuilds from that client,
  and ``_connparams`` raised ``AttributeError: 'NoneType' object has no
  attribute 'hostname'``, which no recovery catches: the worker exited
  ("Unrecoverable error"). Seen with kombu 5.7.0, the newest; reproduced by
  tests/system/test_broker_faults.py. The restore could not succeed there
  anyway (Redis is down), and it is not needed: the message stays in Redis's
  unacked hash, and every worker's periodic ``restore_visible`` puts it back
  on its queue once it is ``CELERY_VISIBILITY_TIMEOUT`` old. A worker's
  warm shutdown leaves its prefetched messages to the same sweep.
- ``countdowns_fit`` (Django system check ``paigow.E002``): a task due later
  than the visibility timeout would be delivered again each timeout while
  it waits, so every countdown the code uses must fit inside it.
"""
from __future__ import annotations

import os
from typing import Any

from celery import Celery
from django.conf import settings
from django.core import checks
from kombu.transport import redis as kombu_redis

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")

app = Celery("paigow_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class RedisChannel(kombu_redis.Channel):
    # Read by kombu's ``QoS.restore_unacked_once``: the unacknowledged
    # messages are left to ``restore_visible`` (see the module's docstring).
    do_restore = False


class RedisTransport(kombu_redis.Transport):
    """kombu's Redis transport with ``RedisChannel`` (``CELERY_BROKER_TRANSPORT``)."""

    Channel = RedisChannel


# The slowest a task is in its worker once it is due (a report refresh, a
# batch of luck checks): what a countdown leaves of the visibility timeout
# must cover it.
TASK_SECONDS_AT_MOST = 15


def task_countdowns() -> dict[str, float]:
    """Every delay after which a delivered message is still unacknowledged
    because its task is not due yet: the report refresh's countdown and the
    longest retry backoff."""
    return {
        "REPORT_REFRESH_SECONDS + 1 (the report refresh's countdown)":
            settings.REPORT_REFRESH_SECONDS + 1,
        "TASK_RETRY_BACKOFF_MAX (a retry's countdown)": settings.TASK_RETRY_BACKOFF_MAX,
    }


@checks.register("celery")
def countdowns_fit(app_configs: Any = None, **_: Any) -> list[checks.CheckMessage]:
    """``paigow.E002``: each countdown plus ``TASK_SECONDS_AT_MOST`` fits in
    ``CELERY_VISIBILITY_TIMEOUT``."""
    timeout = settings.CELERY_VISIBILITY_TIMEOUT
    return [
        checks.Error(
            f"{name} is {seconds:g} s: with the task's run it does not fit in "
            f"CELERY_VISIBILITY_TIMEOUT ({timeout} s), so Redis would deliver the waiting "
            "message again and again.",
            hint=f"Raise CELERY_VISIBILITY_TIMEOUT to at least "
                 f"{seconds + TASK_SECONDS_AT_MOST:g}, or shorten the countdown.",
            id="paigow.E002",
        )
        for name, seconds in task_countdowns().items()
        if seconds + TASK_SECONDS_AT_MOST > timeout
    ]
