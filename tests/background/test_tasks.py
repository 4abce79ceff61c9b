"""Background work (games.tasks over games.services.upkeep): each task is thin, retried
with backoff, and idempotent: run twice, it has one effect."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import OperationalError
from django.utils import timezone

from games import engine, enqueue, reports, selectors, services, tasks
from games.engine.errors import InviteExpired, InviteRevoked, TableFinished
from games.history.selectors import HandFilters
from games.models import (
    ClientMessage,
    Deal,
    Hand,
    Invite,
    LuckAudit,
    PlayerReport,
    ReportBucket,
    Table,
)
from games.realtime.apply import message_apply
from games.realtime.messages import Message
from games.services import upkeep
from paigow_site.celery import app
from tests.support import (
    COPY_A,
    COPY_B,
    SPLIT_A,
    SPLIT_B,
    STRONG,
    WEAK,
    accept_seen,
    deal_friend,
    deck_with,
    friend_table,
    house_front,
)

pytestmark = pytest.mark.django_db

TASKS = (
    tasks.tables_close_idle,
    tasks.invites_expire,
    tasks.report_refresh,
    tasks.luck_audit,
    tasks.client_messages_forget,
    tasks.decision_cost,
    tasks.decision_cost_hands,
    tasks.luck_verify_hands,
    tasks.decision_costs_sweep,
    tasks.practice_cost_hands,
    tasks.practice_costs_sweep,
)


@pytest.fixture
def play(play_solo: Callable[..., Deal]) -> Callable[..., Deal]:
    """play(user, table, mine, dealer, front=None): one revealed solo deal of 5 chips."""
    return functools.partial(play_solo, stake=5)


def age(table: Table, hours: float) -> None:
    Table.objects.filter(pk=table.pk).update(updated_at=timezone.now() - timedelta(hours=hours))


# --- wiring -----------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_every_task_retries_database_failures_with_backoff(task: Any) -> None:
    assert OperationalError in task.autoretry_for
    assert task.retry_backoff is True
    assert task.max_retries == 5
    assert task.acks_late is True


def test_the_beat_schedule_names_registered_tasks() -> None:
    schedule = settings.CELERY_BEAT_SCHEDULE
    assert {entry["task"] for entry in schedule.values()} == {
        "games.tables_close_idle", "games.invites_expire", "games.luck_audit",
        "games.client_messages_forget", "games.decision_costs_sweep", "games.luck_sweep",
        "games.practice_costs_sweep",
    }
    for entry in schedule.values():
        assert entry["task"] in app.tasks


def test_a_database_hiccup_is_retried(player: Any) -> None:
    real = reports.report_refresh
    calls: list[int] = []

    def flaky(*, user_id: int) -> bool:
        calls.append(user_id)
        if len(calls) == 1:
            raise OperationalError("the database went away")
        return real(user_id=user_id)

    with mock.patch.object(reports, "report_refresh", flaky):
        # Eagerly, a retry runs again at once (a worker waits with backoff).
        result = tasks.report_refresh.apply(args=[player.pk], throw=False)
    assert result.get() is True
    assert calls == [player.pk, player.pk]


# --- idle tables ------------------------------------------------------------


def test_idle_waiting_and_betting_tables_close_once(
    player: Any, friend: Any, play: Callable[..., Deal], rig: Callable[..., None]
) -> None:
    waiting = services.table_start(user=player, mode="friend")
    betting = services.table_start(user=player, mode="solo")
    fresh = services.table_start(user=player, mode="solo")
    playing = friend_table(player, friend)
    rig(deck_with(COPY_A, COPY_B))
    services.stake_propose(user=player, table_id=playing.pk, amount=5)
    accept_seen(friend, playing.pk)
    services.deal_start(user=player, table_id=playing.pk)
    for table in (waiting, betting, playing):
        age(table, settings.TABLE_IDLE_HOURS + 1)
    age(fresh, settings.TABLE_IDLE_HOURS - 1)

    assert tasks.tables_close_idle.delay().get() == 2
    assert tasks.tables_close_idle.delay().get() == 0  # nothing left to claim
    status = dict(Table.objects.values_list("pk", "status"))
    assert status[waiting.pk] == status[betting.pk] == "finished"
    assert status[fresh.pk] == "betting"
    assert status[playing.pk] == "playing"  # a deal in progress is never cut off
    invite = Invite.objects.get(table=waiting)
    assert invite.revoked_at is not None
    assert selectors.open_invite(table=waiting) is None
    with pytest.raises(InviteRevoked):
        services.invite_accept(user=friend, token=invite.token)
    with pytest.raises(TableFinished):
        services.stake_propose(user=player, table_id=betting.pk, amount=5)


def test_a_table_touched_after_the_scan_is_not_closed(player: Any) -> None:
    table = services.table_start(user=player, mode="solo")
    age(table, settings.TABLE_IDLE_HOURS + 1)
    real_filter = Table.objects.filter

    def touched_in_between(*args: Any, **kwargs: Any) -> Any:
        # The scan saw it idle; the player acts before the claim.
        if "pk" in kwargs:
            real_filter(pk=table.pk).update(updated_at=timezone.now())
        return real_filter(*args, **kwargs)

    with mock.patch.object(Table.objects, "filter", touched_in_between):
        assert upkeep.tables_close_idle() == []
    assert Table.objects.get(pk=table.pk).status == "betting"


# --- invites ----------------------------------------------------------------


def test_expired_links_are_withdrawn_once_and_still_say_expired(
    player: Any, friend: Any
) -> None:
    old = services.table_start(user=player, mode="friend")
    current = services.table_start(user=player, mode="friend")
    expired = Invite.objects.get(table=old)
    expiry = timezone.now() - timedelta(minutes=5)
    Invite.objects.filter(pk=expired.pk).update(expires_at=expiry)

    assert tasks.invites_expire.delay().get() == 1
    assert tasks.invites_expire.delay().get() == 0
    expired.refresh_from_db()
    assert expired.revoked_at == expiry
    assert expired.used_at is None
    assert Invite.objects.get(table=current).revoked_at is None
    with pytest.raises(InviteExpired):
        services.invite_accept(user=friend, token=expired.token)
    # The host can still make a new link for the table.
    fresh = services.invite_create(user=player, table_id=old.pk)
    services.invite_accept(user=friend, token=fresh.token)


# --- report aggregates ------------------------------------------------------


@pytest.mark.parametrize("window", [0, 60])
def test_each_reveal_queues_a_refresh_of_both_players(
    player: Any, friend: Any, rig: Callable[..., None],
    django_capture_on_commit_callbacks: Any, settings: Any, window: int,
) -> None:
    settings.REPORT_REFRESH_SECONDS = window
    for user in (player, friend):
        cache.delete(f"report-refresh:{user.pk}")
    table = friend_table(player, friend)
    rig(deck_with(SPLIT_A, SPLIT_B))
    services.stake_propose(user=player, table_id=table.pk, amount=5)
    accept_seen(friend, table.pk)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(SPLIT_A))
    with (
        mock.patch.object(tasks.report_refresh, "delay") as delay,
        mock.patch.object(tasks.report_refresh, "apply_async") as later,
        # Each decision cost queues a refresh of its own once written
        # (tests/background/test_decision_cost.py); here only the reveal's.
        mock.patch.object(tasks.decision_cost_hands, "delay"),
    ):
        with django_capture_on_commit_callbacks(execute=True):
            services.setting_lock(user=friend, table_id=table.pk, front=house_front(SPLIT_B))
        enqueue.wait()  # a deferred refresh is queued on its own thread
    queued = [c.args[0] for c in delay.call_args_list] + [
        c.args[0][0] for c in later.call_args_list
    ]
    assert sorted(queued) == sorted([player.pk, friend.pk])


def test_the_refresh_runs_once_per_change_and_the_report_reads_it(
    player: Any, play: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    cache.delete(f"report-refresh:{player.pk}")  # no window left open by an earlier run
    table = services.table_start(user=player, mode="solo")
    # Eagerly a windowed refresh runs before the reveals' decision costs are
    # in (a worker runs it a window later, after them): the costs and their
    # refresh are tests/background/test_decision_cost.py's.
    with (
        mock.patch.object(tasks.decision_cost_hands, "delay"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        play(player, table, STRONG, WEAK)
        play(player, table, COPY_A, COPY_B)
        play(player, table, SPLIT_A, SPLIT_B, front=["2h", "4d"])  # leaves the house way
    report = PlayerReport.objects.get(user=player)
    assert report.hands == 3
    assert report.refreshed_at is not None
    version = report.version
    assert tasks.report_refresh.delay(player.pk).get() is False  # already current
    assert PlayerReport.objects.get(user=player).version == version

    from_rows = _report_without_aggregates(player)
    from_aggregates = reports.skill_report(user=player)
    assert from_aggregates == from_rows
    assert from_aggregates["total"]["deals"] == 3
    assert from_aggregates["total"]["departures"] == 1
    assert ReportBucket.objects.filter(report=report).count() >= 2


def test_stale_aggregates_are_not_used(
    player: Any, play: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    cache.delete(f"report-refresh:{player.pk}")  # no window left open by an earlier run
    table = services.table_start(user=player, mode="solo")
    with django_capture_on_commit_callbacks(execute=True):
        play(player, table, STRONG, WEAK)
    play(player, table, SPLIT_A, SPLIT_B, front=["2h", "4d"])  # no refresh ran for this one
    assert PlayerReport.objects.get(user=player).hands == 1
    assert reports.skill_report(user=player)["total"]["deals"] == 2
    assert reports.skill_report(user=player) == _report_without_aggregates(player)
    assert reports.report_refresh(user_id=player.pk) is True
    assert reports.report_refresh(user_id=player.pk) is False
    assert PlayerReport.objects.get(user=player).hands == 2


def test_a_refresh_for_a_player_who_is_gone_does_nothing() -> None:
    assert tasks.report_refresh.delay(987654).get() is False
    assert not PlayerReport.objects.exists()


@pytest.mark.parametrize(
    "filters",
    [
        HandFilters(mode="solo"),
        HandFilters(mode="friend"),
        HandFilters(date_from=timezone.now().date()),
        HandFilters(date_to=timezone.now().date() - timedelta(days=1)),
        HandFilters(result="win"),
    ],
)
def test_filtered_reports_match_with_and_without_aggregates(
    player: Any, friend: Any, play: Callable[..., Deal], rig: Callable[..., None],
    filters: HandFilters,
) -> None:
    table = services.table_start(user=player, mode="solo")
    play(player, table, STRONG, WEAK)
    play(player, table, SPLIT_A, SPLIT_B, front=["2h", "4d"])
    shared = friend_table(player, friend)
    rig(deck_with(COPY_A, COPY_B))
    services.stake_propose(user=player, table_id=shared.pk, amount=5)
    accept_seen(friend, shared.pk)
    services.deal_start(user=player, table_id=shared.pk)
    services.setting_lock(user=player, table_id=shared.pk, front=house_front(COPY_A))
    services.setting_lock(user=friend, table_id=shared.pk, front=house_front(COPY_B))
    expected = _report_without_aggregates(player, filters)
    reports.report_refresh(user_id=player.pk)
    assert reports.skill_report(user=player, filters=filters) == expected


def _report_without_aggregates(user: Any, filters: Any = None) -> dict[str, Any]:
    with mock.patch.object(reports, "_filled_from_aggregates", return_value=False):
        return reports.skill_report(user=user, filters=filters)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("window", [0, 60])
def test_a_broker_that_is_down_never_fails_a_reveal(
    player: Any, play: Callable[..., Deal], settings: Any, window: int
) -> None:
    settings.REPORT_REFRESH_SECONDS = window
    cache.delete(f"report-refresh:{player.pk}")
    table = services.table_start(user=player, mode="solo")
    down = ConnectionError("down")
    with (
        mock.patch.object(tasks.report_refresh, "delay", side_effect=down),
        mock.patch.object(tasks.report_refresh, "apply_async", side_effect=down),
    ):
        deal = play(player, table, STRONG, WEAK)
        enqueue.wait()
    deal.refresh_from_db()
    assert deal.revealed
    assert not PlayerReport.objects.filter(user=player).exists()


# --- the luck audit ---------------------------------------------------------


def _record_luck(user: Any, table: Table, deal: Deal, counts: tuple[int, int, int]) -> None:
    wins, pushes, losses = counts
    services.luck_record(
        user=user, table_id=table.pk, deal_number=deal.number,
        wins=wins, pushes=pushes, losses=losses,
    )


def test_the_audit_passes_true_estimates_and_flags_tampered_ones(
    player: Any, friend: Any, play: Callable[..., Deal], rig: Callable[..., None],
) -> None:
    solo = services.table_start(user=player, mode="solo")
    honest = play(player, solo, STRONG, WEAK)
    truth = engine.luck(STRONG, mode="solo", side="player")
    _record_luck(player, solo, honest, (truth.wins, truth.pushes, truth.losses))
    forged = play(player, solo, WEAK, STRONG)
    truth_weak = engine.luck(WEAK, mode="solo", side="player")
    _record_luck(player, solo, forged, (120, 0, 0))
    assert truth_weak.wins != 120
    relabelled = play(player, solo, COPY_A, COPY_B)
    copy_truth = engine.luck(COPY_A, mode="solo", side="player")
    _record_luck(player, solo, relabelled, (copy_truth.wins, copy_truth.pushes, copy_truth.losses))
    Hand.objects.filter(deal=relabelled, seat_number=0).update(luck_label="Luck 9.9 (9.8–10.0)")
    # A friend seat is drawn as side "player" in friend mode.
    shared = friend_table(player, friend)
    rig(deck_with(SPLIT_A, SPLIT_B))
    services.stake_propose(user=player, table_id=shared.pk, amount=5)
    accept_seen(friend, shared.pk)
    deal = services.deal_start(user=player, table_id=shared.pk)
    services.setting_lock(user=player, table_id=shared.pk, front=house_front(SPLIT_A))
    services.setting_lock(user=friend, table_id=shared.pk, front=house_front(SPLIT_B))
    friend_truth = engine.luck(SPLIT_B, mode="friend", side="player")
    _record_luck(
        friend, shared, deal, (friend_truth.wins, friend_truth.pushes, friend_truth.losses)
    )

    assert tasks.luck_audit.delay().get() == {"checked": 4, "flagged": 2}
    assert tasks.luck_audit.delay().get() == {"checked": 0, "flagged": 0}
    audits = {a.hand.deal_id: a for a in LuckAudit.objects.select_related("hand")}
    assert audits[honest.pk].ok
    assert audits[deal.pk].ok
    bad = audits[forged.pk]
    assert not bad.ok
    assert (bad.stored_wins, bad.expected_wins) == (120, truth_weak.wins)
    assert "counts" in bad.reason
    assert not audits[relabelled.pk].ok
    assert "label" in audits[relabelled.pk].reason


def test_the_audit_takes_a_bounded_sample_oldest_first(
    player: Any, play: Callable[..., Deal]
) -> None:
    table = services.table_start(user=player, mode="solo")
    deals = []
    for _ in range(3):
        deal = play(player, table, COPY_A, COPY_B)
        t = engine.luck(COPY_A, mode="solo", side="player")
        _record_luck(player, table, deal, (t.wins, t.pushes, t.losses))
        deals.append(deal)
    assert upkeep.luck_audit_sample(size=2) == {"checked": 2, "flagged": 0}
    assert set(LuckAudit.objects.values_list("hand__deal_id", flat=True)) == {
        deals[0].pk, deals[1].pk
    }
    assert upkeep.luck_audit_sample(size=2) == {"checked": 1, "flagged": 0}


# --- client message ids ---------------------------------------------------------


def test_old_message_ids_are_forgotten_in_batches_and_new_ones_kept(
    player: Any, friend: Any
) -> None:
    table = friend_table(player, friend)
    seat = table.seats.get(number=0)
    now = timezone.now()
    old = now - timedelta(hours=settings.CLIENT_MESSAGE_HOURS + 1)
    ClientMessage.objects.bulk_create(
        ClientMessage(seat=seat, client_id=f'"{i}"', type="stake", digest="x" * 64)
        for i in range(7)
    )
    ClientMessage.objects.filter(client_id__in=[f'"{i}"' for i in range(5)]).update(
        created_at=old
    )
    assert upkeep.client_messages_forget(now=now, batch=2) == 5
    assert sorted(ClientMessage.objects.values_list("client_id", flat=True)) == ['"5"', '"6"']
    assert upkeep.client_messages_forget(now=now) == 0  # a second run finds nothing


def test_a_kept_message_id_still_turns_a_resend_into_a_replay(
    player: Any, friend: Any
) -> None:
    table = friend_table(player, friend)

    def stake() -> bool:
        message = Message("stake", {"amount": 3}, "s1")
        return message_apply(user=player, table_id=table.pk, message=message).replayed

    assert stake() is False
    upkeep.client_messages_forget()  # the id is fresh: kept
    assert stake() is True


def test_a_deferred_refresh_is_queued_off_the_thread_that_answers_the_reveal(
    player: Any, play: Callable[..., Deal], settings: Any,
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The broker can be slow under load; the reveal's answer must not wait for it."""
    settings.REPORT_REFRESH_SECONDS = 60
    monkeypatch.setitem(app.conf, "task_always_eager", False)  # as in production
    cache.delete(f"report-refresh:{player.pk}")
    table = services.table_start(user=player, mode="solo")
    threads: list[str] = []
    with mock.patch.object(
        tasks.report_refresh_users,
        "apply_async",
        side_effect=lambda *a, **k: threads.append(threading.current_thread().name),
    ):
        with django_capture_on_commit_callbacks(execute=True):
            play(player, table, SPLIT_A, SPLIT_B)
        enqueue.wait()
    assert len(threads) == 1
    assert threads[0] != threading.current_thread().name
    assert threads[0].startswith("task-queue")


@pytest.fixture
def windowed(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """As in production: a worker, refreshes a window apart, batched."""
    settings.REPORT_REFRESH_SECONDS = 60
    settings.REPORT_REFRESH_BATCH_SECONDS = 0.05
    monkeypatch.setitem(app.conf, "task_always_eager", False)


def test_the_windowed_refreshes_a_process_asks_for_together_go_as_one_message(
    player: Any, friend: Any, play: Callable[..., Deal], rig: Callable[..., None],
    windowed: None, django_capture_on_commit_callbacks: Any,
) -> None:
    """A publish a player was 3.9% of a web process's time under load: the
    players of the reveals in one batch's seconds are one message."""
    for user in (player, friend):
        cache.delete(f"report-refresh:{user.pk}")
    solo = services.table_start(user=player, mode="solo")
    shared = friend_table(player, friend)
    with mock.patch.object(tasks.report_refresh_users, "apply_async") as queued, \
            mock.patch.object(tasks.report_refresh, "apply_async") as one_each:
        with django_capture_on_commit_callbacks(execute=True):
            play(player, solo, SPLIT_A, SPLIT_B)
            deal_friend(rig, shared, player, friend, COPY_A, COPY_B, stake=5)
            services.setting_lock(user=player, table_id=shared.pk, front=house_front(COPY_A))
            services.setting_lock(user=friend, table_id=shared.pk, front=house_front(COPY_B))
        enqueue.wait()
    assert [(c.args, c.kwargs) for c in queued.call_args_list] == [
        (((sorted([player.pk, friend.pk]),),), {"countdown": 61})
    ]
    assert one_each.call_args_list == []
    assert cache.get(f"report-refresh:{player.pk}") is True  # the window is open


def test_a_batch_goes_on_its_own_after_its_seconds_and_skips_open_windows(
    player: Any, friend: Any, windowed: None, django_capture_on_commit_callbacks: Any,
) -> None:
    cache.delete(f"report-refresh:{player.pk}")
    cache.set(f"report-refresh:{friend.pk}", True, timeout=60)  # marked by another process
    sent = threading.Event()
    with mock.patch.object(
        tasks.report_refresh_users, "apply_async", side_effect=lambda *a, **k: sent.set()
    ) as queued:
        with django_capture_on_commit_callbacks(execute=True):
            enqueue.report_refresh_later(user_ids=[player.pk, friend.pk])
        assert sent.wait(10), "the batch's timer never sent it"
    assert [c.args for c in queued.call_args_list] == [(([player.pk],),)]


def test_a_batch_of_refreshes_runs_each_player_s(
    player: Any, play: Callable[..., Deal],
) -> None:
    table = services.table_start(user=player, mode="solo")
    with mock.patch.object(tasks.report_refresh, "delay"):
        play(player, table, SPLIT_A, SPLIT_B)
    assert tasks.report_refresh_users.delay([player.pk, 987654]).get() == [True, False]
    assert PlayerReport.objects.get(user=player).hands == 1


def test_a_player_revealing_often_gets_one_refresh_a_window(
    player: Any, play: Callable[..., Deal], settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.REPORT_REFRESH_SECONDS = 60
    cache.delete(f"report-refresh:{player.pk}")
    table = services.table_start(user=player, mode="solo")
    with mock.patch.object(tasks.report_refresh, "apply_async") as queued:
        with django_capture_on_commit_callbacks(execute=True):
            for _ in range(3):
                play(player, table, SPLIT_A, SPLIT_B)
        enqueue.wait()
    # One rebuild, due after the window: it reads all three reveals.
    assert [(c.args, c.kwargs) for c in queued.call_args_list] == [
        (((player.pk,),), {"countdown": 61})
    ]
    report = reports.skill_report(user=player)  # meanwhile summed from the hands
    assert report["total"]["deals"] == 3
    cache.delete(f"report-refresh:{player.pk}")  # the window ends
    with mock.patch.object(tasks.report_refresh, "apply_async") as queued:
        with django_capture_on_commit_callbacks(execute=True):
            play(player, table, SPLIT_A, SPLIT_B)
        enqueue.wait()
    assert len(queued.call_args_list) == 1


# --- batching the per-hand tasks ----------------------------------------------------------


def test_hands_revealed_together_go_to_the_broker_as_one_message_a_task(
    player: Any, play: Callable[..., Deal], settings: Any,
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Publishing a task cost the web processes a tenth of their CPU when
    each hand had its own message; the hands of three reveals in one window
    travel together, off the answering thread."""
    settings.TASK_BATCH_SECONDS = 0.5
    monkeypatch.setitem(app.conf, "task_always_eager", False)  # as in production
    table = services.table_start(user=player, mode="solo")
    calls: list[tuple[list[int], str]] = []
    with mock.patch.object(
        tasks.decision_cost_hands, "delay",
        side_effect=lambda ids: calls.append((ids, threading.current_thread().name)),
    ), mock.patch.object(tasks.report_refresh, "apply_async"):
        with django_capture_on_commit_callbacks(execute=True):
            deals = [play(player, table, SPLIT_A, SPLIT_B) for _ in range(3)]
        enqueue.wait()
    player_hands = [Hand.objects.get(deal=d, seat_number=0).pk for d in deals]
    assert [ids for ids, _ in calls] == [player_hands]
    assert calls[0][1].startswith("task-queue")


def test_a_batch_after_the_window_is_a_message_of_its_own(
    player: Any, play: Callable[..., Deal], settings: Any,
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.TASK_BATCH_SECONDS = 0.05
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    table = services.table_start(user=player, mode="solo")
    with mock.patch.object(tasks.decision_cost_hands, "delay") as delay, mock.patch.object(
        tasks.report_refresh, "apply_async"
    ):
        for _ in range(2):
            with django_capture_on_commit_callbacks(execute=True):
                play(player, table, SPLIT_A, SPLIT_B)
            enqueue.wait()
    assert [len(c.args[0]) for c in delay.call_args_list] == [1, 1]


def test_a_broker_that_fails_a_batch_is_logged_and_the_next_batch_goes(
    player: Any, play: Callable[..., Deal], settings: Any, caplog: pytest.LogCaptureFixture,
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.TASK_BATCH_SECONDS = 0.01
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    table = services.table_start(user=player, mode="solo")
    outcomes = [OSError("broker down"), None]
    with mock.patch.object(
        tasks.decision_cost_hands, "delay", side_effect=outcomes
    ) as delay, mock.patch.object(tasks.report_refresh, "apply_async"):
        for _ in range(2):
            with django_capture_on_commit_callbacks(execute=True):
                play(player, table, SPLIT_A, SPLIT_B)
            enqueue.wait()
    assert delay.call_count == 2
    assert "queueing the decision cost of hands" in caplog.text
    assert "the beat sweep estimates them" in caplog.text


def test_the_batched_tasks_do_each_hands_work_once(
    player: Any, play: Callable[..., Deal], django_capture_on_commit_callbacks: Any,
) -> None:
    table = services.table_start(user=player, mode="solo")
    with (
        mock.patch.object(tasks.decision_cost_hands, "delay"),
        mock.patch.object(tasks.report_refresh, "apply_async"),
        mock.patch.object(tasks.report_refresh, "delay"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        deals = [play(player, table, SPLIT_A, SPLIT_B) for _ in range(2)]
    ids = [Hand.objects.get(deal=d, seat_number=0).pk for d in deals]
    with mock.patch.object(tasks.report_refresh, "delay"):
        assert tasks.decision_cost_hands.delay(ids).get() == ["exact", "exact"]
        assert tasks.decision_cost_hands.delay(ids).get() == [None, None]  # done already
    assert tasks.luck_verify_hands.delay(ids).get() == [None, None]  # no estimate to check
    assert not Hand.objects.filter(pk__in=ids, cost_method="").exists()


# --- the worker's priority ------------------------------------------------------------------


def test_a_worker_lowers_its_cpu_priority_as_it_starts() -> None:
    """The signal handler, in a process of its own (a process cannot raise
    its priority back)."""
    import subprocess
    import sys

    code = (
        "import os, django; django.setup();"
        "from games import tasks; before = os.nice(0); tasks._worker_nice();"
        "print(before, os.nice(0))"
    )
    for nice, expected in (("10", 10), ("0", 0)):
        out = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True,
            env={**os.environ, "DJANGO_SETTINGS_MODULE": "paigow_site.settings",
                 "WORKER_NICE": nice},
        ).stdout.split()
        before, after = map(int, out)
        assert after - before == expected
