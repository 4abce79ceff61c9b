"""Upkeep: the writes only the background does (Celery, ``games.tasks``),
never a request.

Keyword-only functions, each unit of work one ``transaction.atomic`` block.
Every one is idempotent: it claims its work with a conditional update (or a
unique row), so running it twice, or on two workers at once, has one effect;
a second run finds nothing to do.

- ``tables_close_idle``: finish tables nobody touched for ``TABLE_IDLE_HOURS``;
- ``invites_expire``: withdraw invite links past their expiry;
- ``luck_verify``: re-derive one luck estimate from the deterministic draw
  (rules §6) right after it is recorded (queued on commit by
  ``enqueue.luck_verify_later``), and flag it when it does not match;
- ``luck_audit_sample``: the same for a sample of stored estimates that were
  never checked (recorded before the check existed, or whose check was lost);
  ``luck_sweep`` every minute for the recent ones whose check was lost, so no
  revealed hand stays "checking";
- ``decision_cost_estimate``: cost exactly what a revealed hand's setting gave
  up against the best setting (queued on commit after each reveal by
  ``enqueue.decision_cost_later``); ``decision_costs_sweep`` does it for the
  hands whose task was never queued or was lost, and for earlier estimates;
- ``client_messages_forget``: delete the socket message ids kept against
  resends once they are older than ``CLIENT_MESSAGE_HOURS``.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from .. import engine, selectors
from ..models import (
    ClientMessage,
    Hand,
    Invite,
    LuckAudit,
    Table,
)
from ..realtime import broadcast
from . import costs, practice

log = logging.getLogger(__name__)

# A table that waits for a friend or for a stake can be closed; a deal in
# progress is never cut off (both players can always come back to it).
IDLE_STATUSES = (Table.Status.WAITING, Table.Status.BETTING)


# --- tables and invites -------------------------------------------------------


def tables_close_idle(*, now: Any = None) -> list[int]:
    """Finish every table waiting or betting with no change for
    ``TABLE_IDLE_HOURS``; withdraw its open invite link and tell its sockets.
    Returns the ids of the tables this call closed."""
    now = now or timezone.now()
    cutoff = now - timedelta(hours=settings.TABLE_IDLE_HOURS)
    candidates = list(
        Table.objects.filter(status__in=IDLE_STATUSES, updated_at__lt=cutoff)
        .order_by("pk")
        .values_list("pk", flat=True)[:500]
    )
    closed = []
    for table_id in candidates:
        with transaction.atomic():
            # The claim: only a table still idle is closed, once.
            claimed = Table.objects.filter(
                pk=table_id, status__in=IDLE_STATUSES, updated_at__lt=cutoff
            ).update(
                status=Table.Status.FINISHED, stake=None, stake_proposed=None,
                stake_proposed_by=None, version=F("version") + 1, updated_at=now,
            )
            if not claimed:
                continue
            Invite.objects.filter(
                table_id=table_id, used_at__isnull=True, revoked_at__isnull=True
            ).update(revoked_at=now)
            broadcast.table_changed(table=Table.objects.get(pk=table_id))
            closed.append(table_id)
    if closed:
        log.info("closed %d idle tables", len(closed))
    return closed


def invites_expire(*, now: Any = None) -> int:
    """Withdraw open invite links past their expiry (``revoked_at`` becomes the
    moment they stopped working). One conditional update; returns how many."""
    now = now or timezone.now()
    with transaction.atomic():
        return Invite.objects.filter(
            used_at__isnull=True, revoked_at__isnull=True, expires_at__lte=now
        ).update(revoked_at=F("expires_at"))


def client_messages_forget(*, now: Any = None, batch: int = 5000) -> int:
    """Delete the message ids (``ClientMessage``) older than
    ``CLIENT_MESSAGE_HOURS``, in batches of ``batch`` rows, each its own
    transaction so no lock is held long. A friend deal keeps seven; a resend
    only ever comes within a reconnect, and a reloaded page starts new ids, so
    an old id is never needed again. (A seat also keeps only its newest
    ``CLIENT_MESSAGES_PER_SEAT``: ``realtime.message_ids`` drops the
    rest as each new one is claimed, so this only ages out what is left.)
    Returns how many were deleted."""
    now = now or timezone.now()
    cutoff = now - timedelta(hours=settings.CLIENT_MESSAGE_HOURS)
    deleted = 0
    while True:
        with transaction.atomic():
            ids = list(
                ClientMessage.objects.filter(created_at__lt=cutoff)
                .order_by("created_at")
                .values_list("pk", flat=True)[:batch]
            )
            if not ids:
                break
            deleted += ClientMessage.objects.filter(pk__in=ids).delete()[0]
    if deleted:
        log.info("forgot %d client message ids", deleted)
    return deleted


# --- the luck audit -----------------------------------------------------------

# The most tables one transaction of the sample's checks locks.
AUDITS_AT_ONCE = 50


def _audit(hand: Hand) -> dict[str, Any]:
    mode = hand.deal.table.mode
    side = "dealer" if hand.seat.is_dealer else "player"
    expected = engine.luck(hand.cards, mode=mode, side=side, samples=engine.LUCK_SAMPLES)
    stored = (hand.luck_wins, hand.luck_pushes, hand.luck_losses)
    reasons = []
    if stored != (expected.wins, expected.pushes, expected.losses):
        reasons.append(
            f"stored counts {stored[0]}/{stored[1]}/{stored[2]} are not the draw's "
            f"{expected.wins}/{expected.pushes}/{expected.losses}"
        )
    else:
        derived = engine.luck_from_counts(wins=stored[0], pushes=stored[1], losses=stored[2])
        if (hand.luck, hand.luck_low, hand.luck_high, hand.luck_label) != (
            derived.luck, derived.low, derived.high, derived.label()
        ):
            reasons.append("stored luck, interval or label do not follow from the counts")
    return {
        "ok": not reasons,
        "reason": "; ".join(reasons)[:200],
        "stored_wins": stored[0], "stored_pushes": stored[1], "stored_losses": stored[2],
        "expected_wins": expected.wins, "expected_pushes": expected.pushes,
        "expected_losses": expected.losses,
    }


def _audits_save(checked: list[tuple[Hand, dict[str, Any]]]) -> set[int]:
    """Write each hand's ``LuckAudit`` row once (the unique row is the claim):
    the ids of the hands whose row this call wrote (not those already there).

    Under the lock of every table concerned, like every change of what a seat
    may see: a view that still showed an estimate as being checked was read
    in a transaction that committed before this one, so its version is at
    most the one the refresh below reads, and a socket drops it (a refresh is
    always sent). The tables are locked in id order, so two batches that
    share tables never deadlock; every audit row is written under its
    table's lock, so one that is not there now is not written meanwhile.
    One transaction and one round of pushes for a batch of hands
    (``luck_verify_many``): a statement and a Redis connection a hand were
    most of a check's cost (docs/benchmarks.md, eleventh round). The other
    seat's sockets are told after the commit; in solo the other seat is the
    dealer, who has none."""
    if not checked:
        return set()
    with transaction.atomic():
        table_ids = sorted({hand.deal.table_id for hand, _ in checked})
        locked = Table.objects.select_for_update().filter(pk__in=table_ids).order_by("pk")
        tables = {table.pk: table for table in locked}
        there = set(
            LuckAudit.objects.filter(hand_id__in=[hand.pk for hand, _ in checked])
            .values_list("hand_id", flat=True)
        )
        new = [(hand, result) for hand, result in checked if hand.pk not in there]
        LuckAudit.objects.bulk_create(LuckAudit(hand_id=hand.pk, **result) for hand, result in new)
        broadcast.luck_checked(
            checks=[
                _told(tables[hand.deal.table_id], hand, result)
                for hand, result in new
                if tables[hand.deal.table_id].mode == Table.Mode.FRIEND
            ]
        )
    for hand, result in new:
        if not result["ok"]:
            log.warning("luck estimate of hand %s flagged: %s", hand.pk, result["reason"])
    return {hand.pk for hand, _ in new}


def _told(table: Table, hand: Hand, result: dict[str, Any]) -> tuple[Table, int, dict[str, Any]]:
    """What the other seat's sockets are told of ``hand``'s check: what their
    view now shows of it, at the table's version under the check's lock (a
    check leaves the version alone)."""
    check = "passed" if result["ok"] else "flagged"
    shown = selectors.luck_shown(label=hand.luck_label, check=check)
    told = {"deal": hand.deal.number, "version": table.version, **shown}
    return table, 1 - hand.seat_number, told


def luck_verify_many(*, hand_ids: list[int]) -> list[str | None]:
    """Check the luck estimates just stored for some hands against the
    deterministic draw, and record each check (``LuckAudit``): for each id in
    turn "passed" or "flagged", or None when there is nothing to check (no
    estimate, no such hand, or already checked: a second run is a no-op).
    Until the check is written the other seat sees the estimate as being
    checked; a flagged one it never sees (``selectors``)."""
    hands = {
        hand.pk: hand
        for hand in Hand.objects.filter(
            pk__in=hand_ids, luck_wins__isnull=False, luck_audit__isnull=True
        ).select_related("deal__table", "seat")
    }
    # The draws run before the tables' locks are taken: a recorded estimate
    # never changes.
    checked = [(hand, _audit(hand)) for hand in hands.values()]
    written = _audits_save(checked)
    verdicts = {hand.pk: "passed" if result["ok"] else "flagged" for hand, result in checked}
    out: list[str | None] = []
    for hand_id in hand_ids:  # a repeated id gets its verdict once
        out.append(verdicts[hand_id] if hand_id in written else None)
        written.discard(hand_id)
    return out


def luck_verify(*, hand_id: int) -> str | None:
    """``luck_verify_many`` of one hand."""
    return luck_verify_many(hand_ids=[hand_id])[0]


def luck_audit_sample(*, size: int | None = None) -> dict[str, int]:
    """Re-derive up to ``size`` (``LUCK_AUDIT_SAMPLE``) stored luck estimates
    not checked yet, oldest first, from the deterministic draw; each gets one
    ``LuckAudit`` row (the unique row is the claim), as ``luck_verify`` gives
    it. Every estimate recorded now is checked at once (``luck_verify``): this
    catches the ones stored before, or whose check was never queued. Reads
    only the stored deal. Returns how many were checked and how many were
    flagged."""
    size = settings.LUCK_AUDIT_SAMPLE if size is None else size
    return _luck_check(_unchecked().order_by("pk")[:size])


def _unchecked() -> Any:
    """Hands with a stored luck estimate and no check yet."""
    return Hand.objects.filter(luck_wins__isnull=False, luck_audit__isnull=True).select_related(
        "deal__table", "seat"
    )


def luck_sweep(*, size: int | None = None, now: Any = None) -> dict[str, int]:
    """Check (as ``luck_verify`` does) up to ``size`` (``LUCK_AUDIT_SAMPLE``)
    stored estimates of hands revealed over ``LUCK_SWEEP_AFTER_SECONDS`` ago
    that have no check, newest first: those whose check was lost (a broker
    restarted without its queue, a message never queued) and that the other
    seat still sees as "checking". The beat runs it every
    ``LUCK_SWEEP_SECONDS``. Returns how many were checked and flagged."""
    size = settings.LUCK_AUDIT_SAMPLE if size is None else size
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.LUCK_SWEEP_AFTER_SECONDS)
    lost = _unchecked().filter(deal__revealed_at__lt=cutoff)
    return _luck_check(lost.order_by("-deal__revealed_at", "-pk")[:size])


def _luck_check(hands: Any) -> dict[str, int]:
    results = [(hand, _audit(hand)) for hand in hands]
    written: set[int] = set()
    for start in range(0, len(results), AUDITS_AT_ONCE):
        written |= _audits_save(results[start : start + AUDITS_AT_ONCE])
    flagged = sum(1 for hand, result in results if hand.pk in written and not result["ok"])
    return {"checked": len(written), "flagged": flagged}


# --- decision cost ------------------------------------------------------------


def decision_cost_estimate(*, hand_id: int) -> str | None:
    """Record one player's revealed hand's exact decision cost
    (``services.costs.hand_cost_exact``): "exact" when written, None when
    there is nothing to do. (The name is the task's: the estimate over a
    sample of opponents is gone now that the exact analysis costs less.)"""
    return "exact" if costs.hand_cost_exact(hand_id=hand_id) else None


def decision_costs_sweep(*, size: int | None = None) -> int:
    """Cost exactly up to ``size`` (``DECISION_COST_SWEEP``) players'
    revealed hands with no exact cost, those with none first, then oldest
    first (``services.costs.hand_costs_sweep``: a full batch queues the next).
    Returns how many this run recorded."""
    size = settings.DECISION_COST_SWEEP if size is None else size
    return costs.hand_costs_sweep(size=size)


def practice_cost_exact(*, hand_id: int) -> bool:
    """Make one locked practice hand's figures exact
    (``services.practice.practice_cost_exact``); False when there is nothing
    to do."""
    return practice.practice_cost_exact(hand_id=hand_id)


def practice_costs_sweep(*, size: int | None = None) -> int:
    """Make exact up to ``size`` (``DECISION_COST_SWEEP``) locked practice
    hands whose figures are an estimate, oldest first. Returns how many."""
    size = settings.DECISION_COST_SWEEP if size is None else size
    return practice.practice_costs_sweep(size=size)
