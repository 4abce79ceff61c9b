"""What the broker settings promise: heavy analyses never share the luck
checks' queue; a message a dead worker held comes back within the
visibility timeout (CELERY_VISIBILITY_TIMEOUT), which every countdown must
fit in (system check paigow.E002); the Redis transport leaves unacknowledged
messages to that timeout instead of restoring them as a channel closes; and
the beat's luck sweep redoes a check that was lost."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.utils import timezone

from accounts.models import User
from games import tasks
from games.models import Hand, LuckAudit
from games.services import upkeep
from paigow_site import celery
from paigow_site.celery import app, countdowns_fit
from tests.background.test_luck_verify import honest, record, revealed


def queue_of(task: str) -> str:
    return str(app.amqp.router.route({}, task)["queue"].name)


def test_the_work_players_wait_for_never_shares_a_queue_with_heavy_analysis() -> None:
    default = settings.CELERY_TASK_DEFAULT_QUEUE
    for task in ("games.luck_verify_hands", "games.luck_verify", "games.luck_sweep",
                 "games.report_refresh_users"):
        assert queue_of(task) == default, task
    for task in ("games.exact_analyse", "games.practice_analyse"):
        assert queue_of(task) == f"{default}-analysis", task
    for task in ("games.decision_cost_hands", "games.practice_cost_hands",
                 "games.practice_costs_sweep", "games.practice_test_score"):
        assert queue_of(task) == f"{default}-costs", task


def test_the_defaults_pass_the_check_and_redeliver_within_two_minutes() -> None:
    assert countdowns_fit() == []
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    assert options["visibility_timeout"] == settings.CELERY_VISIBILITY_TIMEOUT
    # kombu's sweep for such messages runs every interval x throttle seconds.
    sweep = options["unacked_restore_interval"] * options["unacked_restore_throttle"]
    assert settings.CELERY_VISIBILITY_TIMEOUT + sweep <= 120
    assert tasks.luck_verify_hands.retry_backoff_max == settings.TASK_RETRY_BACKOFF_MAX


@pytest.mark.parametrize(("name", "value"), [
    ("REPORT_REFRESH_SECONDS", 120),  # the report refresh's countdown
    ("TASK_RETRY_BACKOFF_MAX", 300),  # a retry's countdown
    ("CELERY_VISIBILITY_TIMEOUT", 75),  # too short for the 61 s refresh (not the 60 s retry)
])
def test_a_countdown_past_the_visibility_timeout_fails_the_system_check(
    settings: Any, name: str, value: int
) -> None:
    # Production's defaults (embedded, the refresh window is 0), then the one change.
    settings.REPORT_REFRESH_SECONDS, settings.TASK_RETRY_BACKOFF_MAX = 60, 60
    settings.CELERY_VISIBILITY_TIMEOUT = 90
    setattr(settings, name, value)
    errors = countdowns_fit()
    assert [e.id for e in errors] == ["paigow.E002"]
    assert "CELERY_VISIBILITY_TIMEOUT" in errors[0].msg
    with pytest.raises(SystemCheckError, match=r"paigow\.E002"):
        call_command("check")


def test_the_redis_transport_leaves_unacked_messages_to_the_visibility_timeout() -> None:
    """kombu's restore as a channel closes is what killed the worker when
    Redis restarted (paigow_site.celery); ``do_restore`` is what kombu's
    ``QoS.restore_unacked_once`` reads to skip it."""
    from kombu.transport.virtual.base import QoS

    assert celery.RedisTransport.Channel is celery.RedisChannel
    assert celery.RedisChannel.do_restore is False
    channel = type("Closed", (), {"do_restore": celery.RedisChannel.do_restore})()
    qos = QoS(channel)
    qos._delivered["tag"] = object()  # a message the worker held
    qos.restore_unacked_once()  # kombu's: restores nothing, touches no connection
    assert "tag" in qos._delivered


@pytest.mark.django_db
def test_the_sweep_checks_an_estimate_whose_check_was_lost_and_no_other(
    player: User, friend: User, rig: Callable[..., None]
) -> None:
    table, deal = revealed(player, friend, rig)
    record(friend, table, honest())  # its queued check never ran (lost with Redis)
    assert not LuckAudit.objects.exists()
    assert upkeep.luck_sweep() == {"checked": 0, "flagged": 0}  # just revealed: its task's
    later = timezone.now() + timedelta(seconds=settings.LUCK_SWEEP_AFTER_SECONDS + 1)
    assert upkeep.luck_sweep(now=later) == {"checked": 1, "flagged": 0}
    hand = Hand.objects.get(deal=deal, seat_number=1)
    assert LuckAudit.objects.get().hand_id == hand.pk
    assert upkeep.luck_sweep(now=later) == {"checked": 0, "flagged": 0}


def test_the_beat_sweeps_every_minute() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["luck-sweep"]
    assert (entry["task"], entry["schedule"]) == ("games.luck_sweep", 60)
