"""Writes: the one table state machine for both modes.

Every public function here is a keyword-only ``<entity>_<action>`` and one
state transition: one ``transaction.atomic`` block that first locks the table
row (``select_for_update``; ``_transition``). A transition that is not allowed now raises a
``games.engine.errors.GameError`` and changes nothing. The rules (house way,
fouls, settlement, ledgers, skill, luck) come from ``games.engine`` only.

Seats are 0 and 1. Seat 0 is the player who opened the table; in solo seat 1
is the dealer (no user), who accepts any valid stake and whose house-way
setting is locked at deal time, so the player's lock reveals. With a friend,
seat 1 is taken through an invite link (``invite_accept``), once.

Presence is the one exception to locking the table row: each open socket
owns one ``Presence`` row that only it writes, no rule depends on it, and a
heartbeat or a close must never wait behind a settlement. Only a socket's
connect takes the lock (``presence_connect``: which changes count it).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from . import engine, selectors, sql, upkeep
from .engine.errors import (
    AlreadyLocked,
    AlreadyRevealed,
    DealInProgress,
    FoulNotConfirmed,
    GameError,
    IdReused,
    InvalidLuck,
    InvalidSetting,
    InvalidStake,
    InviteExpired,
    InviteNotFound,
    InviteRevoked,
    InviteUsed,
    LuckAlreadyRecorded,
    NoDeal,
    NoLastStake,
    NoOpenInvite,
    NoStakeProposal,
    NotHost,
    NotReadyToReveal,
    NotRevealed,
    NotSeated,
    SeatTaken,
    StakeChanged,
    StakeNotAgreed,
    StakeTooHigh,
    TableFinished,
    TableFull,
    TableNotFound,
    TableWaiting,
    TooManySockets,
)
from .models import ClientMessage, Deal, Hand, Invite, LedgerEntry, Presence, Seat, Table

LUCK_SAMPLES = 120
_FLIP = {"win": "loss", "loss": "win", "copy": "copy"}
# What the reveal writes on each hand.
_REVEALED_FIELDS = (
    "front_result",
    "back_result",
    "result",
    "foul",
    "score",
    "house_front",
    "house_back",
    "house_row",
    "skill",
)


# --- helpers (called inside a transition, with the table row locked) ----------


def _lock_table(table_id: int) -> Table:
    """The table row, locked until the transaction ends (what
    ``select_for_update().get()`` does, written once: every message runs it)."""
    try:
        pk = int(table_id)
    except (TypeError, ValueError):
        raise TableNotFound() from None
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    tables = sql.rows(Table, "SELECT * FROM {table} WHERE id = %s" + lock, [pk])
    if not tables:
        raise TableNotFound()
    return tables[0]


@dataclass
class _Held:
    """What a socket message's transaction holds (``client_message_apply``):
    the locked table, its two seats read once under that lock, the sender's
    seat, and, once an action has read or made them, the latest deal and its
    hands as the action leaves them (the views reuse them)."""

    table: Table
    seats: tuple[Seat, Seat]
    seat: Seat
    latest: selectors.LatestDeal | None = None


_joined: ContextVar[_Held | None] = ContextVar("joined_transition", default=None)


@contextmanager
def _transition(table_id: int) -> Iterator[Table]:
    """One state transition: a transaction holding the table row's lock.

    Inside ``client_message_apply``, which already holds this table's lock in
    its own transaction, the transition joins it: the same ``Table`` and
    seats, without locking and reading them again or a savepoint (anything
    raised still rolls the whole message back, its id included). Four to six
    fewer queries a message.
    """
    joined = _joined.get()
    if joined is not None and joined.table.pk == table_id:
        yield joined.table
        return
    with transaction.atomic():
        yield _lock_table(table_id)


def _seats(table: Table) -> tuple[Seat, Seat]:
    joined = _joined.get()
    if joined is not None and joined.table is table:
        return joined.seats
    seats = list(Seat.objects.filter(table=table).order_by("number"))
    return seats[0], seats[1]


def _seat_of(table: Table, user: Any) -> Seat:
    if not getattr(user, "is_authenticated", False):
        raise NotSeated()
    joined = _joined.get()
    if joined is not None and joined.table is table and joined.seat.user_id == user.pk:
        return joined.seat
    seat = Seat.objects.filter(table=table, user_id=user.pk).first()
    if seat is None:
        raise NotSeated()
    return seat


def _latest(table: Table) -> selectors.LatestDeal:
    """The table's latest deal and its hands by seat; the objects an action
    changes, so the views of a socket message reuse them."""
    latest = selectors.latest_deal(table_id=table.pk)
    _keep_latest(table, latest)
    return latest


def _keep_latest(table: Table, latest: selectors.LatestDeal) -> None:
    joined = _joined.get()
    if joined is not None and joined.table is table:
        joined.latest = latest


def _open_deal(table: Table, deal_number: int | None = None) -> tuple[Deal, list[Hand]]:
    """The deal in progress (the latest, while it is not revealed) and its
    hands; ``deal_number``, when given, must be its number."""
    deal, hands = _latest(table)
    if deal is None or deal.revealed or deal_number not in (None, deal.number):
        if deal is not None and deal.revealed and deal_number in (None, deal.number):
            raise AlreadyRevealed()
        raise NoDeal()
    return deal, hands


def _require_betting(table: Table) -> None:
    if table.status == Table.Status.WAITING:
        raise TableWaiting()
    if table.status == Table.Status.FINISHED:
        raise TableFinished()
    if table.status == Table.Status.PLAYING:
        raise DealInProgress()


def _max_stake(table: Table) -> int:
    return min(seat.stack for seat in _seats(table))


def _check_stake(table: Table, amount: object) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidStake()
    if amount < 1:
        raise InvalidStake("A stake is at least 1 chip.")
    limit = _max_stake(table)
    if amount > limit:
        raise StakeTooHigh(
            f"A stake of {amount} is more than the smaller stack: the most you can stake is "
            f"{limit}."
        )
    return amount


def _join(cards: tuple[str, ...] | list[str]) -> str:
    return " ".join(cards)


def _touch(table: Table, *fields: str) -> None:
    """Save ``fields`` and mark the table changed: a new ``version`` orders the
    views the sockets push (``games.consumers``)."""
    table.version += 1
    sql.save(table, [*fields, "version", "updated_at"])


# --- tables -----------------------------------------------------------------


def table_start(*, user: Any, mode: str) -> Table:
    """Open a table with 1,000 chips on each side. In solo seat 1 is the dealer;
    with a friend seat 1 stays empty until they join, and the table's first
    invite link is made with it."""
    if mode not in Table.Mode.values:
        raise ValueError(f"“{mode}” is not a table mode: use solo or friend.")
    if not getattr(user, "is_authenticated", False):
        raise NotSeated("Sign in to open a table.")
    with transaction.atomic():
        solo = mode == Table.Mode.SOLO
        table = Table.objects.create(
            mode=mode,
            created_by=user,
            status=Table.Status.BETTING if solo else Table.Status.WAITING,
        )
        start = table.starting_stack
        Seat.objects.create(
            table=table, number=0, user=user, stack=start, balance_with_commission=start
        )
        Seat.objects.create(
            table=table, number=1, is_dealer=solo, stack=start, balance_with_commission=start
        )
        if not solo:
            _new_invite(table, user)
    return table


def _take_seat(table: Table, user: Any) -> None:
    """Seat ``user`` in the empty seat 1 of a friend table (table row locked)."""
    if table.mode != Table.Mode.FRIEND:
        raise TableFull("This is a solo table: its other seat is the dealer's.")
    if Seat.objects.filter(table=table, user_id=user.pk).exists():
        raise SeatTaken("You already have a seat at this table.")
    seat = Seat.objects.get(table=table, number=1)
    if seat.user_id is not None:
        raise TableFull()
    seat.user = user
    seat.save(update_fields=["user"])
    table.status = Table.Status.BETTING
    _touch(table, "status")


def table_join(*, user: Any, table_id: int) -> Table:
    """Take the empty seat 1 of a friend table. Players come through an invite
    (``invite_accept``); this is the seating step it uses."""
    with _transition(table_id) as table:
        _take_seat(table, user)
    return table


# --- invites ----------------------------------------------------------------

# What ``secrets.token_urlsafe`` makes (URL-safe base64), with room for other
# lengths. Anything else (a NUL, which PostgreSQL refuses in text, non-ASCII,
# an overlong value) is refused before it reaches the database.
INVITE_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")


def _new_invite(table: Table, user: Any) -> Invite:
    """Withdraw the table's open invite, if any, and make a new one."""
    now = timezone.now()
    Invite.objects.filter(table=table, used_at__isnull=True, revoked_at__isnull=True).update(
        revoked_at=now
    )
    return Invite.objects.create(
        table=table,
        token=secrets.token_urlsafe(32),  # 256 bits
        created_by=user,
        expires_at=now + timedelta(hours=settings.INVITE_TTL_HOURS),
    )


def _check_host(table: Table, user: Any) -> None:
    """Refuse unless ``user`` opened this friend table and its seat 1 is free."""
    seat = _seat_of(table, user)
    if seat.number != 0:
        raise NotHost()
    if table.mode != Table.Mode.FRIEND:
        raise TableFull("This is a solo table: its other seat is the dealer's.")
    if Seat.objects.filter(table=table, number=1, user__isnull=False).exists():
        raise TableFull("This table is full: your friend has already joined.")


def invite_create(*, user: Any, table_id: int) -> Invite:
    """A new invite link for the host's friend table; the previous open link
    stops working."""
    with _transition(table_id) as table:
        _check_host(table, user)
        invite = _new_invite(table, user)
        _touch(table)
    return invite


def invite_revoke(*, user: Any, table_id: int) -> Invite:
    """Withdraw the table's open invite link."""
    with _transition(table_id) as table:
        _check_host(table, user)
        invite = Invite.objects.filter(
            table=table, used_at__isnull=True, revoked_at__isnull=True
        ).first()
        if invite is None or invite.expires_at <= timezone.now():
            raise NoOpenInvite()
        invite.revoked_at = timezone.now()
        invite.save(update_fields=["revoked_at"])
        _touch(table)
    return invite


def invite_accept(*, user: Any, token: object) -> Table:
    """Seat ``user`` at the invite's table, once. The host, or the friend
    again, just gets the table back; anyone else finds it full."""
    if not getattr(user, "is_authenticated", False):
        raise NotSeated("Sign in or sign up to join your friend's table.")
    if not isinstance(token, str) or not INVITE_TOKEN.fullmatch(token):
        raise InviteNotFound()
    table_id = Invite.objects.filter(token=token).values_list("table_id", flat=True).first()
    if table_id is None:
        raise InviteNotFound()
    with _transition(table_id) as table:
        invite = Invite.objects.get(token=token)  # read again under the table's lock
        if Seat.objects.filter(table=table, user_id=user.pk).exists():
            return table
        if Seat.objects.filter(table=table, number=1, user__isnull=False).exists():
            raise TableFull()
        if invite.used_at is not None:
            raise InviteUsed()
        now = timezone.now()
        # Expiry first: a link the upkeep withdrew at its expiry still says "expired".
        if invite.expires_at <= now:
            raise InviteExpired()
        if invite.revoked_at is not None:
            raise InviteRevoked()
        _take_seat(table, user)
        invite.used_at, invite.used_by = now, user
        invite.save(update_fields=["used_at", "used_by"])
    return table


# --- presence ---------------------------------------------------------------


def presence_connect(*, table_id: int, seat_id: int, channel_name: str) -> None:
    """Count a newly opened socket of a seat; drop rows that aged out.
    ``TooManySockets`` (nothing written) when its user already has
    ``SOCKETS_PER_USER`` sockets counted, at any table.

    Under the table's lock, so it is ordered with the table's changes: a change
    either counts this socket among its seat's (and pushes it the new view,
    ``games.consumers``) or has committed before the socket's first read."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.PRESENCE_TTL_SECONDS)
    with transaction.atomic():
        _lock_table(table_id)
        Presence.objects.filter(seat_id=seat_id, last_seen__lt=stale).delete()
        _check_socket_count(seat_id, channel_name, stale)
        Presence.objects.update_or_create(
            channel_name=channel_name, defaults={"seat_id": seat_id, "last_seen": now}
        )


def _check_socket_count(seat_id: int, channel_name: str, stale: Any) -> None:
    """Refuse one more socket to a user who has ``SOCKETS_PER_USER`` open
    (250 on one seat slowed every other table's answers from 16 ms to 2.2 s).
    The user's row is locked, so connects to different tables are counted
    one after another too (the table lock orders only one table's)."""
    users = get_user_model().objects.select_for_update(
        **({"of": ("self",)} if connection.features.has_select_for_update_of else {})
    )
    user_id = users.filter(seats__pk=seat_id).values_list("pk", flat=True).first()
    if user_id is None:
        return
    open_now = (
        Presence.objects.filter(seat__user_id=user_id, last_seen__gte=stale)
        .exclude(channel_name=channel_name)
        .count()
    )
    if open_now >= settings.SOCKETS_PER_USER:
        raise TooManySockets()


def presence_heartbeat(*, seat_id: int, channel_name: str) -> None:
    """Keep an open socket counted (its row is made again if it was dropped)."""
    now = timezone.now()
    # One UPDATE in the usual case (every open socket beats every 20 s),
    # written once rather than compiled by the ORM each time.
    with connection.cursor() as cursor:
        cursor.execute(
            sql.statement("UPDATE {presence} SET last_seen = %s WHERE channel_name = %s"),
            [connection.ops.adapt_datetimefield_value(now), channel_name],
        )
        updated = cursor.rowcount
    if not updated:
        Presence.objects.update_or_create(
            channel_name=channel_name, defaults={"seat_id": seat_id, "last_seen": now}
        )


def presence_disconnect(*, channel_name: str) -> None:
    Presence.objects.filter(channel_name=channel_name).delete()


# --- stakes -----------------------------------------------------------------


def stake_propose(*, user: Any, table_id: int, amount: object) -> Table:
    """Propose the next deal's stake. The solo dealer accepts at once; with a
    friend the proposal waits for the other seat (a new proposal replaces it)."""
    with _transition(table_id) as table:
        seat = _seat_of(table, user)
        _require_betting(table)
        stake = _check_stake(table, amount)
        if table.mode == Table.Mode.SOLO:
            table.stake, table.stake_proposed, table.stake_proposed_by = stake, None, None
            _touch(table, "stake", "stake_proposed", "stake_proposed_by")
        else:
            _propose(table, seat, stake)
    return table


def _propose(table: Table, seat: Seat, stake: int) -> None:
    """``seat`` proposes ``stake`` (replacing any open proposal), under a new id:
    the version this change gives the table, so no two proposals share one."""
    table.stake, table.stake_proposed, table.stake_proposed_by = None, stake, seat.number
    table.stake_proposal = table.version + 1
    _touch(table, "stake", "stake_proposed", "stake_proposed_by", "stake_proposal")


def _proposal_of_other(table: Table, seat: Seat) -> int | None:
    """The amount the other seat proposes now, or None."""
    if table.stake_proposed is None or table.stake_proposed_by == seat.number:
        return None
    return table.stake_proposed


def _not_agreed(table: Table, seat: Seat, amount: int, proposal: int) -> GameError:
    """Why an accept of ``amount`` under id ``proposal``, not the other seat's
    open proposal, agrees nothing, saying the stake as it is now."""
    offered = _proposal_of_other(table, seat)
    if offered is not None:
        changed = (
            f"changed the stake to {offered} chips"
            if offered != amount
            else f"proposed the stake again (it is {offered} chips now)"
        )
        return StakeChanged(
            f"Your friend {changed} before you accepted, so nothing was agreed. "
            f"Accept {offered} or propose another stake."
        )
    if table.stake_proposed is not None and table.stake_proposal == proposal:
        return NoStakeProposal()  # one's own proposal
    if table.stake_proposed is not None:
        return StakeChanged(
            f"You have since proposed {table.stake_proposed} chips yourself, so nothing was "
            "agreed: wait for your friend to accept it, or propose another stake."
        )
    if table.stake is not None and table.stake != amount:
        return StakeChanged(
            f"The stake was agreed at {table.stake} chips before you accepted {amount}, so "
            f"your accept changed nothing. Deal at {table.stake} or propose another stake."
        )
    if table.stake is not None:
        return NoStakeProposal(
            f"The stake is already agreed at {table.stake} chips: deal, or propose another stake."
        )
    return NoStakeProposal()


def stake_accept(*, user: Any, table_id: int, amount: int, proposal: int) -> Table:
    """Accept the other seat's proposed stake: the one the player saw, named by
    its ``amount`` and its ``proposal`` id. A proposal replaced in between (or
    gone) agrees nothing, and the refusal says the stake as it is now."""
    with _transition(table_id) as table:
        seat = _seat_of(table, user)
        _require_betting(table)
        offered = _proposal_of_other(table, seat)
        if offered is None or offered != amount or table.stake_proposal != proposal:
            raise _not_agreed(table, seat, amount, proposal)
        table.stake = _check_stake(table, offered)
        table.stake_proposed, table.stake_proposed_by = None, None
        _touch(table, "stake", "stake_proposed", "stake_proposed_by")
    return table


# --- deals ------------------------------------------------------------------


def _new_deck() -> tuple[str, ...]:
    """A shuffled deck from the operating system's randomness (tests replace this)."""
    return engine.shuffle_deck(secrets.SystemRandom())


def _deal(table: Table, stake: int) -> Deal:
    """Shuffle with ``secrets``, deal seven cards to each seat and keep the deck
    on the server. In solo, lock the dealer's house-way setting now."""
    deck = _new_deck()
    secret = secrets.token_hex(32)
    number = table.deals_count + 1
    deal = Deal.objects.create(
        table=table,
        number=number,
        stake=stake,
        deck_order=_join(deck),
        secret=secret,
        commitment=engine.deck_commitment(deck, secret),
    )
    now = timezone.now()
    hands = []
    for seat, cards in zip(_seats(table), engine.deal_hands(deck), strict=True):
        hand = Hand(deal=deal, seat=seat, seat_number=seat.number, cards=_join(cards))
        if seat.is_dealer:
            way = engine.house_way(cards).setting
            hand.front, hand.back = (
                _join(engine.sort_cards(way.front)),
                _join(engine.sort_cards(way.back)),
            )
            hand.locked_at = now
        hands.append(hand)
    Hand.objects.bulk_create(hands)
    _keep_latest(table, (deal, hands))
    table.status = Table.Status.PLAYING
    table.stake = None
    table.last_stake = stake
    table.deals_count = number
    _touch(table, "status", "stake", "last_stake", "deals_count")
    return deal


def deal_start(*, user: Any, table_id: int) -> Deal:
    """Deal at the agreed stake."""
    with _transition(table_id) as table:
        _seat_of(table, user)
        _require_betting(table)
        if table.stake is None:
            raise StakeNotAgreed()
        return _deal(table, _check_stake(table, table.stake))


def deal_rebet(*, user: Any, table_id: int, amount: int, proposal: int | None = None) -> Table:
    """Bet the last stake again: ``amount``, the last stake the player saw (a
    different one now is refused). Solo: deal at once. With a friend: accept
    the other seat's proposal when it is of that amount and, when ``proposal``
    names one, is that proposal; otherwise propose the last stake. Either seat
    then deals."""
    with _transition(table_id) as table:
        seat = _seat_of(table, user)
        _require_betting(table)
        if table.last_stake is None:
            raise NoLastStake()
        if table.last_stake != amount:
            raise StakeChanged(
                f"The last stake is now {table.last_stake} chips, not {amount}, so nothing "
                f"was bet. Rebet {table.last_stake} or choose another stake."
            )
        stake = _check_stake(table, table.last_stake)
        if table.mode == Table.Mode.SOLO:
            _deal(table, stake)
            return table
        named = proposal is None or table.stake_proposal == proposal
        if _proposal_of_other(table, seat) == stake and named:
            table.stake, table.stake_proposed, table.stake_proposed_by = stake, None, None
            _touch(table, "stake", "stake_proposed", "stake_proposed_by")
        else:
            _propose(table, seat, stake)
    return table


# --- settings and the reveal ------------------------------------------------


def _parse_setting(
    hand: Hand, front: object, back: object | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    cards = hand.card_list
    try:
        front_cards = engine.parse_cards(front, count=2)  # type: ignore[arg-type]
        back_cards = (
            engine.sort_cards(c for c in cards if c not in front_cards)
            if back is None
            else engine.parse_cards(back, count=5)  # type: ignore[arg-type]
        )
    except engine.CardError as exc:
        raise InvalidSetting(str(exc)) from None
    except (TypeError, ValueError):
        raise InvalidSetting() from None
    strangers = [c for c in front_cards + back_cards if c not in cards]
    if strangers:
        names = ", ".join(engine.card_name(c) for c in strangers)
        raise InvalidSetting(f"That setting uses cards you were not dealt: {names}.")
    if len(set(front_cards) | set(back_cards)) != 7:
        raise InvalidSetting()
    return front_cards, back_cards


def setting_lock(
    *,
    user: Any,
    table_id: int,
    front: object,
    back: object | None = None,
    confirm_foul: bool = False,
    deal_number: int | None = None,
) -> Hand:
    """Lock a side's setting for the deal in progress. ``back`` defaults to the
    five cards not in front. A foul is refused, with the engine's explanation,
    unless ``confirm_foul``. When this completes both sides, the deal is
    revealed and settled in the same transaction."""
    with _transition(table_id) as table:
        seat = _seat_of(table, user)
        deal, hands = _open_deal(table, deal_number)
        hand = next(h for h in hands if h.seat_id == seat.pk)
        if hand.locked:
            raise AlreadyLocked()
        front_cards, back_cards = _parse_setting(hand, front, back)
        if engine.is_foul(front_cards, back_cards):
            if not confirm_foul:
                reason = engine.foul_reason(front_cards, back_cards) or "That setting is a foul."
                raise FoulNotConfirmed(
                    f"{reason} A foul loses: choose another setting, or lock anyway."
                )
            hand.foul_confirmed = True
        hand.front, hand.back = _join(front_cards), _join(back_cards)
        hand.locked_at = timezone.now()
        sql.save(hand, ["front", "back", "locked_at", "foul_confirmed"])
        if all(h.locked for h in hands):
            _reveal(table, deal, hands)
            hand = next(h for h in hands if h.seat_number == seat.number)
        else:
            _touch(table)  # the other seat now sees this side locked
    return hand


def deal_reveal(*, table_id: int) -> Deal:
    """Reveal and settle the deal in progress once both sides have locked."""
    with _transition(table_id) as table:
        deal, hands = _open_deal(table)
        if not all(h.locked for h in hands):
            raise NotReadyToReveal()
        _reveal(table, deal, hands)
    return deal


def _reveal(table: Table, deal: Deal, hands: list[Hand]) -> None:
    """Settle once with the engine and write, per side, the parts, the result,
    the score, the house way and its row, decision skill and both ledgers."""
    if deal.status != Deal.Status.DEALT:
        raise AlreadyRevealed()
    mode = table.mode
    first, second = hands
    settlement = engine.settle(
        mode=mode,
        front=first.front_cards,
        back=first.back_cards,
        other_front=second.front_cards,
        other_back=second.back_cards,
    )
    outcomes = {
        first.seat_number: (settlement.front, settlement.back, settlement.result, settlement.foul),
        second.seat_number: (
            _FLIP[settlement.front],
            _FLIP[settlement.back],
            engine.mirror_result(settlement.result),
            settlement.other_foul,
        ),
    }
    seats = {seat.number: seat for seat in _seats(table)}
    entries: list[LedgerEntry] = []
    for hand, other in ((first, second), (second, first)):
        seat = seats[hand.seat_number]
        front_part, back_part, result, foul = outcomes[hand.seat_number]
        way = engine.house_way(hand.card_list)
        side = "dealer" if seat.is_dealer else "player"
        hand.front_result, hand.back_result, hand.result, hand.foul = (
            front_part,
            back_part,
            result,
            foul,
        )
        hand.score = Decimal({"win": "1", "push": "0.5", "loss": "0"}[result])
        hand.house_front = _join(engine.sort_cards(way.setting.front))
        hand.house_back = _join(engine.sort_cards(way.setting.back))
        hand.house_row = way.row
        hand.skill = Decimal(
            str(
                engine.skill(
                    mode=mode,
                    cards=hand.card_list,
                    front=hand.front_cards,
                    back=hand.back_cards,
                    other_front=other.front_cards,
                    other_back=other.back_cards,
                    side=side,
                )
            )
        )
        sql.save(hand, _REVEALED_FIELDS)
        delta = engine.ledger_delta(result, deal.stake)
        seat.stack += delta.actual
        seat.balance_with_commission += delta.with_commission
        seat.session_hands += 1
        seat.session_skill += hand.skill
        sql.save(seat, ["stack", "balance_with_commission", "session_hands", "session_skill"])
        entries += [
            LedgerEntry(
                seat=seat,
                deal=deal,
                ledger=LedgerEntry.Ledger.ACTUAL,
                amount=Decimal(delta.actual),
                balance=Decimal(seat.stack),
            ),
            LedgerEntry(
                seat=seat,
                deal=deal,
                ledger=LedgerEntry.Ledger.WITH_COMMISSION,
                amount=delta.with_commission,
                balance=seat.balance_with_commission,
            ),
        ]
    LedgerEntry.objects.bulk_create(entries)
    deal.status = Deal.Status.REVEALED
    deal.revealed_at = timezone.now()
    sql.save(deal, ["status", "revealed_at"])
    # The skill-report aggregates catch up in the background once this commits.
    upkeep.report_refresh_later(user_ids=[s.user_id for s in seats.values() if s.user_id])
    finished = min(seat.stack for seat in seats.values()) <= 0
    table.status = Table.Status.FINISHED if finished else Table.Status.BETTING
    table.stake, table.stake_proposed, table.stake_proposed_by = None, None, None
    _touch(table, "status", "stake", "stake_proposed", "stake_proposed_by")


# --- luck -------------------------------------------------------------------


def luck_record(
    *, user: Any, table_id: int, deal_number: int, wins: object, pushes: object, losses: object
) -> Hand:
    """Store the luck estimate the player's device computed after the reveal
    (rules §6: 120 samples), once per hand. Once stored, it is checked off
    the room server against the deterministic draw (``games.luck_verify``,
    queued when this commits); the other seat sees it only once it passed."""
    counts = (wins, pushes, losses)
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts):
        raise InvalidLuck()
    if sum(counts) != LUCK_SAMPLES:  # type: ignore[arg-type]
        raise InvalidLuck(
            f"A luck estimate counts exactly {LUCK_SAMPLES} samples "
            f"(wins, pushes and losses add up to {sum(counts)})."  # type: ignore[arg-type]
        )
    with _transition(table_id) as table:
        seat = _seat_of(table, user)
        deal, hands = _latest(table)
        if deal is not None and deal.number == deal_number:
            hand = next((h for h in hands if h.seat_id == seat.pk), None)
        else:  # an earlier deal's estimate, sent late
            hand = Hand.objects.filter(
                deal__table=table, deal__number=deal_number, seat=seat
            ).first()
        if hand is None:
            raise NoDeal("There is no such deal at this table.")
        if not hand.result:
            raise NotRevealed()
        if hand.luck_wins is not None:
            raise LuckAlreadyRecorded()
        estimate = engine.luck_from_counts(wins=wins, pushes=pushes, losses=losses)  # type: ignore[arg-type]
        hand.luck_wins, hand.luck_pushes, hand.luck_losses = (
            estimate.wins,
            estimate.pushes,
            estimate.losses,
        )
        hand.luck, hand.luck_low, hand.luck_high = (
            float(estimate.luck),
            float(estimate.low),
            float(estimate.high),
        )
        hand.luck_label = estimate.label()
        seat.session_lucks += 1
        seat.session_luck_points += 2 * estimate.wins + estimate.pushes
        sql.save(seat, ["session_lucks", "session_luck_points"])
        sql.save(
            hand,
            [
                "luck_wins",
                "luck_pushes",
                "luck_losses",
                "luck",
                "luck_low",
                "luck_high",
                "luck_label",
            ],
        )
        _touch(table)
        upkeep.luck_verify_later(hand_id=hand.pk)
    return hand


# --- client message ids -----------------------------------------------------


def client_message_apply(
    *,
    user: Any,
    table_id: int,
    client_id: str | int,
    kind: str,
    fields: dict[str, Any],
    action: Callable[[], object],
    then: Callable[[Table, tuple[Seat, Seat], selectors.LatestDeal | None], object] | None = None,
) -> bool:
    """Apply a socket action once per seat and client ``id``: True when
    ``action`` (a transition above) ran now, False when this id was applied
    before (a resend: nothing runs again). The id is recorded in the same
    transaction as the action, so it commits with it or not at all, and
    survives restarts. An id reused for a different message is refused.
    ``then`` runs after the action, in its transaction, with the table, its
    seats and (when the action read or made them, else None) the latest deal
    and its hands, as the action left them: the socket reads the seats' views
    there."""
    key = json.dumps(client_id, ensure_ascii=False)
    digest = hashlib.sha256(
        json.dumps([kind, fields], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    with transaction.atomic():
        table = _lock_table(table_id)
        first, second = selectors.table_seats(table=table)
        seats = (first, second)
        seat = next((s for s in seats if s.user_id is not None and s.user_id == user.pk), None)
        if seat is None or not getattr(user, "is_authenticated", False):
            raise NotSeated()
        if not _message_id_claim(seat, key, kind, digest):
            seen = ClientMessage.objects.get(seat=seat, client_id=key)
            if seen.type != kind or seen.digest != digest:
                raise IdReused()
            return False
        held = _Held(table, seats, seat)
        joined = _joined.set(held)
        try:
            action()
        finally:
            _joined.reset(joined)
        if then is not None:
            then(table, seats, held.latest)
    return True


def _message_id_claim(seat: Seat, key: str, kind: str, digest: str) -> bool:
    """Record a message id for ``seat``: False when it was already recorded.
    One statement (the usual case is a new id); the caller's transaction
    undoes it if the action fails. Both backends support ON CONFLICT.

    A new id then pushes the seat's oldest out past its newest
    ``CLIENT_MESSAGES_PER_SEAT`` (``_message_ids_trim``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            sql.statement(
                "INSERT INTO {client_message} (seat_id, client_id, type, digest, reply,"
                " created_at) VALUES (%s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (seat_id, client_id) DO NOTHING RETURNING id"
            ),
            [
                seat.pk,
                key,
                kind,
                digest,
                ClientMessage._meta.get_field("reply").default,
                connection.ops.adapt_datetimefield_value(timezone.now()),
            ],
        )
        if cursor.fetchone() is None:
            return False
    _message_ids_trim(seat)
    return True


def _message_ids_trim(seat: Seat) -> None:
    """Keep only the seat's newest ``CLIENT_MESSAGES_PER_SEAT`` ids: a socket
    sending new ids as fast as it may would otherwise store rows without end
    (5,708 from one flood) until ``upkeep.client_messages_forget``. A resend
    comes within seconds, while the page has a handful of messages
    unanswered; only a seat that applied that many newer actions meanwhile
    could lose one. Ids grow with each claim and a seat's claims are ordered
    by the table lock, so the highest ids are the newest. One statement,
    which reads at most that many rows plus one."""
    with connection.cursor() as cursor:
        cursor.execute(
            sql.statement(
                "DELETE FROM {client_message} WHERE seat_id = %s AND id <= ("
                "SELECT id FROM {client_message} WHERE seat_id = %s"
                " ORDER BY id DESC LIMIT 1 OFFSET %s)"
            ),
            [seat.pk, seat.pk, settings.CLIENT_MESSAGES_PER_SEAT],
        )
