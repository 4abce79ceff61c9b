"""Tables, seats, deals, each side's hand and both ledgers.

Models are thin: fields, database constraints and small properties. Every
write goes through ``games.services``; every read for pages and sockets
through ``games.selectors``. The rules live in ``games.engine``.
"""

from __future__ import annotations

import secrets
import uuid
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q

from .engine.choices import DEAL_STATUSES, LEDGERS, MODES, PARTS, RESULTS, TABLE_STATUSES
from .engine.cost import COST_METHODS, EXACT_OPPONENTS
from .engine.drills import DRILLS
from .engine.flow import STARTING_STACK


class Table(models.Model):
    class Mode(models.TextChoices):
        SOLO = "solo", "Solo"
        FRIEND = "friend", "Friend"

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for a friend"
        BETTING = "betting", "Agreeing a stake"
        PLAYING = "playing", "Deal in progress"
        FINISHED = "finished", "Finished"

    key = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    mode = models.CharField(max_length=8, choices=Mode.choices)
    status = models.CharField(max_length=8, choices=Status.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tables_created"
    )
    starting_stack = models.PositiveIntegerField(default=STARTING_STACK)
    # The stake both sides agreed for the next deal (consumed by the deal).
    stake = models.PositiveIntegerField(null=True, blank=True)
    # A stake one seat proposed and the other has not accepted yet (friend mode).
    stake_proposed = models.PositiveIntegerField(null=True, blank=True)
    stake_proposed_by = models.PositiveSmallIntegerField(null=True, blank=True)
    # The id of the latest proposal (the table's version when it was made): the
    # open one while ``stake_proposed`` is set. An accept names it, so a stake
    # re-proposed in between is never agreed by a click on the one before.
    stake_proposal = models.PositiveBigIntegerField(null=True, blank=True)
    # The stake of the latest deal, for "Rebet".
    last_stake = models.PositiveIntegerField(null=True, blank=True)
    deals_count = models.PositiveIntegerField(default=0)
    # Bumped by every change of what a seat may see (``services._touch``), in
    # the transaction that holds the table's lock: a socket drops a pushed
    # view older than the one it last sent (views can cross the channel layer
    # out of order).
    version = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-updated_at",)
        constraints = (
            models.CheckConstraint(condition=Q(mode__in=list(MODES)), name="table_mode_valid"),
            models.CheckConstraint(
                condition=Q(status__in=list(TABLE_STATUSES)), name="table_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(stake__isnull=True) | Q(stake__gte=1), name="table_stake_positive"
            ),
            models.CheckConstraint(
                condition=(Q(stake_proposed__isnull=True) & Q(stake_proposed_by__isnull=True))
                | (Q(stake_proposed__gte=1) & Q(stake_proposed_by__in=[0, 1])),
                name="table_proposal_complete",
            ),
            models.CheckConstraint(
                condition=Q(last_stake__isnull=True) | Q(last_stake__gte=1),
                name="table_last_stake_positive",
            ),
        )

    def __str__(self) -> str:
        return f"{self.get_mode_display()} table {self.pk}"

    @property
    def group_name(self) -> str:
        """The channel-layer group of this table's sockets (unique across databases)."""
        return f"table.{self.key.hex}"


class Seat(models.Model):
    """One side of a table: seat 0 is the creator; seat 1 the dealer (solo) or the friend."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="seats",
    )
    is_dealer = models.BooleanField(default=False)
    # The actual ledger's balance: the stack that limits stakes.
    stack = models.IntegerField(default=STARTING_STACK)
    # The "with 5%" what-if ledger's balance; never limits anything.
    balance_with_commission = models.DecimalField(
        max_digits=14, decimal_places=2, default=Decimal(STARTING_STACK)
    )
    # The session at this table so far (rules §8), kept up to date under the
    # table's lock so a state frame need not read every hand: revealed hands
    # and their decision skill, and the completed luck estimates with their
    # points (2 × wins + pushes of 120 samples each).
    session_hands = models.PositiveIntegerField(default=0)
    session_skill = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal(0))
    session_lucks = models.PositiveIntegerField(default=0)
    session_luck_points = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ("table_id", "number")
        constraints = (
            models.UniqueConstraint(fields=["table", "number"], name="seat_unique_number"),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=Q(user__isnull=False),
                name="seat_one_per_user_per_table",
            ),
            models.CheckConstraint(condition=Q(number__in=[0, 1]), name="seat_number_0_or_1"),
            models.CheckConstraint(condition=Q(stack__gte=0), name="seat_stack_not_negative"),
            models.CheckConstraint(
                condition=Q(is_dealer=False) | (Q(user__isnull=True) & Q(number=1)),
                name="seat_dealer_is_seat_1_without_user",
            ),
        )

    def __str__(self) -> str:
        return f"Seat {self.number} of table {self.table_id}"

    @property
    def name(self) -> str:
        if self.is_dealer:
            return "Dealer"
        return self.user.username if self.user else "Empty seat"


class Deal(models.Model):
    class Status(models.TextChoices):
        DEALT = "dealt", "Dealt"
        REVEALED = "revealed", "Revealed"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField()
    stake = models.PositiveIntegerField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.DEALT)
    # Server-only until the reveal: the shuffled deck and the secret.
    deck_order = models.TextField()
    secret = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64)
    dealt_at = models.DateTimeField(auto_now_add=True)
    revealed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("table_id", "number")
        constraints = (
            models.UniqueConstraint(fields=["table", "number"], name="deal_unique_number"),
            # At most one deal in progress per table.
            models.UniqueConstraint(
                fields=["table"], condition=Q(status="dealt"), name="deal_one_open_per_table"
            ),
            models.CheckConstraint(condition=Q(stake__gte=1), name="deal_stake_positive"),
            models.CheckConstraint(
                condition=Q(status__in=list(DEAL_STATUSES)), name="deal_status_valid"
            ),
            models.CheckConstraint(
                condition=(Q(status="dealt") & Q(revealed_at__isnull=True))
                | (Q(status="revealed") & Q(revealed_at__isnull=False)),
                name="deal_revealed_at_matches_status",
            ),
        )

    def __str__(self) -> str:
        return f"Deal {self.number} of table {self.table_id}"

    @property
    def revealed(self) -> bool:
        return self.status == self.Status.REVEALED

    @property
    def deck(self) -> tuple[str, ...]:
        return tuple(self.deck_order.split())


class Hand(models.Model):
    """One side of one deal: its seven cards, its locked setting and, after the
    reveal, its settlement. One row per side per deal, so one setting per side."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="hands")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="hands")
    seat_number = models.PositiveSmallIntegerField()
    cards = models.CharField(max_length=32)
    front = models.CharField(max_length=8, blank=True, default="")
    back = models.CharField(max_length=20, blank=True, default="")
    foul_confirmed = models.BooleanField(default=False)
    locked_at = models.DateTimeField(null=True, blank=True)
    # Settlement (written once, at the reveal).
    front_result = models.CharField(max_length=4, blank=True, default="")
    back_result = models.CharField(max_length=4, blank=True, default="")
    result = models.CharField(max_length=4, blank=True, default="")
    foul = models.BooleanField(null=True, blank=True)
    score = models.DecimalField(max_digits=3, decimal_places=2, null=True, blank=True)
    house_front = models.CharField(max_length=8, blank=True, default="")
    house_back = models.CharField(max_length=20, blank=True, default="")
    house_row = models.CharField(max_length=64, blank=True, default="")
    skill = models.DecimalField(max_digits=3, decimal_places=2, null=True, blank=True)
    # The on-device luck estimate (rules §6), recorded after the reveal.
    luck_wins = models.PositiveSmallIntegerField(null=True, blank=True)
    luck_pushes = models.PositiveSmallIntegerField(null=True, blank=True)
    luck_losses = models.PositiveSmallIntegerField(null=True, blank=True)
    luck = models.FloatField(null=True, blank=True)
    luck_low = models.FloatField(null=True, blank=True)
    luck_high = models.FloatField(null=True, blank=True)
    luck_label = models.CharField(max_length=40, blank=True, default="")
    # The decision's cost (the project's own measure, beside rules §7's skill):
    # the expected score the locked setting gives up against the best of the
    # 21 settings over the same opponents, written after the reveal by
    # ``services.hand_cost_record``: first "sampled" (the explorer's stream),
    # then "exact" (every opponent) once analysed, never the reverse.
    cost_loss = models.DecimalField(max_digits=10, decimal_places=9, null=True, blank=True)
    cost_at_best = models.BooleanField(null=True, blank=True)
    cost_best_front = models.CharField(max_length=8, blank=True, default="")
    cost_method = models.CharField(max_length=8, blank=True, default="")
    cost_opponents = models.PositiveIntegerField(null=True, blank=True)
    cost_at = models.DateTimeField(null=True, blank=True)
    # What the house way itself gives up against the best on the same hand
    # (best expected − the house way's), written with an exact cost only: it
    # sets the player's cost beside the house way's (/record/).
    cost_house_loss = models.DecimalField(max_digits=10, decimal_places=9, null=True, blank=True)

    class Meta:
        ordering = ("deal_id", "seat_number")
        constraints = (
            models.UniqueConstraint(fields=["deal", "seat_number"], name="hand_one_per_side"),
            models.UniqueConstraint(fields=["deal", "seat"], name="hand_one_per_seat"),
            models.CheckConstraint(condition=Q(seat_number__in=[0, 1]), name="hand_seat_0_or_1"),
            models.CheckConstraint(
                condition=(Q(front="") & Q(back="") & Q(locked_at__isnull=True))
                | (~Q(front="") & ~Q(back="") & Q(locked_at__isnull=False)),
                name="hand_setting_complete",
            ),
            models.CheckConstraint(
                condition=Q(result="") | Q(result__in=list(RESULTS)), name="hand_result_valid"
            ),
            models.CheckConstraint(
                condition=Q(front_result="") | Q(front_result__in=list(PARTS)),
                name="hand_front_result_valid",
            ),
            models.CheckConstraint(
                condition=Q(back_result="") | Q(back_result__in=list(PARTS)),
                name="hand_back_result_valid",
            ),
            models.CheckConstraint(
                condition=Q(result="") | ~Q(front=""), name="hand_settled_only_when_locked"
            ),
            models.CheckConstraint(
                condition=(
                    Q(luck_wins__isnull=True) & Q(luck_pushes__isnull=True)
                    & Q(luck_losses__isnull=True)
                )
                | Q(luck_wins__gte=0) & Q(luck_pushes__gte=0) & Q(luck_losses__gte=0)
                & ~Q(result=""),
                name="hand_luck_after_reveal",
            ),
            models.CheckConstraint(
                condition=(
                    Q(cost_method="") & Q(cost_loss__isnull=True) & Q(cost_at_best__isnull=True)
                    & Q(cost_best_front="") & Q(cost_opponents__isnull=True)
                    & Q(cost_at__isnull=True)
                )
                | (
                    Q(cost_method__in=list(COST_METHODS)) & Q(cost_loss__gte=0)
                    & Q(cost_loss__lte=1) & Q(cost_at_best__isnull=False)
                    & ~Q(cost_best_front="") & Q(cost_opponents__gte=1)
                    & Q(cost_at__isnull=False) & ~Q(result="")
                ),
                name="hand_cost_complete_after_reveal",
            ),
            # Exact: over every opponent, and at the best exactly when nothing is lost.
            models.CheckConstraint(
                condition=~Q(cost_method="exact")
                | (Q(cost_opponents=EXACT_OPPONENTS)
                   & ((Q(cost_at_best=True) & Q(cost_loss=0))
                      | (Q(cost_at_best=False) & Q(cost_loss__gt=0)))),
                name="hand_cost_exact_complete",
            ),
            models.CheckConstraint(
                condition=Q(cost_house_loss__isnull=True)
                | (Q(cost_method="exact") & Q(cost_house_loss__gte=0) & Q(cost_house_loss__lte=1)),
                name="hand_cost_house_loss_exact",
            ),
        )

    def __str__(self) -> str:
        return f"Seat {self.seat_number} of deal {self.deal_id}"

    @property
    def card_list(self) -> tuple[str, ...]:
        return tuple(self.cards.split())

    @property
    def front_cards(self) -> tuple[str, ...] | None:
        return tuple(self.front.split()) if self.front else None

    @property
    def back_cards(self) -> tuple[str, ...] | None:
        return tuple(self.back.split()) if self.back else None

    @property
    def locked(self) -> bool:
        return self.locked_at is not None


class LedgerEntry(models.Model):
    """One seat's chip movement on one deal, in one of the two ledgers."""

    class Ledger(models.TextChoices):
        ACTUAL = "actual", "Actual"
        WITH_COMMISSION = "with_5", "With 5%"

    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="ledger_entries")
    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="ledger_entries")
    ledger = models.CharField(max_length=8, choices=Ledger.choices)
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    balance = models.DecimalField(max_digits=14, decimal_places=2)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("deal_id", "seat_id", "ledger")
        constraints = (
            # Settlement exactly once: one entry per seat, deal and ledger.
            models.UniqueConstraint(
                fields=["deal", "seat", "ledger"], name="ledger_one_entry_per_deal_seat"
            ),
            models.CheckConstraint(
                condition=Q(ledger__in=list(LEDGERS)), name="ledger_kind_valid"
            ),
            models.CheckConstraint(
                condition=~Q(ledger="actual") | Q(balance__gte=0),
                name="ledger_actual_not_negative",
            ),
        )

    def __str__(self) -> str:
        return f"{self.ledger} {self.amount:+} for seat {self.seat_id} on deal {self.deal_id}"


class Invite(models.Model):
    """A link that seats one friend at a friend table, once.

    The token is stored as it is (256 random bits, ``secrets.token_urlsafe(32)``)
    behind a unique index, not as a hash: the host must be able to see the
    link again on every page load and reconnect, which a hash cannot give
    back. It is a short-lived (``INVITE_TTL_HOURS``), single-use bearer value
    worth one seat at a play-chip table, so it is kept like Django's own
    session keys and DRF's tokens, which are stored as they are too.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invites_created"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invites_used",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("table_id", "-created_at")
        constraints = (
            # At most one invite per table that is neither used nor revoked.
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(used_at__isnull=True) & Q(revoked_at__isnull=True),
                name="invite_one_open_per_table",
            ),
            models.CheckConstraint(
                condition=Q(used_at__isnull=True) | Q(revoked_at__isnull=True),
                name="invite_not_used_and_revoked",
            ),
            models.CheckConstraint(
                condition=Q(used_by__isnull=True) | Q(used_at__isnull=False),
                name="invite_used_by_only_when_used",
            ),
        )

    def __str__(self) -> str:
        return f"Invite {self.pk} to table {self.table_id}"


class Presence(models.Model):
    """One open table socket of one seat. A socket refreshes ``last_seen`` while
    it is open and deletes its row when it closes; rows left behind by a
    process that died age out (``PRESENCE_TTL_SECONDS``)."""

    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="presences")
    channel_name = models.CharField(max_length=200, unique=True)
    connected_at = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField()

    # No index on last_seen: every open socket rewrites it every 20 s, and an
    # indexed column would make each of those updates leave a dead index
    # entry (no HOT update). The seat's own index finds its one or two rows.

    def __str__(self) -> str:
        return f"{self.channel_name} at seat {self.seat_id}"


class ClientMessage(models.Model):
    """An action a seat's client sent with an ``id``, applied once: the row is
    written in the same transaction as the action, so a resend of the same id
    (after a lost reply, a reconnect or a server restart) is answered without
    applying it again. ``digest`` is the message's type and fields, so an id
    reused for a different message is refused."""

    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="client_messages")
    client_id = models.CharField(max_length=200)  # the id as JSON: "7" and 7 differ
    type = models.CharField(max_length=16)
    digest = models.CharField(max_length=64)
    # What the first answer was: "state" (the action was applied).
    reply = models.CharField(max_length=16, default="state")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["seat", "client_id"], name="client_message_once"),
        )
        # upkeep.client_messages_forget deletes the oldest first.
        indexes = (models.Index(fields=["created_at"], name="client_message_created"),)

    def __str__(self) -> str:
        return f"{self.type} {self.client_id} from seat {self.seat_id}"


# --- background work: report aggregates and the luck audit ------------------


class PlayerReport(models.Model):
    """A player's skill-report aggregates are current as of ``hands`` revealed
    hands (``games.reports.report_refresh`` rebuilds them after each reveal).
    ``games.reports.skill_report`` reads the buckets only while ``hands`` still
    equals the player's count of revealed hands, and sums rows otherwise."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="report"
    )
    hands = models.PositiveIntegerField(default=0)
    # What the buckets' decision costs cover: the hands with a cost, those
    # with an exact one and their losses' sum (a cost arrives after the
    # reveal, and an exact one replaces an estimate without a new hand).
    costed = models.PositiveIntegerField(default=0)
    costed_exact = models.PositiveIntegerField(default=0)
    cost_loss_sum = models.DecimalField(max_digits=18, decimal_places=9, default=Decimal(0))
    version = models.PositiveIntegerField(default=0)
    refreshed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Report of user {self.user_id} ({self.hands} hands)"


class ReportBucket(models.Model):
    """Decision skill of one player's revealed hands with one mode, house-way
    row and day (UTC): the skill report's totals, rows, modes and days add up
    from these."""

    report = models.ForeignKey(PlayerReport, on_delete=models.CASCADE, related_name="buckets")
    mode = models.CharField(max_length=8)
    row = models.CharField(max_length=64)
    day = models.DateField()
    deals = models.PositiveIntegerField()
    departures = models.PositiveIntegerField()
    skill_sum = models.DecimalField(max_digits=12, decimal_places=2)
    # Decision cost: hands with one (exact ones among them), how many set at
    # the best, their losses' sum.
    costed = models.PositiveIntegerField(default=0)
    exact = models.PositiveIntegerField(default=0)
    at_best = models.PositiveIntegerField(default=0)
    loss_sum = models.DecimalField(max_digits=18, decimal_places=9, default=Decimal(0))

    class Meta:
        ordering = ("report_id", "day", "mode", "row")
        constraints = (
            models.UniqueConstraint(
                fields=["report", "mode", "row", "day"], name="report_bucket_unique"
            ),
        )

    def __str__(self) -> str:
        return f"{self.mode} {self.row} {self.day}: {self.deals} deals"


class LuckAudit(models.Model):
    """One stored luck estimate re-derived on the server from the deterministic
    draw (rules §6) by ``games.services.upkeep.luck_audit_sample``; ``ok`` is false when
    the stored counts or the figures derived from them do not match."""

    hand = models.OneToOneField(Hand, on_delete=models.CASCADE, related_name="luck_audit")
    ok = models.BooleanField()
    reason = models.CharField(max_length=200, blank=True, default="")
    stored_wins = models.PositiveSmallIntegerField()
    stored_pushes = models.PositiveSmallIntegerField()
    stored_losses = models.PositiveSmallIntegerField()
    expected_wins = models.PositiveSmallIntegerField()
    expected_pushes = models.PositiveSmallIntegerField()
    expected_losses = models.PositiveSmallIntegerField()
    checked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-checked_at",)
        indexes = (models.Index(fields=["ok", "checked_at"], name="luck_audit_ok_checked"),)

    def __str__(self) -> str:
        return f"Luck audit of hand {self.hand_id}: {'ok' if self.ok else 'flagged'}"


class PracticeHand(models.Model):
    """One hand of the practice table: dealt with no stake and no ledger, set
    and locked by its player, then compared with the best setting.

    Never part of a table, the chip history or the skill report. ``expected``
    is the analysis of the 21 settings (their expected scores in the
    explorer's order, ``engine.practice``) over ``opponents`` opponents,
    ``exact`` when over all of them; it is written once, at the deal's
    background task or at the lock, whichever comes first. ``loss`` is the
    best setting's expected score minus the chosen one's."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="practice_hands"
    )
    drill = models.CharField(max_length=32, choices=list(DRILLS.items()))
    cards = models.CharField(max_length=32)
    dealt_at = models.DateTimeField(auto_now_add=True)
    house_front = models.CharField(max_length=8)
    house_row = models.CharField(max_length=64)
    # The analysis (filled once).
    expected = models.JSONField(null=True, blank=True)
    opponents = models.PositiveIntegerField(null=True, blank=True)
    exact = models.BooleanField(default=False)
    analysis_ms = models.PositiveIntegerField(null=True, blank=True)
    # The player's setting and what it gave up (written at the lock).
    front = models.CharField(max_length=8, blank=True, default="")
    locked_at = models.DateTimeField(null=True, blank=True)
    best_front = models.CharField(max_length=8, blank=True, default="")
    loss = models.FloatField(null=True, blank=True)
    at_best = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ("-dealt_at", "-id")
        indexes = (
            models.Index(fields=["player", "locked_at"], name="practice_player_locked"),
        )
        constraints = (
            models.CheckConstraint(
                condition=Q(drill__in=list(DRILLS)), name="practice_drill_valid"
            ),
            models.CheckConstraint(
                condition=(
                    Q(front="") & Q(locked_at__isnull=True) & Q(best_front="")
                    & Q(loss__isnull=True) & Q(at_best__isnull=True)
                )
                | (
                    ~Q(front="") & Q(locked_at__isnull=False) & ~Q(best_front="")
                    & Q(loss__gte=0) & Q(at_best__isnull=False) & Q(expected__isnull=False)
                ),
                name="practice_lock_complete",
            ),
            models.CheckConstraint(
                condition=(Q(expected__isnull=True) & Q(opponents__isnull=True))
                | (Q(expected__isnull=False) & Q(opponents__gte=1)),
                name="practice_analysis_complete",
            ),
        )

    def __str__(self) -> str:
        return f"Practice hand {self.pk} of {self.player_id}"

    @property
    def card_list(self) -> tuple[str, ...]:
        return tuple(self.cards.split())

    @property
    def locked(self) -> bool:
        return self.locked_at is not None


class ExactAnalysisCache(models.Model):
    """The exact analysis (``engine.exact``) of one suit class of hands, for a
    mode and side: ``key`` is ``engine.exact_key``, ``payload`` the class
    representative's ``ExactAnalysis.to_json()`` (a member hand's own is
    ``engine.exact_for``), ``seconds`` the CPU time it took. Written once
    (``services.analysis``); it never changes, since the rules do not."""

    key = models.CharField(max_length=80, unique=True)
    payload = models.JSONField()
    seconds = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Exact analysis {self.key}"


# --- the review deck ----------------------------------------------------------


class ReviewCard(models.Model):
    """One of a player's costly decisions in their review deck (Leitner boxes,
    ``games.services.review``): a revealed table hand (``hand``), a locked
    practice hand (``practice_hand``) or one of the hands a scored 100-hand
    test attempt gave up most on (``test_hand``), exactly one, whose exact
    cost was at least ``REVIEW_THRESHOLD``. ``cards``, ``mode``, ``front`` (the setting
    then) and ``cost`` are copied from it once, at entry, so the deck and its
    due count read this table alone; the seat is always a player's, so the
    analysis's side is "player". ``box`` runs 1 (new, or missed) to 5; the
    card is due from ``due``. ``last_front`` is the setting of the latest
    review and ``last_at_best`` whether it was at the best."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_cards"
    )
    hand = models.ForeignKey(
        Hand, on_delete=models.CASCADE, null=True, blank=True, related_name="review_cards"
    )
    practice_hand = models.ForeignKey(
        PracticeHand, on_delete=models.CASCADE, null=True, blank=True,
        related_name="review_cards",
    )
    test_hand = models.ForeignKey(
        "PracticeTestHand", on_delete=models.CASCADE, null=True, blank=True,
        related_name="review_cards",
    )
    cards = models.CharField(max_length=32)
    mode = models.CharField(max_length=8)
    front = models.CharField(max_length=8)
    cost = models.DecimalField(max_digits=10, decimal_places=9)
    box = models.PositiveSmallIntegerField(default=1)
    due = models.DateTimeField()
    last_reviewed_at = models.DateTimeField(null=True, blank=True)
    reviews = models.PositiveIntegerField(default=0)
    last_front = models.CharField(max_length=8, blank=True, default="")
    last_at_best = models.BooleanField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-cost", "id")
        # The header's due count on every page: one index range scan.
        indexes = (models.Index(fields=["user", "due"], name="review_card_user_due"),)
        constraints = (
            models.CheckConstraint(
                condition=(Q(hand__isnull=False) & Q(practice_hand__isnull=True)
                           & Q(test_hand__isnull=True))
                | (Q(hand__isnull=True) & Q(practice_hand__isnull=False)
                   & Q(test_hand__isnull=True))
                | (Q(hand__isnull=True) & Q(practice_hand__isnull=True)
                   & Q(test_hand__isnull=False)),
                name="review_card_one_source",
            ),
            models.UniqueConstraint(
                fields=["hand"], condition=Q(hand__isnull=False), name="review_card_one_per_hand"
            ),
            models.UniqueConstraint(
                fields=["practice_hand"], condition=Q(practice_hand__isnull=False),
                name="review_card_one_per_practice_hand",
            ),
            models.UniqueConstraint(
                fields=["test_hand"], condition=Q(test_hand__isnull=False),
                name="review_card_one_per_test_hand",
            ),
            models.CheckConstraint(condition=Q(box__gte=1) & Q(box__lte=5),
                                   name="review_card_box_1_to_5"),
            models.CheckConstraint(condition=Q(mode__in=list(MODES)), name="review_card_mode"),
            models.CheckConstraint(condition=Q(cost__gte=0) & Q(cost__lte=1),
                                   name="review_card_cost_0_to_1"),
            models.CheckConstraint(
                condition=(Q(reviews=0) & Q(last_reviewed_at__isnull=True) & Q(last_front="")
                           & Q(last_at_best__isnull=True))
                | (Q(reviews__gte=1) & Q(last_reviewed_at__isnull=False) & ~Q(last_front="")
                   & Q(last_at_best__isnull=False)),
                name="review_card_reviewed_complete",
            ),
        )

    def __str__(self) -> str:
        return f"Review card {self.pk} of {self.user_id} (box {self.box})"

    @property
    def card_list(self) -> tuple[str, ...]:
        return tuple(self.cards.split())


# ----------------------------------------------------------------- the 100-hand test

PRACTICE_TEST_STATUSES = {
    "playing": "Playing",  # hands still to lock
    "scoring": "Scoring",  # all locked; the exact analyses run on a worker
    "scored": "Scored",
}


def practice_test_token() -> str:
    """The shared result's unguessable address part (256 bits)."""
    return secrets.token_urlsafe(32)


class PracticeTest(models.Model):
    """One attempt at test ``number`` (``engine.test_hands``): its ``hands``
    hands set one after another, then scored by the exact analysis.

    At most one attempt per player and number is ``playing``; a finished one
    can be retaken as a new attempt. ``total_loss`` is what the player's
    settings gave up against the best of each hand's 21 settings, summed;
    ``house_loss`` the same for the house way's settings. ``share_token``
    addresses the shared result; ``show_name`` puts the username on it."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="practice_tests"
    )
    number = models.PositiveIntegerField()
    hands = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=8, choices=list(PRACTICE_TEST_STATUSES.items()),
                              default="playing")
    share_token = models.CharField(max_length=64, unique=True, default=practice_test_token)
    show_name = models.BooleanField(default=False)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    scored_at = models.DateTimeField(null=True, blank=True)
    total_loss = models.FloatField(null=True, blank=True)
    house_loss = models.FloatField(null=True, blank=True)
    at_best = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ("-started_at", "-id")
        constraints = (
            models.UniqueConstraint(
                fields=["player", "number"], condition=Q(status="playing"),
                name="practice_test_one_playing",
            ),
            models.CheckConstraint(
                condition=Q(status__in=list(PRACTICE_TEST_STATUSES)),
                name="practice_test_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(number__gte=1) & Q(hands__gte=1), name="practice_test_sizes"
            ),
        )

    def __str__(self) -> str:
        return f"Practice test {self.number} of {self.player_id} ({self.status})"


class PracticeTestHand(models.Model):
    """One hand of a test attempt: its cards (``engine.test_hands``, in the
    deck's order), the player's front once locked, and once scored what that
    setting gave up exactly (``loss``: the best setting's expected score minus
    the chosen one's over all C(46, 7) opponents, solo, the player's side),
    the best front and the house way's front and loss.

    The review deck reads the scored rows: ``cards``, ``front``, ``loss``,
    ``best_front``, ``house_front`` (and ``test.player``)."""

    test = models.ForeignKey(PracticeTest, on_delete=models.CASCADE, related_name="test_hands")
    position = models.PositiveSmallIntegerField()  # 1, 2, … in the test's order
    cards = models.CharField(max_length=32)
    house_front = models.CharField(max_length=8)
    house_row = models.CharField(max_length=64)
    front = models.CharField(max_length=8, blank=True, default="")
    locked_at = models.DateTimeField(null=True, blank=True)
    best_front = models.CharField(max_length=8, blank=True, default="")
    loss = models.FloatField(null=True, blank=True)
    house_loss = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ("test", "position")
        constraints = (
            models.UniqueConstraint(fields=["test", "position"], name="practice_test_hand_once"),
            models.CheckConstraint(
                condition=(Q(front="") & Q(locked_at__isnull=True))
                | (~Q(front="") & Q(locked_at__isnull=False)),
                name="practice_test_hand_lock_complete",
            ),
            models.CheckConstraint(
                condition=(Q(loss__isnull=True) & Q(best_front=""))
                | (Q(loss__gte=0) & ~Q(best_front="") & ~Q(front="")),
                name="practice_test_hand_score_complete",
            ),
        )

    def __str__(self) -> str:
        return f"Hand {self.position} of practice test attempt {self.test_id}"

    @property
    def card_list(self) -> tuple[str, ...]:
        return tuple(self.cards.split())
