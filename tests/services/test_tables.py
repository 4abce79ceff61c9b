"""The table state machine (games.services) on every path, solo and friend."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from accounts.models import User
from games import engine, selectors, services
from games.engine import errors as exceptions
from games.models import Deal, Hand, LedgerEntry, Seat, Table
from tests.support import (
    COPY_A,
    COPY_B,
    SPLIT_A,
    SPLIT_B,
    STRONG,
    WEAK,
    accept_seen,
    deck_with,
    house_front,
    rebet_seen,
)

pytestmark = pytest.mark.django_db

Rig = Callable[..., None]


def solo(player: User, stake: int = 20) -> Table:
    table = services.table_start(user=player, mode="solo")
    services.stake_propose(user=player, table_id=table.pk, amount=stake)
    return table


def snapshot(table: Table) -> tuple[object, ...]:
    """Everything a refused action must leave alone."""
    table.refresh_from_db()
    return (
        table.status, table.stake, table.stake_proposed, table.stake_proposed_by,
        table.last_stake, table.deals_count,
        tuple(Seat.objects.filter(table=table).values_list("stack", "balance_with_commission")),
        tuple(Deal.objects.filter(table=table).values_list("status", "number")),
        tuple(Hand.objects.filter(deal__table=table).values_list("front", "back", "result")),
        LedgerEntry.objects.filter(deal__table=table).count(),
    )


def refused(
    table: Table, error: type[exceptions.GameError], action: Callable[[], object]
) -> exceptions.GameError:
    before = snapshot(table)
    with pytest.raises(error) as caught:
        action()
    assert snapshot(table) == before
    assert caught.value.detail.endswith(".")
    return caught.value


def seats(table: Table) -> tuple[Seat, Seat]:
    found = list(Seat.objects.filter(table=table).order_by("number"))
    return found[0], found[1]


# --- starting a table -----------------------------------------------------------


def test_a_solo_table_starts_with_1000_chips_each_and_the_dealer_in_seat_1(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    you, dealer = seats(table)
    assert (you.user, you.stack, you.balance_with_commission) == (player, 1000, Decimal(1000))
    assert (dealer.user, dealer.is_dealer, dealer.stack) == (None, True, 1000)
    assert dealer.balance_with_commission == Decimal(1000)
    assert table.status == Table.Status.BETTING


def test_a_friend_table_waits_for_the_friend_then_takes_stakes(
    player: User, friend: User
) -> None:
    table = services.table_start(user=player, mode="friend")
    assert table.status == Table.Status.WAITING
    refused(table, exceptions.TableWaiting,
            lambda: services.stake_propose(user=player, table_id=table.pk, amount=5))
    services.table_join(user=friend, table_id=table.pk)
    table.refresh_from_db()
    assert table.status == Table.Status.BETTING
    assert seats(table)[1].user == friend


def test_it_refuses_a_third_person_at_a_friend_table(
    player: User, friend: User, make_user: Callable[[str], User]
) -> None:
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    refused(table, exceptions.SeatTaken,
            lambda: services.table_join(user=make_user("eve"), table_id=table.pk))
    refused(table, exceptions.SeatTaken,
            lambda: services.table_join(user=player, table_id=table.pk))


def test_it_refuses_anyone_to_join_a_solo_table(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="solo")
    refused(table, exceptions.SeatTaken,
            lambda: services.table_join(user=friend, table_id=table.pk))


# --- stakes -------------------------------------------------------------------------


def test_the_solo_dealer_accepts_any_valid_stake_at_once(player: User) -> None:
    table = solo(player, stake=1000)
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed) == (1000, None)


def test_it_refuses_a_stake_over_the_smaller_stack(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    error = refused(table, exceptions.StakeTooHigh,
                    lambda: services.stake_propose(user=player, table_id=table.pk, amount=1001))
    assert "1000" in error.detail


@pytest.mark.parametrize("amount", [0, -5, 2.5, "20", True, None])
def test_it_refuses_a_stake_that_is_not_a_whole_positive_number(
    player: User, amount: object
) -> None:
    table = services.table_start(user=player, mode="solo")
    refused(table, exceptions.InvalidStake,
            lambda: services.stake_propose(user=player, table_id=table.pk, amount=amount))


def test_with_a_friend_the_other_seat_must_accept_the_stake(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    services.stake_propose(user=player, table_id=table.pk, amount=30)
    refused(table, exceptions.StakeNotAgreed,
            lambda: services.deal_start(user=player, table_id=table.pk))
    refused(table, exceptions.NoStakeProposal, lambda: accept_seen(player, table.pk))
    accept_seen(friend, table.pk)
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed, table.stake_proposed_by) == (30, None, None)


def test_a_counter_proposal_replaces_the_first(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    services.stake_propose(user=player, table_id=table.pk, amount=30)
    services.stake_propose(user=friend, table_id=table.pk, amount=10)
    accept_seen(player, table.pk)
    table.refresh_from_db()
    assert table.stake == 10


def test_it_refuses_someone_without_a_seat(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="solo")
    refused(table, exceptions.NotSeated,
            lambda: services.stake_propose(user=friend, table_id=table.pk, amount=5))


def test_it_refuses_a_table_that_does_not_exist(player: User) -> None:
    with pytest.raises(exceptions.TableNotFound):
        services.stake_propose(user=player, table_id=987654, amount=5)


# --- dealing ------------------------------------------------------------------------


def test_it_refuses_to_deal_without_a_stake(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    refused(table, exceptions.StakeNotAgreed,
            lambda: services.deal_start(user=player, table_id=table.pk))


def test_a_deal_gives_seven_cards_each_from_a_committed_deck(player: User) -> None:
    table = solo(player)
    deal = services.deal_start(user=player, table_id=table.pk)
    hands = list(Hand.objects.filter(deal=deal).order_by("seat_number"))
    cards = [c for h in hands for c in h.card_list]
    assert len(hands) == 2
    assert len(cards) == 14
    assert len(set(cards)) == 14
    assert engine.verify_shuffle(deal.deck, deal.secret, deal.commitment)
    assert (hands[0].card_list, hands[1].card_list) == engine.deal_hands(deal.deck)
    assert len(deal.secret) == 64
    table.refresh_from_db()
    assert (table.status, table.stake, table.last_stake, table.deals_count) == (
        Table.Status.PLAYING, None, 20, 1)


def test_the_solo_dealer_sets_by_the_house_way_at_deal_time(player: User, rig: Rig) -> None:
    rig(deck_with(WEAK, STRONG))
    table = solo(player)
    deal = services.deal_start(user=player, table_id=table.pk)
    dealer = Hand.objects.get(deal=deal, seat_number=1)
    way = engine.house_way(STRONG).setting
    assert dealer.locked
    assert set(dealer.front_cards or ()) == set(way.front)
    assert set(dealer.back_cards or ()) == set(way.back)
    assert not Hand.objects.get(deal=deal, seat_number=0).locked


def test_it_refuses_a_second_deal_or_a_new_stake_while_one_is_in_progress(player: User) -> None:
    table = solo(player)
    services.deal_start(user=player, table_id=table.pk)
    refused(table, exceptions.DealInProgress,
            lambda: services.deal_start(user=player, table_id=table.pk))
    refused(table, exceptions.DealInProgress,
            lambda: services.stake_propose(user=player, table_id=table.pk, amount=5))
    refused(table, exceptions.DealInProgress,
            lambda: services.deal_rebet(user=player, table_id=table.pk, amount=20))


def test_two_open_deals_on_one_table_are_refused_by_the_database(player: User) -> None:
    table = solo(player)
    deal = services.deal_start(user=player, table_id=table.pk)
    with pytest.raises(IntegrityError), transaction.atomic():
        Deal.objects.create(table=table, number=2, stake=5, deck_order=deal.deck_order,
                            secret="x", commitment="y")


# --- locking and the reveal --------------------------------------------------------------


def test_a_winning_lock_reveals_and_settles_both_sides_and_ledgers(
    player: User, rig: Rig
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = solo(player, stake=20)
    deal = services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    deal.refresh_from_db()
    assert deal.revealed
    assert deal.revealed_at is not None
    you, dealer = Hand.objects.filter(deal=deal).order_by("seat_number")
    assert (you.front_result, you.back_result, you.result, you.score) == (
        "win", "win", "win", Decimal(1))
    assert (dealer.front_result, dealer.back_result, dealer.result, dealer.score) == (
        "loss", "loss", "loss", Decimal(0))
    assert you.house_row == engine.house_way(STRONG).row == "three-pair"
    assert dealer.house_row == engine.house_way(WEAK).row
    assert (you.skill, dealer.skill) == (Decimal(0), Decimal(0))
    you_seat, dealer_seat = seats(table)
    assert (you_seat.stack, you_seat.balance_with_commission) == (1020, Decimal("1019.00"))
    assert (dealer_seat.stack, dealer_seat.balance_with_commission) == (980, Decimal("980.00"))
    entries = {
        (e.seat.number, e.ledger): (e.amount, e.balance)
        for e in LedgerEntry.objects.filter(deal=deal).select_related("seat")
    }
    assert entries == {
        (0, "actual"): (Decimal(20), Decimal(1020)),
        (0, "with_5"): (Decimal("19.00"), Decimal("1019.00")),
        (1, "actual"): (Decimal(-20), Decimal(980)),
        (1, "with_5"): (Decimal("-20.00"), Decimal("980.00")),
    }
    table.refresh_from_db()
    assert table.status == Table.Status.BETTING


def test_a_losing_lock_moves_both_ledgers_down_by_the_stake(player: User, rig: Rig) -> None:
    rig(deck_with(WEAK, STRONG))
    table = solo(player, stake=20)
    services.deal_start(user=player, table_id=table.pk)
    hand = services.setting_lock(user=player, table_id=table.pk, front=house_front(WEAK))
    assert hand.result == "loss"
    you, dealer = seats(table)
    assert (you.stack, you.balance_with_commission) == (980, Decimal("980.00"))
    assert (dealer.stack, dealer.balance_with_commission) == (1020, Decimal("1019.00"))


def test_a_push_moves_no_chips(player: User, rig: Rig) -> None:
    rig(deck_with(SPLIT_A, SPLIT_B))
    table = solo(player, stake=20)
    services.deal_start(user=player, table_id=table.pk)
    hand = services.setting_lock(user=player, table_id=table.pk, front=house_front(SPLIT_A))
    assert (hand.front_result, hand.back_result, hand.result, hand.score) == (
        "win", "loss", "push", Decimal("0.5"))
    you, dealer = seats(table)
    assert (you.stack, you.balance_with_commission) == (1000, Decimal("1000.00"))
    assert (dealer.stack, dealer.balance_with_commission) == (1000, Decimal("1000.00"))


def test_in_solo_copies_go_to_the_dealer(player: User, rig: Rig) -> None:
    rig(deck_with(COPY_A, COPY_B))
    table = solo(player, stake=10)
    services.deal_start(user=player, table_id=table.pk)
    hand = services.setting_lock(user=player, table_id=table.pk, front=house_front(COPY_A))
    assert (hand.front_result, hand.back_result, hand.result) == ("copy", "copy", "loss")
    assert seats(table)[1].stack == 1010


def test_with_a_friend_copies_tie(player: User, friend: User, rig: Rig) -> None:
    rig(deck_with(COPY_A, COPY_B))
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    services.stake_propose(user=friend, table_id=table.pk, amount=10)
    accept_seen(player, table.pk)
    deal = services.deal_start(user=friend, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(COPY_A))
    deal.refresh_from_db()
    assert not deal.revealed  # the friend has not locked yet
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(COPY_B))
    deal.refresh_from_db()
    assert deal.revealed
    assert [h.result for h in Hand.objects.filter(deal=deal)] == ["push", "push"]
    assert [s.stack for s in seats(table)] == [1000, 1000]


def test_a_foul_needs_confirmation_and_the_refusal_explains_it(player: User, rig: Rig) -> None:
    rig(deck_with(WEAK, STRONG))
    table = solo(player)
    services.deal_start(user=player, table_id=table.pk)
    error = refused(
        table, exceptions.FoulNotConfirmed,
        lambda: services.setting_lock(user=player, table_id=table.pk, front=["Js", "9h"]),
    )
    reason = engine.foul_reason(["Js", "9h"], ["7d", "5c", "4s", "3h", "2c"])
    assert reason
    assert reason in error.detail
    hand = services.setting_lock(
        user=player, table_id=table.pk, front=["Js", "9h"], confirm_foul=True
    )
    assert (hand.foul_confirmed, hand.foul, hand.result) == (True, True, "loss")
    # A foul set on purpose costs decision skill against the house way.
    assert hand.skill is not None
    assert hand.skill <= 0


def test_it_refuses_a_setting_with_cards_that_were_not_dealt(player: User, rig: Rig) -> None:
    rig(deck_with(WEAK, STRONG))
    table = solo(player)
    services.deal_start(user=player, table_id=table.pk)
    error = refused(table, exceptions.InvalidSetting,
                    lambda: services.setting_lock(user=player, table_id=table.pk,
                                                  front=["As", "Js"]))
    assert "Ace of spades" in error.detail
    refused(table, exceptions.InvalidSetting,
            lambda: services.setting_lock(user=player, table_id=table.pk, front=["Js"]))
    refused(table, exceptions.InvalidSetting,
            lambda: services.setting_lock(user=player, table_id=table.pk, front=["Xx", "Js"]))
    refused(table, exceptions.InvalidSetting,
            lambda: services.setting_lock(user=player, table_id=table.pk, front=["Js", "9h"],
                                          back=["Js", "7d", "5c", "4s", "3h"]))


def test_an_explicit_back_must_be_the_other_five_cards(player: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK))
    table = solo(player)
    services.deal_start(user=player, table_id=table.pk)
    hand = services.setting_lock(user=player, table_id=table.pk, front=["As", "Ah"],
                                 back=["Kd", "Kc", "Qs", "Qh", "2d"])
    assert hand.result == "win"


def test_it_refuses_a_lock_after_the_reveal(player: User) -> None:
    table = solo(player)
    deal = services.deal_start(user=player, table_id=table.pk)
    cards = Hand.objects.get(deal=deal, seat_number=0).card_list
    services.setting_lock(user=player, table_id=table.pk, front=house_front(" ".join(cards)),
                          confirm_foul=True)
    refused(table, exceptions.AlreadyRevealed,
            lambda: services.setting_lock(user=player, table_id=table.pk, front=cards[:2],
                                          confirm_foul=True))
    refused(table, exceptions.AlreadyRevealed, lambda: services.deal_reveal(table_id=table.pk))


def test_it_refuses_to_lock_twice(player: User, friend: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK))
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    accept_seen(friend, table.pk)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=["As", "Ah"])
    refused(table, exceptions.AlreadyLocked,
            lambda: services.setting_lock(user=player, table_id=table.pk, front=["Kd", "Kc"]))
    refused(table, exceptions.NotReadyToReveal, lambda: services.deal_reveal(table_id=table.pk))


def test_it_refuses_a_lock_for_a_stale_deal_number(player: User) -> None:
    table = solo(player)
    services.deal_start(user=player, table_id=table.pk)
    refused(table, exceptions.NoDeal,
            lambda: services.setting_lock(user=player, table_id=table.pk, front=["As", "Ah"],
                                          deal_number=7))


def test_it_refuses_a_lock_with_no_deal(player: User) -> None:
    table = solo(player)
    refused(table, exceptions.NoDeal,
            lambda: services.setting_lock(user=player, table_id=table.pk, front=["As", "Ah"]))


def test_the_database_refuses_a_second_settlement_of_a_deal(player: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK))
    table = solo(player)
    deal = services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=["As", "Ah"])
    seat = seats(table)[0]
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerEntry.objects.create(seat=seat, deal=deal, ledger="actual", amount=20, balance=1040)


# --- rebet, the end of a table --------------------------------------------------------------


def test_rebet_deals_again_at_the_last_stake(player: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK), deck_with(WEAK, STRONG))
    table = solo(player, stake=35)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    rebet_seen(player, table.pk)
    deal = Deal.objects.get(table=table, number=2)
    assert (deal.stake, deal.status) == (35, Deal.Status.DEALT)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(WEAK))
    assert seats(table)[0].stack == 1000
    assert seats(table)[0].balance_with_commission == Decimal("998.25")


def test_rebet_needs_an_earlier_deal(player: User) -> None:
    table = services.table_start(user=player, mode="solo")
    refused(table, exceptions.NoLastStake,
            lambda: services.deal_rebet(user=player, table_id=table.pk, amount=20))


def test_rebet_refuses_a_last_stake_over_the_smaller_stack(player: User, rig: Rig) -> None:
    rig(deck_with(WEAK, STRONG))
    table = solo(player, stake=600)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(WEAK))
    refused(table, exceptions.StakeTooHigh, lambda: rebet_seen(player, table.pk))


def test_with_a_friend_rebet_is_a_proposal_the_other_rebet_accepts(
    player: User, friend: User, rig: Rig
) -> None:
    rig(deck_with(SPLIT_A, SPLIT_B), deck_with(STRONG, WEAK))
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    services.stake_propose(user=player, table_id=table.pk, amount=15)
    accept_seen(friend, table.pk)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(SPLIT_A))
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(SPLIT_B))
    rebet_seen(friend, table.pk)
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed, table.stake_proposed_by) == (None, 15, 1)
    rebet_seen(player, table.pk)
    table.refresh_from_db()
    assert table.stake == 15
    assert services.deal_start(user=player, table_id=table.pk).stake == 15


def test_a_table_whose_smaller_stack_reaches_0_deals_no_more(player: User, rig: Rig) -> None:
    rig(deck_with(WEAK, STRONG))
    table = solo(player, stake=1000)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(WEAK))
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert seats(table)[0].stack == 0
    refused(table, exceptions.TableFinished,
            lambda: services.deal_rebet(user=player, table_id=table.pk, amount=1000))
    refused(table, exceptions.TableFinished,
            lambda: services.stake_propose(user=player, table_id=table.pk, amount=1))
    refused(table, exceptions.TableFinished,
            lambda: services.deal_start(user=player, table_id=table.pk))
    assert list(selectors.tables_open_for(user=player)) == []
    # The player can open a new table.
    fresh = services.table_start(user=player, mode="solo")
    assert list(selectors.tables_open_for(user=player)) == [fresh]


def test_the_dealer_going_broke_finishes_the_table_too(player: User, rig: Rig) -> None:
    rig(deck_with(STRONG, WEAK))
    table = solo(player, stake=1000)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert [s.stack for s in seats(table)] == [2000, 0]


# --- luck -----------------------------------------------------------------------------


def revealed_table(player: User, rig: Rig) -> Table:
    rig(deck_with(STRONG, WEAK))
    table = solo(player)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    return table


def test_luck_is_recorded_once_after_the_reveal(player: User, rig: Rig) -> None:
    table = revealed_table(player, rig)
    hand = services.luck_record(user=player, table_id=table.pk, deal_number=1,
                                wins=100, pushes=10, losses=10)
    expected = engine.luck_from_counts(wins=100, pushes=10, losses=10)
    assert hand.luck_label == expected.label()
    assert hand.luck == pytest.approx(expected.luck)
    refused(table, exceptions.LuckAlreadyRecorded,
            lambda: services.luck_record(user=player, table_id=table.pk, deal_number=1,
                                         wins=0, pushes=0, losses=120))


def test_luck_before_the_reveal_is_refused(player: User) -> None:
    table = solo(player)
    services.deal_start(user=player, table_id=table.pk)
    refused(table, exceptions.NotRevealed,
            lambda: services.luck_record(user=player, table_id=table.pk, deal_number=1,
                                         wins=60, pushes=0, losses=60))
    refused(table, exceptions.NoDeal,
            lambda: services.luck_record(user=player, table_id=table.pk, deal_number=9,
                                         wins=60, pushes=0, losses=60))


@pytest.mark.parametrize("counts", [(60, 0, 59), (121, 0, 0), (-1, 61, 60), (60.0, 0, 60)])
def test_luck_counts_must_be_120_whole_samples(
    player: User, rig: Rig, counts: tuple[object, object, object]
) -> None:
    table = revealed_table(player, rig)
    wins, pushes, losses = counts
    refused(table, exceptions.InvalidLuck,
            lambda: services.luck_record(user=player, table_id=table.pk, deal_number=1,
                                         wins=wins, pushes=pushes, losses=losses))


# --- ledger arithmetic -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deck", "stake", "stack", "with_5"),
    [
        ((STRONG, WEAK), 20, 1020, "1019.00"),
        ((WEAK, STRONG), 20, 980, "980.00"),
        ((SPLIT_A, SPLIT_B), 20, 1000, "1000.00"),
        ((STRONG, WEAK), 7, 1007, "1006.65"),
        ((STRONG, WEAK), 1, 1001, "1000.95"),
    ],
)
def test_the_two_ledgers_after_one_deal(
    player: User, rig: Rig, deck: tuple[str, str], stake: int, stack: int, with_5: str
) -> None:
    rig(deck_with(*deck))
    table = solo(player, stake=stake)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(deck[0]))
    you = seats(table)[0]
    assert (you.stack, you.balance_with_commission) == (stack, Decimal(with_5))


def test_many_random_deals_keep_the_ledgers_consistent(player: User) -> None:
    table = solo(player, stake=50)
    for _ in range(12):
        table.refresh_from_db()
        if table.status == Table.Status.FINISHED:
            break
        if table.deals_count:
            rebet_seen(player, table.pk)
        else:
            services.deal_start(user=player, table_id=table.pk)
        hand = Hand.objects.filter(deal__table=table, seat_number=0).order_by(
            "-deal__number").first()
        assert hand is not None
        services.setting_lock(user=player, table_id=table.pk, front=house_front(hand.cards))
    # assert_ledger_invariants runs after the test (autouse fixture)
    table.refresh_from_db()
    assert table.deals_count >= 2
    assert Deal.objects.filter(table=table, status="revealed").count() == table.deals_count


def test_the_result_names_the_kicker_when_both_backs_have_the_same_name(
    player: User, play_solo: Callable[..., Any]
) -> None:
    table = services.table_start(user=player, mode="solo")
    # Both backs are a pair of nines: the king beats the dealer's seven.
    play_solo(player, table, "9s 9h Ks Qd 5d 3c 2h", "9d 9c Ts 8h 7s 4c 2d", front=["Qd", "5d"])
    results = selectors.table_state(table_id=table.pk, seat_number=0)["deal"]["results"]
    words = (results["you"]["back_words"], results["other"]["back_words"])
    assert words == ("pair of nines, king kicker", "pair of nines, seven kicker")


def test_the_result_leaves_the_words_out_when_the_names_tell_the_backs_apart(
    player: User, play_solo: Callable[..., Any]
) -> None:
    table = services.table_start(user=player, mode="solo")
    play_solo(player, table, "As Ah Ks Qd 5d 3c 2h", "9d 9c Ts 8h 7s 4c 2d", front=["Qd", "5d"])
    results = selectors.table_state(table_id=table.pk, seat_number=0)["deal"]["results"]
    assert "back_words" not in results["you"]
