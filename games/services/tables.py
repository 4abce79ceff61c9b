"""Writes of a table's play: opening it, stakes, deals, settings, the reveal.

Every public function here is a keyword-only ``<entity>_<action>`` and one
state transition (``transition``: one ``transaction.atomic`` block that first
locks the table row); given the ``opened`` table of a socket message, it runs
in that message's transaction instead. A transition that is not allowed now
raises a ``games.engine.errors.GameError`` and changes nothing. The rules
(house way, fouls, settlement, ledgers, skill, luck) come from
``games.engine`` only.

Seats are 0 and 1. Seat 0 is the player who opened the table; in solo seat 1
is the dealer (no user), who accepts any valid stake and whose house-way
setting is locked at deal time, so the player's lock reveals. With a friend,
seat 1 is taken through an invite link (``invites.invite_accept``), once.
"""

from __future__ import annotations

import secrets
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from .. import engine, sql, tasks
from ..engine.errors import (
    AlreadyLocked,
    AlreadyRevealed,
    DealInProgress,
    FoulNotConfirmed,
    GameError,
    InvalidSetting,
    InvalidStake,
    NoDeal,
    NoLastStake,
    NoStakeProposal,
    NotReadyToReveal,
    NotSeated,
    StakeChanged,
    StakeNotAgreed,
    StakeTooHigh,
    TableFinished,
    TableWaiting,
)
from ..models import Deal, Hand, LedgerEntry, Seat, Table
from .invites import invite_make
from .transition import OpenTable, join_cards, touch, transition

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


def _open_deal(held: OpenTable, deal_number: int | None = None) -> tuple[Deal, list[Hand]]:
    """The deal in progress (the latest, while it is not revealed) and its
    hands; ``deal_number``, when given, must be its number."""
    deal, hands = held.latest_deal()
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


def _check_stake(held: OpenTable, amount: object) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidStake()
    if amount < 1:
        raise InvalidStake("A stake is at least 1 chip.")
    limit = held.max_stake
    if amount > limit:
        raise StakeTooHigh(
            f"A stake of {amount} is more than the smaller stack: the most you can stake is "
            f"{limit}."
        )
    return amount


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
            invite_make(table, user)
    return table


# --- stakes -----------------------------------------------------------------


def stake_propose(
    *, user: Any, table_id: int, amount: object, opened: OpenTable | None = None
) -> Table:
    """Propose the next deal's stake. The solo dealer accepts at once; with a
    friend the proposal waits for the other seat (a new proposal replaces it)."""
    with transition(table_id, opened) as held:
        table = held.table
        seat = held.seat_of(user)
        _require_betting(table)
        stake = _check_stake(held, amount)
        if table.mode == Table.Mode.SOLO:
            table.stake, table.stake_proposed, table.stake_proposed_by = stake, None, None
            touch(table, "stake", "stake_proposed", "stake_proposed_by")
        else:
            _propose(table, seat, stake)
    return table


def _propose(table: Table, seat: Seat, stake: int) -> None:
    """``seat`` proposes ``stake`` (replacing any open proposal), under a new id:
    the version this change gives the table, so no two proposals share one."""
    table.stake, table.stake_proposed, table.stake_proposed_by = None, stake, seat.number
    table.stake_proposal = table.version + 1
    touch(table, "stake", "stake_proposed", "stake_proposed_by", "stake_proposal")


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


def stake_accept(
    *, user: Any, table_id: int, amount: int, proposal: int, opened: OpenTable | None = None
) -> Table:
    """Accept the other seat's proposed stake: the one the player saw, named by
    its ``amount`` and its ``proposal`` id. A proposal replaced in between (or
    gone) agrees nothing, and the refusal says the stake as it is now."""
    with transition(table_id, opened) as held:
        table = held.table
        seat = held.seat_of(user)
        _require_betting(table)
        offered = _proposal_of_other(table, seat)
        if offered is None or offered != amount or table.stake_proposal != proposal:
            raise _not_agreed(table, seat, amount, proposal)
        table.stake = _check_stake(held, offered)
        table.stake_proposed, table.stake_proposed_by = None, None
        touch(table, "stake", "stake_proposed", "stake_proposed_by")
    return table

# --- deals ------------------------------------------------------------------


def _new_deck() -> tuple[str, ...]:
    """A shuffled deck from the operating system's randomness (tests replace this)."""
    return engine.shuffle_deck(secrets.SystemRandom())


def _deal(held: OpenTable, stake: int) -> Deal:
    """Shuffle with ``secrets``, deal seven cards to each seat and keep the deck
    on the server. In solo, lock the dealer's house-way setting now."""
    table = held.table
    deck = _new_deck()
    secret = secrets.token_hex(32)
    number = table.deals_count + 1
    deal = Deal.objects.create(
        table=table,
        number=number,
        stake=stake,
        deck_order=join_cards(deck),
        secret=secret,
        commitment=engine.deck_commitment(deck, secret),
    )
    now = timezone.now()
    hands = []
    for seat, cards in zip(held.seats, engine.deal_hands(deck), strict=True):
        hand = Hand(deal=deal, seat=seat, seat_number=seat.number, cards=join_cards(cards))
        if seat.is_dealer:
            way = engine.house_way(cards).setting
            hand.front, hand.back = (
                join_cards(engine.sort_cards(way.front)),
                join_cards(engine.sort_cards(way.back)),
            )
            hand.locked_at = now
        hands.append(hand)
    Hand.objects.bulk_create(hands)
    held.latest = (deal, hands)
    table.status = Table.Status.PLAYING
    table.stake = None
    table.last_stake = stake
    table.deals_count = number
    touch(table, "status", "stake", "last_stake", "deals_count")
    return deal


def deal_start(*, user: Any, table_id: int, opened: OpenTable | None = None) -> Deal:
    """Deal at the agreed stake."""
    with transition(table_id, opened) as held:
        table = held.table
        held.seat_of(user)
        _require_betting(table)
        if table.stake is None:
            raise StakeNotAgreed()
        return _deal(held, _check_stake(held, table.stake))


def deal_rebet(
    *,
    user: Any,
    table_id: int,
    amount: int,
    proposal: int | None = None,
    opened: OpenTable | None = None,
) -> Table:
    """Bet the last stake again: ``amount``, the last stake the player saw (a
    different one now is refused). Solo: deal at once. With a friend: accept
    the other seat's proposal when it is of that amount and, when ``proposal``
    names one, is that proposal; otherwise propose the last stake. Either seat
    then deals."""
    with transition(table_id, opened) as held:
        table = held.table
        seat = held.seat_of(user)
        _require_betting(table)
        if table.last_stake is None:
            raise NoLastStake()
        if table.last_stake != amount:
            raise StakeChanged(
                f"The last stake is now {table.last_stake} chips, not {amount}, so nothing "
                f"was bet. Rebet {table.last_stake} or choose another stake."
            )
        stake = _check_stake(held, table.last_stake)
        if table.mode == Table.Mode.SOLO:
            _deal(held, stake)
            return table
        named = proposal is None or table.stake_proposal == proposal
        if _proposal_of_other(table, seat) == stake and named:
            table.stake, table.stake_proposed, table.stake_proposed_by = stake, None, None
            touch(table, "stake", "stake_proposed", "stake_proposed_by")
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
    opened: OpenTable | None = None,
) -> Hand:
    """Lock a side's setting for the deal in progress. ``back`` defaults to the
    five cards not in front. A foul is refused, with the engine's explanation,
    unless ``confirm_foul``. When this completes both sides, the deal is
    revealed and settled in the same transaction."""
    with transition(table_id, opened) as held:
        table = held.table
        seat = held.seat_of(user)
        deal, hands = _open_deal(held, deal_number)
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
        hand.front, hand.back = join_cards(front_cards), join_cards(back_cards)
        hand.locked_at = timezone.now()
        sql.save(hand, ["front", "back", "locked_at", "foul_confirmed"])
        if all(h.locked for h in hands):
            _reveal(held, deal, hands)
            hand = next(h for h in hands if h.seat_number == seat.number)
        else:
            touch(table)  # the other seat now sees this side locked
    return hand


def deal_reveal(*, table_id: int, opened: OpenTable | None = None) -> Deal:
    """Reveal and settle the deal in progress once both sides have locked."""
    with transition(table_id, opened) as held:
        deal, hands = _open_deal(held)
        if not all(h.locked for h in hands):
            raise NotReadyToReveal()
        _reveal(held, deal, hands)
    return deal


def _reveal(held: OpenTable, deal: Deal, hands: list[Hand]) -> None:
    """Settle once with the engine and write, per side, the parts, the result,
    the score, the house way and its row, decision skill and both ledgers."""
    if deal.status != Deal.Status.DEALT:
        raise AlreadyRevealed()
    table = held.table
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
    seats = {seat.number: seat for seat in held.seats}
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
        hand.house_front = join_cards(engine.sort_cards(way.setting.front))
        hand.house_back = join_cards(engine.sort_cards(way.setting.back))
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
    tasks.report_refresh_later(user_ids=[s.user_id for s in seats.values() if s.user_id])
    finished = min(seat.stack for seat in seats.values()) <= 0
    table.status = Table.Status.FINISHED if finished else Table.Status.BETTING
    table.stake, table.stake_proposed, table.stake_proposed_by = None, None, None
    touch(table, "status", "stake", "stake_proposed", "stake_proposed_by")
