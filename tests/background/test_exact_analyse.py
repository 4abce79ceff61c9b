"""games.exact_analyse: a suit class's exact analysis, stored once; queued on
commit, once a moment per class; a broker that is down is logged, not raised."""

from __future__ import annotations

import logging
import weakref
from typing import Any
from unittest import mock

import pytest
from celery.signals import worker_init, worker_process_init

from games import engine, enqueue, tasks
from games.models import ExactAnalysisCache
from games.services import analysis
from paigow_site.celery import app

pytestmark = pytest.mark.django_db

REP = engine.canonical("Kd Qd 7c 7h 2d 3c JK")[0]


def test_the_task_retries_database_failures_and_is_idempotent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.db import OperationalError

    assert OperationalError in tasks.exact_analyse.autoretry_for
    assert tasks.exact_analyse.acks_late is True
    calls: list[str] = []
    real = analysis.exact
    monkeypatch.setattr(analysis, "exact", lambda seven, **kw: calls.append(seven) or real(
        seven, **kw))
    assert tasks.exact_analyse.apply(args=(REP, "friend", "player")).get() == 53_524_680
    assert tasks.exact_analyse.apply(args=(REP, "friend", "player")).get() == 53_524_680
    assert calls == [REP]
    assert ExactAnalysisCache.objects.count() == 1


def test_a_worker_builds_the_tables_as_it_starts() -> None:
    for signal in (worker_init, worker_process_init):
        receivers = [r() if isinstance(r, weakref.ReferenceType) else r
                     for _, r in signal.receivers]
        assert tasks._exact_tables_build in receivers, signal.name


@pytest.fixture
def production(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    enqueue.shared_cache().delete(enqueue.exact_mark(cards=REP, mode="solo", side="player"))


def test_a_broker_that_is_down_is_logged_and_the_next_request_queues_again(
    production: None, django_capture_on_commit_callbacks: Any, caplog: pytest.LogCaptureFixture,
) -> None:
    with (
        mock.patch.object(tasks.exact_analyse, "delay", side_effect=ConnectionError("down")),
        caplog.at_level(logging.ERROR, logger="games.enqueue"),
    ):
        with django_capture_on_commit_callbacks(execute=True):
            enqueue.exact_analyse_later(cards=REP, mode="solo", side="player")
        enqueue.wait()
    assert "queueing the exact analysis of solo player" in caplog.text
    with mock.patch.object(tasks.exact_analyse, "delay") as queued:
        with django_capture_on_commit_callbacks(execute=True):
            enqueue.exact_analyse_later(cards=REP, mode="solo", side="player")
            enqueue.exact_analyse_later(cards=REP, mode="solo", side="player")
        enqueue.wait()
    assert [c.args for c in queued.call_args_list] == [(REP, "solo", "player")]


def test_nothing_is_queued_when_the_transaction_rolls_back(
    production: None, django_capture_on_commit_callbacks: Any,
) -> None:
    from django.db import transaction

    def rolled_back() -> None:
        with transaction.atomic():
            enqueue.exact_analyse_later(cards=REP, mode="solo", side="player")
            raise RuntimeError

    with mock.patch.object(tasks.exact_analyse, "delay") as queued:
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            with pytest.raises(RuntimeError):
                rolled_back()
            enqueue.exact_analyse_later(cards=REP, mode="solo", side="player")  # this one commits
        enqueue.wait()
    assert len(callbacks) == 1
    assert [c.args for c in queued.call_args_list] == [(REP, "solo", "player")]
