"""games.enqueue: what a process queues by name after commit, and its
batches (the rest is in test_tasks.py, test_luck_verify.py and
test_decision_cost.py, through the services that queue)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

EXITS_AT_ONCE = """
import django; django.setup()
from django.db import transaction
from games import enqueue, tasks
tasks.decision_cost_hands.delay = lambda ids: print("sent", ids, flush=True)
with transaction.atomic():
    enqueue.decision_cost_later(hand_ids=[7, 8])
print("exiting", flush=True)
"""


def test_a_process_that_exits_sends_what_its_batches_hold() -> None:
    # A batch waits TASK_BATCH_SECONDS on a daemon timer; the process exits
    # long before (a deploy, a management command): the batch goes anyway.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "paigow_site.settings",
           "TASK_BATCH_SECONDS": "30", "CELERY_EAGER": "0",
           # Not eager (a broker is named), though the test never reaches it.
           "REDIS_URL": os.environ.get("REDIS_URL") or "redis://127.0.0.1:1/0"}
    out = subprocess.run([sys.executable, "-c", EXITS_AT_ONCE], cwd=REPO, env=env,
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.split("\n")[-3:] == ["exiting", "sent [7, 8]", ""]
