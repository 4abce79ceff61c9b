"""Writes of a table's play: opening it, stakes, deals, settings, the reveal.

Every public function here is a keyword-only ``<entity>_<action>`` and one
state transition (``transition``: one ``transaction.atomic`` block that first
locks the table row); given the ``opened`` table of a socket message, it runs
in that message's transaction instead. A transition that is not allowed now
raises a ``games.engine.errors.GameError`` and changes nothing. The rules
(house way, fouls, settlement, ledgers, skill, luck) come from
``games.engine`` only, and so do the flow's decisions (``engine.flow``): each
service loads the table's state, takes one step of the flow (which refuses,
or says the new state) and saves the fields that step changed.

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

from .. import engine, enqueue
from ..engine import flow
from ..engine.errors import DealInProgress, FoulNotConfirmed, InvalidSetting, NotSeated
from ..models import Deal, Hand, Invite, LedgerEntry, Seat, Table
from .invites import invite_make
from .transition import (
    OpenTable,
    flow_save,
    flow_state,
    flow_step,
    join_cards,
    touch,
    transition,
)

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


# --- load, one step of the flow, save (inside a transition) -------------------


def _locked(held: OpenTable) -> tuple[bool, bool]:
    """Which sides of the deal in progress have locked (read only while one is)."""
    if held.table.status != Table.Status.PLAYING:
        return False, False
    _, hands = held.latest_deal()
    first, second = (hand.locked_at is not None for hand in hands)
    return first, second


def _open_deal(held: OpenTable) -> tuple[Deal, list[Hand]]:
    """The deal in progress and its hands (the flow has checked there is one)."""
    deal, hands = held.latest_deal()
    assert deal is not None
    assert not deal.revealed
    return deal, hands


# --- tables -----------------------------------------------------------------


def table_start(*, user: Any, mode: str) -> Table:
    """Open a table with 1,000 chips on each side. In solo seat 1 is the dealer;
    with a friend seat 1 stays empty until they join, and the table's first
    invite link is made with it."""
    state = flow.start(mode)
    if not getattr(user, "is_authenticated", False):
        raise NotSeated("Sign in to open a table.")
    with transaction.atomic():
        table = Table.objects.create(mode=state.mode, created_by=user, status=state.status)
        for number, chips in enumerate(state.seats):
            Seat.objects.create(
                table=table,
                number=number,
                user=None if number else user,
                is_dealer=chips.dealer,
                stack=chips.stack,
                balance_with_commission=chips.with_commission,
            )
        if state.mode == "friend":
            invite_make(table, user)
    return table


def table_close(*, user: Any, table_id: int, opened: OpenTable | None = None) -> Table:
    """Finish the table for both seats at a seated player's word: close a
    friend table still waiting for its friend (its invite link stops
    working), or leave a table between deals. A stake proposed or agreed for
    the next deal is dropped; no chips move: each seat's stack and ledger stay
    as the last reveal left them (the history shows them). A deal in progress
    is never cut off (``DealInProgress``: it is finished first, as the idle
    upkeep leaves it too). A table already finished is returned unchanged, so
    a second press, or both players at once, finish it once. The caller tells
    the table's sockets (``broadcast.table_changed``) once this commits."""
    with transition(table_id, opened) as held:
        held.seat_of(user)
        table = held.table
        if table.status == Table.Status.FINISHED:
            return table
        if table.status == Table.Status.PLAYING:
            raise DealInProgress(
                f"Deal {table.deals_count} is in progress: finish it first (lock your "
                "setting; the reveal settles it), then leave the table."
            )
        # The status the idle upkeep closes tables with (``upkeep.tables_close_idle``).
        table.status = Table.Status.FINISHED
        table.stake = table.stake_proposed = table.stake_proposed_by = None
        table.stake_proposal = None
        Invite.objects.filter(table=table, used_at__isnull=True, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        touch(held, "status", "stake", "stake_proposed", "stake_proposed_by", "stake_proposal")
    return table


# --- stakes -----------------------------------------------------------------


def stake_propose(
    *, user: Any, table_id: int, amount: object, opened: OpenTable | None = None
) -> Table:
    """Propose the next deal's stake. The solo dealer accepts at once; with a
    friend the proposal waits for the other seat (a new proposal replaces it)."""
    with transition(table_id, opened) as held:
        seat = held.seat_of(user)
        flow_step(held, lambda state: flow.propose(state, seat.number, amount))
    return held.table


def stake_accept(
    *, user: Any, table_id: int, amount: int, proposal: int, opened: OpenTable | None = None
) -> Table:
    """Accept the other seat's proposed stake: the one the player saw, named by
    its ``amount`` and its ``proposal`` id. A proposal replaced in between (or
    gone) agrees nothing, and the refusal says the stake as it is now."""
    with transition(table_id, opened) as held:
        seat = held.seat_of(user)
        flow_step(
            held, lambda state: flow.accept(state, seat.number, amount=amount, proposal=proposal)
        )
    return held.table


# --- deals ------------------------------------------------------------------


def _new_deck() -> tuple[str, ...]:
    """A shuffled deck from the operating system's randomness (tests replace this)."""
    return engine.shuffle_deck(secrets.SystemRandom())


def _deal(held: OpenTable, dealt: flow.TableState) -> Deal:
    """The cards of the deal the flow just opened (``dealt``: its number and
    stake): shuffle with ``secrets``, deal seven cards to each seat and keep
    the deck on the server. In solo, lock the dealer's house-way setting now."""
    table = held.table
    deck = _new_deck()
    secret = secrets.token_hex(32)
    assert dealt.last_stake is not None
    deal = Deal(
        table=table,
        number=dealt.deals_count,
        stake=dealt.last_stake,
        deck_order=join_cards(deck),
        secret=secret,
        commitment=engine.deck_commitment(deck, secret),
    )
    deal.save()
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
    return deal


def deal_start(*, user: Any, table_id: int, opened: OpenTable | None = None) -> Deal:
    """Deal at the agreed stake."""
    with transition(table_id, opened) as held:
        seat = held.seat_of(user)
        return _deal(held, flow_step(held, lambda state: flow.deal(state, seat.number)))


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
        seat = held.seat_of(user)
        after = flow_step(
            held, lambda state: flow.rebet(state, seat.number, amount=amount, proposal=proposal)
        )
        if after.status == "playing":  # solo: dealt at once
            _deal(held, after)
    return held.table


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
        seat = held.seat_of(user)
        before = flow_state(held, _locked(held))
        after = flow.lock(before, seat.number, deal_number=deal_number)
        deal, hands = _open_deal(held)
        hand = hands[seat.number]
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
        held.save(hand, ["front", "back", "locked_at", "foul_confirmed"])
        if after.reveal_due:
            _reveal(held, deal, hands, after)
        else:
            flow_save(held, before, after)  # the other seat now sees this side locked
    return hand


def deal_reveal(*, table_id: int, opened: OpenTable | None = None) -> Deal:
    """Reveal and settle the deal in progress once both sides have locked."""
    with transition(table_id, opened) as held:
        state = flow_state(held, _locked(held))
        flow.check_reveal(state)
        deal, hands = _open_deal(held)
        _reveal(held, deal, hands, state)
    return deal


def _reveal(held: OpenTable, deal: Deal, hands: list[Hand], state: flow.TableState) -> None:
    """Settle once with the engine and write, per side, the parts, the result,
    the score, the house way and its row, decision skill and both ledgers
    (``state``: the table with both sides locked; the flow moves the chips)."""
    table = held.table
    mode = table.mode
    first, second = hands
    settlement = engine.settle(
        mode=mode,
        front=first.front,
        back=first.back,
        other_front=second.front,
        other_back=second.back,
    )
    outcomes = (settlement, settlement.mirror())  # by seat number, as the hands are
    after = flow.reveal(state, (settlement.result, outcomes[1].result))
    for hand, other, outcome in ((first, second, outcomes[0]), (second, first, outcomes[1])):
        seat = held.seats[hand.seat_number]
        way = engine.house_way(hand.card_list)
        side = "dealer" if seat.is_dealer else "player"
        hand.front_result, hand.back_result, hand.result, hand.foul = (
            outcome.front,
            outcome.back,
            outcome.result,
            outcome.foul,
        )
        hand.score = Decimal(engine.SCORES[outcome.result])
        hand.house_front = join_cards(engine.sort_cards(way.setting.front))
        hand.house_back = join_cards(engine.sort_cards(way.setting.back))
        hand.house_row = way.row
        hand.skill = Decimal(
            str(
                engine.skill(
                    mode=mode,
                    cards=hand.card_list,
                    front=hand.front,
                    back=hand.back,
                    other_front=other.front,
                    other_back=other.back,
                    side=side,
                )
            )
        )
        held.save(hand, _REVEALED_FIELDS)
        was, chips = state.seats[hand.seat_number], after.seats[hand.seat_number]
        seat.stack, seat.balance_with_commission = chips.stack, chips.with_commission
        seat.session_hands += 1
        seat.session_skill += hand.skill
        held.save(seat, ["stack", "balance_with_commission", "session_hands", "session_skill"])
        for entry in (
            LedgerEntry(
                seat=seat,
                deal=deal,
                ledger=LedgerEntry.Ledger.ACTUAL,
                amount=Decimal(chips.stack - was.stack),
                balance=Decimal(seat.stack),
            ),
            LedgerEntry(
                seat=seat,
                deal=deal,
                ledger=LedgerEntry.Ledger.WITH_COMMISSION,
                amount=chips.with_commission - was.with_commission,
                balance=seat.balance_with_commission,
            ),
        ):
            held.updates.add(entry)  # written with the saves (services.updates)
    deal.status = Deal.Status.REVEALED
    deal.revealed_at = timezone.now()
    held.save(deal, ["status", "revealed_at"])
    # The skill-report aggregates catch up in the background once this commits.
    enqueue.report_refresh_later(user_ids=[s.user_id for s in held.seats if s.user_id])
    # Each player's decision cost is estimated off the socket's path.
    enqueue.decision_cost_later(
        hand_ids=[h.pk for h in hands if held.seats[h.seat_number].user_id is not None]
    )
    flow_save(held, state, after)
