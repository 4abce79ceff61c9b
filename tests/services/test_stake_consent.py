"""A stake is agreed only at the amount the accepting player saw.

An accept (and a rebet that accepts) names the proposal it answers: its amount
and its id (``table.proposal.id``). When the other seat proposed again in
between, the answer is ``stake_changed`` with a sentence naming the stake as
it is now, and nothing changes; on the socket too, and in a real race on
PostgreSQL, where every deal started is at an amount the friend named.
"""

from __future__ import annotations

import contextlib
import random
import re
import threading
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from accounts.models import User
from games import services
from games.engine import errors as exceptions
from games.models import ClientMessage, Deal, Table
from games.realtime import messages as protocol
from tests.sockets import join
from tests.support import (
    COPY_A,
    COPY_B,
    STRONG,
    WEAK,
    accept_seen,
    deck_with,
    friend_table,
    friends_mid_deal,
    house_front,
    rebet_seen,
    seen,
)

Rig = Callable[..., None]


def stake_row(table: Table) -> tuple[object, ...]:
    """What an accept or a rebet may change, and the version every change moves."""
    table.refresh_from_db()
    return (
        table.version, table.status, table.stake, table.stake_proposed, table.stake_proposed_by,
        table.stake_proposal, table.last_stake, table.deals_count,
    )


def refused(table: Table, action: Callable[[], object]) -> str:
    """``action`` raises ``StakeChanged`` and leaves the table as it was; its sentence."""
    before = stake_row(table)
    with pytest.raises(exceptions.StakeChanged) as caught:
        action()
    assert stake_row(table) == before
    assert caught.value.code == "stake_changed"
    return caught.value.detail


def revealed_friends(player: User, friend: User, rig: Rig, stake: int) -> Table:
    """A friend table whose deal 1, at ``stake``, is revealed: both may rebet."""
    rig(deck_with(STRONG, WEAK))
    table = friends_mid_deal(player, friend, stake=stake)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(WEAK))
    return table


# --- the proposal's id ----------------------------------------------------------------------


@pytest.mark.django_db
def test_each_proposal_has_a_new_id_both_seats_see(player: User, friend: User) -> None:
    table = friend_table(player, friend)
    ids = []
    for user, amount in ((player, 10), (player, 900), (friend, 10)):
        services.stake_propose(user=user, table_id=table.pk, amount=amount)
        mine, theirs = seen(user, table.pk), seen(friend if user == player else player, table.pk)
        assert mine["proposal"] == {"amount": amount, "by": "you", "id": mine["version"]}
        assert theirs["proposal"] == {**mine["proposal"], "by": "other"}
        ids.append(mine["proposal"]["id"])
    assert len(set(ids)) == 3
    assert ids == sorted(ids)


# --- accept ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_accept_of_the_stake_shown_agrees_it(player: User, friend: User) -> None:
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    accept_seen(friend, table.pk)
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed, table.stake_proposed_by) == (10, None, None)


@pytest.mark.django_db
def test_an_accept_of_a_stake_re_proposed_in_between_is_refused_naming_the_new_one(
    player: User, friend: User
) -> None:
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    shown = seen(friend, table.pk)  # the friend's page: "Accept stake 10"
    services.stake_propose(user=player, table_id=table.pk, amount=900)
    detail = refused(table, lambda: accept_seen(friend, table.pk, shown))
    assert detail == (
        "Your friend changed the stake to 900 chips before you accepted, so nothing was "
        "agreed. Accept 900 or propose another stake."
    )
    # What the page shows next, accepted, agrees 900.
    accept_seen(friend, table.pk)
    table.refresh_from_db()
    assert table.stake == 900


@pytest.mark.django_db
def test_the_same_amount_proposed_again_is_a_new_proposal(player: User, friend: User) -> None:
    """10, then 900, then 10 again: an accept of the first 10 agreed to nothing
    that is on the table now (the friend may never have seen the 900)."""
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    shown = seen(friend, table.pk)
    for amount in (900, 10):
        services.stake_propose(user=player, table_id=table.pk, amount=amount)
    detail = refused(table, lambda: accept_seen(friend, table.pk, shown))
    assert "it is 10 chips now" in detail
    assert "Accept 10" in detail


@pytest.mark.django_db
def test_an_accept_must_name_both_the_amount_and_the_id(player: User, friend: User) -> None:
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    proposal = seen(friend, table.pk)["proposal"]
    for amount, named in ((900, proposal["id"]), (10, proposal["id"] + 1), (10, 0)):
        detail = refused(table, lambda a=amount, n=named: services.stake_accept(
            user=friend, table_id=table.pk, amount=a, proposal=n))
        assert "Accept 10" in detail
    accept_seen(friend, table.pk)


@pytest.mark.django_db
def test_an_accept_after_ones_own_counter_proposal_is_refused(player: User, friend: User) -> None:
    """The friend's other tab proposed 20 since: the 10 shown here is gone."""
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    shown = seen(friend, table.pk)
    services.stake_propose(user=friend, table_id=table.pk, amount=20)
    detail = refused(table, lambda: accept_seen(friend, table.pk, shown))
    assert detail.startswith("You have since proposed 20 chips yourself")


@pytest.mark.django_db
def test_an_accept_after_another_stake_was_agreed_is_refused(player: User, friend: User) -> None:
    """The host's 10 was countered with 20 from the friend's other tab, and the
    host accepted 20: the first tab's accept of 10 agrees nothing."""
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    shown = seen(friend, table.pk)
    services.stake_propose(user=friend, table_id=table.pk, amount=20)
    accept_seen(player, table.pk)
    detail = refused(table, lambda: accept_seen(friend, table.pk, shown))
    assert "agreed at 20 chips" in detail
    assert "accepted 10" in detail


@pytest.mark.django_db
def test_an_accept_of_a_stake_already_agreed_at_that_amount_changes_nothing(
    player: User, friend: User
) -> None:
    table = friend_table(player, friend)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    shown = seen(friend, table.pk)
    accept_seen(friend, table.pk, shown)
    before = stake_row(table)
    with pytest.raises(exceptions.NoStakeProposal) as caught:
        accept_seen(friend, table.pk, shown)  # the second tab
    assert caught.value.detail.startswith("The stake is already agreed at 10 chips")
    assert stake_row(table) == before


# --- rebet ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_rebet_of_a_last_stake_that_is_no_longer_the_last_is_refused(
    player: User, rig: Rig
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = services.table_start(user=player, mode="solo")
    services.stake_propose(user=player, table_id=table.pk, amount=35)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    detail = refused(
        table, lambda: services.deal_rebet(user=player, table_id=table.pk, amount=900))
    assert detail == (
        "The last stake is now 35 chips, not 900, so nothing was bet. Rebet 35 or choose "
        "another stake."
    )
    assert Deal.objects.filter(table=table).count() == 1
    rebet_seen(player, table.pk)
    assert Deal.objects.get(table=table, number=2).stake == 35


@pytest.mark.django_db
def test_a_rebet_accepts_the_other_seats_proposal_it_names(
    player: User, friend: User, rig: Rig
) -> None:
    table = revealed_friends(player, friend, rig, stake=15)
    rebet_seen(player, table.pk)
    rebet_seen(friend, table.pk)  # names the host's proposal of 15
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed) == (15, None)


@pytest.mark.django_db
def test_a_rebet_naming_a_replaced_proposal_proposes_instead_of_accepting(
    player: User, friend: User, rig: Rig
) -> None:
    """The friend's page showed the host's rebet of 15; the host proposed 15
    again since (another tab): the friend's rebet agrees nothing on the host's
    behalf of a proposal it did not see, it proposes 15 itself."""
    table = revealed_friends(player, friend, rig, stake=15)
    rebet_seen(player, table.pk)
    shown = seen(friend, table.pk)
    services.stake_propose(user=player, table_id=table.pk, amount=15)
    rebet_seen(friend, table.pk, shown)
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed, table.stake_proposed_by) == (None, 15, 1)
    assert table.stake_proposal == table.version


@pytest.mark.django_db
def test_a_rebet_never_accepts_a_proposal_of_another_amount(
    player: User, friend: User, rig: Rig
) -> None:
    table = revealed_friends(player, friend, rig, stake=15)
    services.stake_propose(user=player, table_id=table.pk, amount=900)
    rebet_seen(friend, table.pk)  # names the 900 proposal, bets 15
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed, table.stake_proposed_by) == (None, 15, 1)


@pytest.mark.django_db
def test_a_rebet_that_names_no_proposal_accepts_the_last_stake_proposed(
    player: User, friend: User, rig: Rig
) -> None:
    """Both pressed "Rebet 15" at once, neither page showing a proposal: the
    one that runs second accepts the other's 15, the amount it named."""
    table = revealed_friends(player, friend, rig, stake=15)
    shown = seen(friend, table.pk)
    rebet_seen(player, table.pk)
    rebet_seen(friend, table.pk, shown)
    table.refresh_from_db()
    assert (table.stake, table.stake_proposed) == (15, None)


# --- the messages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        {"type": "accept_stake"},
        {"type": "accept_stake", "amount": 10},
        {"type": "accept_stake", "proposal": 3},
        {"type": "accept_stake", "amount": "10", "proposal": 3},
        {"type": "rebet"},
        {"type": "rebet", "proposal": 3},
        {"type": "rebet", "amount": 10, "proposal": True},
    ],
)
def test_an_accept_or_a_rebet_without_what_the_player_saw_is_a_bad_message(
    message: dict[str, Any],
) -> None:
    with pytest.raises(exceptions.BadMessage):
        protocol.validate(message)


def test_an_accept_and_a_rebet_name_the_stake_they_answer() -> None:
    accept = protocol.validate({"type": "accept_stake", "amount": 10, "proposal": 3})
    assert accept.fields == {"amount": 10, "proposal": 3}
    rebet = protocol.validate({"type": "rebet", "amount": 10})
    assert rebet.fields == {"amount": 10}


# --- over the socket ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_a_friend_accepting_what_they_saw_is_refused_once_the_host_re_proposed(
    player: User, friend: User
) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    ada, _ = await join(player, table.pk)
    grace, _ = await join(friend, table.pk)
    try:
        await ada.receive()  # grace connected
        await ada.send({"type": "stake", "amount": 10})
        shown = (await grace.receive())["table"]["proposal"]  # "Accept stake 10"
        await ada.send({"type": "stake", "amount": 900})  # grace has not read its push yet
        accept = {"type": "accept_stake", "amount": 10, "proposal": shown["id"], "id": "g1"}
        before = await database_sync_to_async(stake_row)(table)
        # The push of 900 and the answer, in whichever order they come.
        frames = [await grace.send(accept), await grace.receive()]
        assert [f["type"] for f in frames].count("error") == 1, frames
        refusal = next(f for f in frames if f["type"] == "error")
        pushed = next(f for f in frames if f["type"] == "state")
        assert refusal == {
            "type": "error", "error": "stake_changed", "id": "g1",
            "detail": "Your friend changed the stake to 900 chips before you accepted, so "
                      "nothing was agreed. Accept 900 or propose another stake.",
        }
        assert await database_sync_to_async(stake_row)(table) == before
        remembered = ClientMessage.objects.filter(client_id='"g1"').exists
        assert not await database_sync_to_async(remembered)()
        # No deal: the page's "deal at once" finds no agreed stake.
        assert (await grace.send({"type": "deal"}))["error"] == "stake_not_agreed"
        # The proposal the push showed, accepted under the same id, is agreed.
        newer = pushed["table"]["proposal"]
        assert newer["amount"] == 900
        assert newer["id"] != shown["id"]
        agreed = await grace.send({**accept, "amount": 900, "proposal": newer["id"]})
        assert agreed["table"]["stake"] == 900
        assert agreed["id"] == "g1"
        assert (await ada.receive())["table"]["stake"] == 900
    finally:
        await ada.close()
        await grace.close()


# --- a real race on PostgreSQL ----------------------------------------------------------------

TRIALS = 30


@pytest.mark.services
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a race needs PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_host_re_proposing_while_the_friend_accepts_never_deals_an_unseen_stake(
    player: User, friend: User, rig: Rig
) -> None:
    """The host proposes 10 and 900 in turn as fast as it can; the friend, on
    its own connection, accepts whatever its view showed last and deals at once
    (as the page does), 30 times. Every deal is at the amount the friend named
    in the accept that agreed it; every refusal names the stake on the table."""
    rig(*[deck_with(COPY_A, COPY_B)] * TRIALS)  # every deal a push: stacks stay 1,000
    table = friend_table(player, friend)
    t = table.pk
    services.stake_propose(user=player, table_id=t, amount=10)
    done = threading.Event()
    named: dict[int, int] = {}  # deal number -> the amount the friend accepted
    refusals: list[str] = []
    failures: list[BaseException] = []

    def host() -> None:
        chance = random.Random(16)
        try:
            for turn in range(20_000):
                if done.is_set():
                    return
                with contextlib.suppress(exceptions.DealInProgress, exceptions.TableFinished):
                    services.stake_propose(user=player, table_id=t, amount=(10, 900)[turn % 2])
                done.wait(chance.uniform(0, 0.08))  # a person's pace, roughly: varied
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)
        finally:
            connection.close()

    def friend_seat() -> None:
        try:
            for _ in range(TRIALS):
                shown = seen(friend, t)
                if shown["proposal"] is None or shown["proposal"]["by"] != "other":
                    continue
                try:
                    accept_seen(friend, t, shown)
                except exceptions.StakeChanged as exc:
                    refusals.append(exc.detail)
                    continue
                try:
                    deal = services.deal_start(user=friend, table_id=t)
                except exceptions.StakeNotAgreed:  # the host proposed again since
                    continue
                named[deal.number] = shown["proposal"]["amount"]
                for user, cards in ((player, COPY_A), (friend, COPY_B)):
                    services.setting_lock(user=user, table_id=t, front=house_front(cards))
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)
        finally:
            done.set()
            connection.close()

    threads = [threading.Thread(target=host), threading.Thread(target=friend_seat)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert not failures, failures
    deals = dict(Deal.objects.filter(table_id=t).values_list("number", "stake"))
    assert deals == named, (deals, named)
    for detail in refusals:
        assert re.fullmatch(
            r"Your friend (changed the stake to (10|900) chips|proposed the stake again \(it is "
            r"(10|900) chips now\)) before you accepted, so nothing was agreed\. Accept (10|900) "
            r"or propose another stake\.",
            detail,
        ), detail
