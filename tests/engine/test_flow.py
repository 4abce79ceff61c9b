"""The table's flow (``games.engine.flow``) without a database.

Hypothesis plays random sequences of every action, legal or not, at solo and
friend tables, and checks after each one: chips are conserved (the stacks add
up to 2,000, the dealer's included; the "with 5%" balances to 2,000 less the
5% taken off every win), no stack goes below 0, a stake is never above the
smaller stack, at most one deal is open, a finished table accepts nothing,
a refusal changes nothing and every change moves the version on. The example
tests below say the flow's sentences, as the stake-consent tests say them
through the services (``tests/services/test_stake_consent.py``).
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from games.engine import errors, flow
from games.engine.flow import TableState

STAKES = st.one_of(
    st.integers(min_value=-2, max_value=2100),
    st.sampled_from([1, 2, 5, 10, 500, 999, 1000]),
)
# What a message could carry as an amount: usually a number, sometimes not.
AMOUNTS = st.one_of(STAKES, st.sampled_from([True, False, None, "10", 10.0]))
SEATS = st.integers(min_value=0, max_value=1)


class Flow(RuleBasedStateMachine):
    """One table, moved only through ``flow``; every action may be refused."""

    state: TableState
    commission: Decimal  # the 5% the "with 5%" ledger took off wins so far
    proposals: set[int]  # every proposal id made
    open_deals: int

    @initialize(mode=st.sampled_from(["solo", "friend"]), joined=st.booleans())
    def open_table(self, mode: str, joined: bool) -> None:
        self.state = flow.start(mode)
        if mode == "friend" and joined:
            self.state = flow.join(self.state)
        self.commission = Decimal(0)
        self.proposals = set()
        self.open_deals = 0

    def attempt(self, action: str, *args: object, **kwargs: object) -> TableState | None:
        """Apply ``flow.<action>``; None (and the state as it was) when refused."""
        before = self.state
        copy = dataclasses.replace(before)
        try:
            after: TableState = getattr(flow, action)(before, *args, **kwargs)
        except errors.GameError as refusal:
            said = refusal.code, refusal.detail
        else:
            said = None
        if said is not None:
            assert all(said)  # a code and a sentence
            assert before == copy  # nothing changed
            return None
        assert before.status != "finished", f"a finished table accepted {action}"
        changed = flow.changed_fields(before, after)
        for name in flow.TABLE_FIELDS:
            assert (name in changed) == (getattr(before, name) != getattr(after, name))
        completes_lock = action == "lock" and after.reveal_due
        assert after.version == before.version + (0 if completes_lock else 1)
        assert "version" in changed or completes_lock
        assert after.deals_count - before.deals_count in (0, 1)
        self.open_deals += after.deals_count - before.deals_count
        self.open_deals -= before.status == "playing" and after.status != "playing"
        self.state = after
        return after

    # --- the actions ----------------------------------------------------------------

    @precondition(lambda self: self.state.status == "waiting")
    @rule()
    def join(self) -> None:
        self.attempt("join")

    @rule(seat=SEATS, data=st.data())
    def propose(self, seat: int, data: st.DataObject) -> None:
        """Any amount, or all in (which may finish the table)."""
        amount = data.draw(st.one_of(AMOUNTS, self.all_in()))
        after = self.attempt("propose", seat, amount)
        if after is None:
            return
        assert amount == (after.stake if after.mode == "solo" else after.stake_proposed)
        if after.mode == "friend":
            assert after.stake is None
            assert after.stake_proposed_by == seat
            assert after.stake_proposal == after.version  # the id is the new version
            assert after.stake_proposal not in self.proposals
            self.proposals.add(after.stake_proposal)

    @rule(seat=SEATS, data=st.data())
    def accept(self, seat: int, data: st.DataObject) -> None:
        """Accept what the page shows now (usually), or a stale amount or id."""
        shown = self.state.stake_proposed, self.state.stake_proposal
        amount = data.draw(st.one_of(st.just(shown[0]), STAKES).filter(lambda a: a is not None))
        proposal = data.draw(st.one_of(st.just(shown[1]), st.integers(0, 50)).filter(
            lambda p: p is not None))
        before = self.state
        after = self.attempt("accept", seat, amount=amount, proposal=proposal)
        if after is not None:
            assert before.stake_proposed_by == 1 - seat
            assert (after.stake, after.stake_proposed) == (amount, None)
            assert proposal == before.stake_proposal

    @rule(seat=SEATS, data=st.data())
    def rebet(self, seat: int, data: st.DataObject) -> None:
        amount = data.draw(st.one_of(st.just(self.state.last_stake), STAKES).filter(
            lambda a: a is not None))
        proposal = data.draw(st.one_of(st.none(), st.just(self.state.stake_proposal),
                                       st.integers(0, 50)))
        before = self.state
        after = self.attempt("rebet", seat, amount=amount, proposal=proposal)
        if after is None:
            return
        assert amount == before.last_stake
        if after.status == "playing":
            assert after.mode == "solo"
            assert after.last_stake == amount
        elif after.stake is not None:  # accepted the other seat's proposal
            assert before.stake_proposed == amount
            assert before.stake_proposed_by == 1 - seat
        else:
            assert (after.stake_proposed, after.stake_proposed_by) == (amount, seat)
            self.proposals.add(after.stake_proposal or 0)

    @precondition(lambda self: self.state.stake is not None)
    @rule(seat=SEATS)
    def deal_at_the_agreed_stake(self, seat: int) -> None:
        self.deal(seat)

    def rebet_as_shown(self, seat: int) -> None:
        """A rebet of the last stake naming the proposal the page shows."""
        s = self.state
        after = self.attempt("rebet", seat, amount=s.last_stake, proposal=s.stake_proposal)
        assert after is not None
        assert after.stake == s.last_stake

    def all_in(self) -> st.SearchStrategy[int]:
        """The smaller stack, or one chip more."""
        return st.sampled_from([self.state.max_stake, self.state.max_stake + 1])

    @rule(seat=SEATS)
    def deal(self, seat: int) -> None:
        before = self.state
        after = self.attempt("deal", seat)
        if after is not None:
            assert after.last_stake == before.stake
            assert after.stake is None
            assert after.deals_count == before.deals_count + 1

    @rule(seat=SEATS, number=st.one_of(st.none(), st.integers(0, 6)))
    def lock(self, seat: int, number: int | None) -> None:
        self.attempt("lock", seat, deal_number=number)

    @precondition(lambda self: self.state.status == "playing" and not self.state.reveal_due)
    @rule(seat=SEATS)
    def lock_the_open_deal(self, seat: int) -> None:
        self.attempt("lock", seat, deal_number=self.state.deals_count)

    @precondition(lambda self: self.state.reveal_due)
    @rule(result=st.sampled_from(["win", "push", "loss"]))
    def reveal(self, result: str) -> None:
        """The lock that completes both sides is followed by the reveal."""
        other = {"win": "loss", "loss": "win", "push": "push"}[result]
        stake = self.state.last_stake
        assert stake is not None
        after = self.attempt("reveal", (result, other))
        assert after is not None
        if "win" in (result, other):
            self.commission += Decimal(stake) * Decimal("0.05")
        assert after.status == ("finished" if after.max_stake == 0 else "betting")

    @precondition(lambda self: not self.state.reveal_due)
    @rule(result=st.sampled_from(["win", "push", "loss"]))
    def reveal_too_soon(self, result: str) -> None:
        assert self.attempt("reveal", (result, result)) is None

    @rule(data=st.data())
    def play_a_deal(self, data: st.DataObject) -> None:
        """A whole deal the way the page plays it, any step of it refused or not:
        a proposal (often all in), the other seat's accept of what it saw, the
        deal, both locks and the reveal."""
        s = self.state
        seat = data.draw(SEATS) if s.mode == "friend" else 0
        if s.last_stake is not None and data.draw(st.booleans()):
            if self.attempt("rebet", seat, amount=s.last_stake) is None:
                return
            if self.state.stake_proposed is not None:  # it proposed: the other seat rebets
                self.rebet_as_shown(1 - seat)
        else:
            amount = data.draw(st.one_of(STAKES, self.all_in()))
            if self.attempt("propose", seat, amount) is None:
                return
            if s.mode == "friend":
                shown = self.state
                assert shown.stake_proposed is not None
                assert shown.stake_proposal is not None
                self.attempt("accept", 1 - seat, amount=shown.stake_proposed,
                             proposal=shown.stake_proposal)
        if self.state.status == "betting":
            self.deal(data.draw(SEATS) if s.mode == "friend" else 0)
        for side in (0, 1) if s.mode == "friend" else (0,):
            self.lock(side, self.state.deals_count)
        if self.state.reveal_due:
            self.reveal(data.draw(st.sampled_from(["win", "push", "loss"])))

    # --- what always holds ----------------------------------------------------------

    @invariant()
    def chips_are_conserved(self) -> None:
        seats = self.state.seats
        assert sum(seat.stack for seat in seats) == 2000
        assert sum(seat.with_commission for seat in seats) + self.commission == 2000
        assert all(seat.stack >= 0 for seat in seats)

    @invariant()
    def a_stake_is_never_above_the_smaller_stack(self) -> None:
        s = self.state
        for amount in (s.stake, s.stake_proposed):
            assert amount is None or 1 <= amount <= s.max_stake
        assert (s.stake_proposed is None) == (s.stake_proposed_by is None)
        assert s.stake is None or s.stake_proposed is None

    @invariant()
    def at_most_one_deal_is_open(self) -> None:
        s = self.state
        assert self.open_deals in (0, 1)
        assert (self.open_deals == 1) == (s.status == "playing")
        if s.status == "playing":
            assert s.stake is None
            assert s.last_stake is not None
            assert s.deals_count >= 1
        else:
            assert s.locked == (False, False)

    @invariant()
    def a_table_finishes_only_at_a_stack_of_0(self) -> None:
        s = self.state
        if s.status != "playing":
            assert (s.status == "finished") == (s.max_stake == 0)

    @invariant()
    def a_finished_table_accepts_nothing(self) -> None:
        s = self.state
        if s.status != "finished":
            return
        for seat in (0, 1):
            for action, args, kwargs in (
                ("join", (), {}),
                ("propose", (seat, 1), {}),
                ("accept", (seat,), {"amount": s.stake_proposed or 1,
                                     "proposal": s.stake_proposal or 0}),
                ("rebet", (seat,), {"amount": s.last_stake}),
                ("deal", (seat,), {}),
                ("lock", (seat,), {}),
                ("reveal", (("win", "loss"),), {}),
            ):
                with pytest.raises(errors.GameError):
                    getattr(flow, action)(s, *args, **kwargs)

    @invariant()
    def the_solo_dealer_and_an_empty_seat_never_act(self) -> None:
        s = self.state
        assert (s.mode == "solo") == s.seats[1].dealer
        assert (s.status == "waiting") == s.seats[1].empty


Flow.TestCase.settings = settings(
    max_examples=100, stateful_step_count=50, deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
test_the_table_flow_holds_its_rules_over_any_sequence_of_actions = Flow.TestCase


# --- examples: the sentences a player reads -----------------------------------------------


def friends() -> TableState:
    return flow.join(flow.start("friend"))


def refused(error: type[errors.GameError], action: object, *args: object, **kw: object) -> str:
    with pytest.raises(error) as caught:
        getattr(flow, str(action))(*args, **kw)
    return caught.value.detail


def test_a_new_table_has_1000_chips_a_side_and_waits_for_a_friend() -> None:
    solo, friend = flow.start("solo"), flow.start("friend")
    assert (solo.status, friend.status) == ("betting", "waiting")
    assert solo.seats[1].dealer
    assert friend.seats[1].empty
    assert {seat.stack for seat in solo.seats + friend.seats} == {1000}
    assert refused(errors.TableWaiting, "propose", friend, 0, 10).startswith(
        "Your friend has not joined yet")
    with pytest.raises(ValueError, match="is not a table mode"):
        flow.start("duo")


def test_joining_takes_the_empty_seat_once() -> None:
    table = friends()
    assert (table.status, table.version) == ("betting", 1)
    assert refused(errors.TableFull, "join", table) == "This table is full: both seats are taken."
    assert refused(errors.TableFull, "join", flow.start("solo")) == (
        "This is a solo table: its other seat is the dealer's.")
    assert refused(errors.SeatTaken, "join", flow.start("friend"), already_seated=True) == (
        "You already have a seat at this table.")


def test_each_proposal_has_a_new_id_the_version_it_makes() -> None:
    table, ids = friends(), []
    for seat, amount in ((0, 10), (0, 900), (1, 10)):
        table = flow.propose(table, seat, amount)
        assert (table.stake_proposed, table.stake_proposed_by) == (amount, seat)
        assert table.stake_proposal == table.version
        ids.append(table.stake_proposal)
    assert len(set(ids)) == 3
    assert ids == sorted(ids)


def test_a_stake_is_whole_chips_up_to_the_smaller_stack() -> None:
    table = friends()
    assert refused(errors.InvalidStake, "propose", table, 0, "10") == (
        "A stake is a whole number of chips, at least 1.")
    assert refused(errors.InvalidStake, "propose", table, 0, True).startswith("A stake is a whole")
    assert refused(errors.InvalidStake, "propose", table, 0, 0) == "A stake is at least 1 chip."
    poorer = dataclasses.replace(table, seats=(table.seats[0], flow.SeatChips(stack=40)))
    assert refused(errors.StakeTooHigh, "propose", poorer, 0, 41) == (
        "A stake of 41 is more than the smaller stack: the most you can stake is 40.")
    assert flow.propose(poorer, 0, 40).stake_proposed == 40


def test_the_solo_dealer_accepts_at_once_and_never_acts() -> None:
    table = flow.propose(flow.start("solo"), 0, 25)
    assert (table.stake, table.stake_proposed, table.version) == (25, None, 1)
    assert refused(errors.NotSeated, "propose", table, 1, 10) == (
        "You do not have a seat at this table.")


def test_an_accept_of_the_stake_shown_agrees_it() -> None:
    table = flow.propose(friends(), 0, 10)
    agreed = flow.accept(table, 1, amount=10, proposal=table.stake_proposal)
    assert (agreed.stake, agreed.stake_proposed, agreed.stake_proposed_by) == (10, None, None)
    assert flow.changed_fields(table, agreed) == (
        "stake", "stake_proposed", "stake_proposed_by", "version")


def test_an_accept_of_a_stake_re_proposed_in_between_is_refused_naming_the_new_one() -> None:
    shown = flow.propose(friends(), 0, 10)
    table = flow.propose(shown, 0, 900)
    assert refused(errors.StakeChanged, "accept", table, 1, amount=10,
                   proposal=shown.stake_proposal) == (
        "Your friend changed the stake to 900 chips before you accepted, so nothing was "
        "agreed. Accept 900 or propose another stake.")
    assert flow.accept(table, 1, amount=900, proposal=table.stake_proposal).stake == 900


def test_the_same_amount_proposed_again_is_a_new_proposal() -> None:
    shown = flow.propose(friends(), 0, 10)
    table = flow.propose(flow.propose(shown, 0, 900), 0, 10)
    detail = refused(errors.StakeChanged, "accept", table, 1, amount=10,
                     proposal=shown.stake_proposal)
    assert detail == (
        "Your friend proposed the stake again (it is 10 chips now) before you accepted, so "
        "nothing was agreed. Accept 10 or propose another stake.")


def test_an_accept_must_name_both_the_amount_and_the_id() -> None:
    table = flow.propose(friends(), 0, 10)
    named = table.stake_proposal
    assert named is not None
    for amount, proposal in ((900, named), (10, named + 1), (10, 0)):
        detail = refused(errors.StakeChanged, "accept", table, 1, amount=amount,
                         proposal=proposal)
        assert "Accept 10" in detail


def test_an_accept_after_ones_own_counter_proposal_is_refused() -> None:
    shown = flow.propose(friends(), 0, 10)
    table = flow.propose(shown, 1, 20)
    assert refused(errors.StakeChanged, "accept", table, 1, amount=10,
                   proposal=shown.stake_proposal) == (
        "You have since proposed 20 chips yourself, so nothing was agreed: wait for your "
        "friend to accept it, or propose another stake.")
    assert refused(errors.NoStakeProposal, "accept", table, 1, amount=20,
                   proposal=table.stake_proposal) == (
        "There is no stake from the other side to accept.")


def test_an_accept_after_another_stake_was_agreed_is_refused() -> None:
    shown = flow.propose(friends(), 0, 10)
    countered = flow.propose(shown, 1, 20)
    table = flow.accept(countered, 0, amount=20, proposal=countered.stake_proposal)
    assert refused(errors.StakeChanged, "accept", table, 1, amount=10,
                   proposal=shown.stake_proposal) == (
        "The stake was agreed at 20 chips before you accepted 10, so your accept changed "
        "nothing. Deal at 20 or propose another stake.")


def test_an_accept_of_a_stake_already_agreed_at_that_amount_changes_nothing() -> None:
    shown = flow.propose(friends(), 0, 10)
    table = flow.accept(shown, 1, amount=10, proposal=shown.stake_proposal)
    assert refused(errors.NoStakeProposal, "accept", table, 1, amount=10,
                   proposal=shown.stake_proposal) == (
        "The stake is already agreed at 10 chips: deal, or propose another stake.")
    assert refused(errors.NoStakeProposal, "accept", friends(), 1, amount=10, proposal=1) == (
        "There is no stake from the other side to accept.")


def test_a_deal_needs_an_agreed_stake_and_locks_the_solo_dealer() -> None:
    assert refused(errors.StakeNotAgreed, "deal", friends(), 0) == "Agree a stake before dealing."
    table = flow.deal(flow.propose(flow.start("solo"), 0, 35), 0)
    assert (table.status, table.stake, table.last_stake, table.deals_count) == (
        "playing", None, 35, 1)
    assert table.locked == (False, True)
    assert flow.changed_fields(flow.propose(flow.start("solo"), 0, 35), table) == (
        "status", "stake", "last_stake", "deals_count", "version")
    for action, args in (("propose", (0, 10)), ("deal", (0,)), ("rebet", (0,))):
        kwargs = {"amount": 35} if action == "rebet" else {}
        assert refused(errors.DealInProgress, action, table, *args, **kwargs) == (
            "A deal is in progress: finish it before starting another.")


def revealed(table: TableState, stake: int, results: tuple[str, str]) -> TableState:
    """``table`` after a deal at ``stake`` with ``results``, both sides locked."""
    if table.mode == "solo":
        table = flow.deal(flow.propose(table, 0, stake), 0)
    else:
        offered = flow.propose(table, 0, stake)
        table = flow.deal(flow.accept(offered, 1, amount=stake,
                                      proposal=offered.stake_proposal), 1)
        table = flow.lock(table, 1)
    return flow.reveal(flow.lock(table, 0), results)


def test_a_rebet_of_a_last_stake_that_is_no_longer_the_last_is_refused() -> None:
    table = revealed(flow.start("solo"), 35, ("push", "push"))
    assert refused(errors.StakeChanged, "rebet", table, 0, amount=900) == (
        "The last stake is now 35 chips, not 900, so nothing was bet. Rebet 35 or choose "
        "another stake.")
    again = flow.rebet(table, 0, amount=35)
    assert (again.status, again.last_stake, again.deals_count) == ("playing", 35, 2)
    assert refused(errors.NoLastStake, "rebet", friends(), 0, amount=35) == (
        "There is no earlier stake to bet again: choose a stake and deal.")


def test_a_rebet_accepts_the_other_seats_proposal_it_names() -> None:
    table = flow.rebet(revealed(friends(), 15, ("win", "loss")), 0, amount=15)
    agreed = flow.rebet(table, 1, amount=15, proposal=table.stake_proposal)
    assert (agreed.stake, agreed.stake_proposed) == (15, None)


def test_a_rebet_naming_a_replaced_proposal_proposes_instead_of_accepting() -> None:
    shown = flow.rebet(revealed(friends(), 15, ("win", "loss")), 0, amount=15)
    table = flow.propose(shown, 0, 15)
    after = flow.rebet(table, 1, amount=15, proposal=shown.stake_proposal)
    assert (after.stake, after.stake_proposed, after.stake_proposed_by) == (None, 15, 1)
    assert after.stake_proposal == after.version


def test_a_rebet_never_accepts_a_proposal_of_another_amount() -> None:
    table = flow.propose(revealed(friends(), 15, ("win", "loss")), 0, 900)
    after = flow.rebet(table, 1, amount=15, proposal=table.stake_proposal)
    assert (after.stake, after.stake_proposed, after.stake_proposed_by) == (None, 15, 1)


def test_a_rebet_that_names_no_proposal_accepts_the_last_stake_proposed() -> None:
    table = flow.rebet(revealed(friends(), 15, ("win", "loss")), 0, amount=15)
    assert flow.rebet(table, 1, amount=15).stake == 15


def test_locks_and_the_reveal_follow_the_open_deal() -> None:
    table = friends()
    assert refused(errors.NoDeal, "lock", table, 0) == (
        "There is no deal in progress: choose a stake and deal.")
    offered = flow.propose(table, 0, 10)
    table = flow.deal(flow.accept(offered, 1, amount=10, proposal=offered.stake_proposal), 0)
    assert refused(errors.NoDeal, "lock", table, 0, deal_number=2).startswith("There is no deal")
    assert refused(errors.NotReadyToReveal, "reveal", table, ("win", "loss")) == (
        "Both sides must lock a setting before the reveal.")
    one = flow.lock(table, 0, deal_number=1)
    assert (one.locked, one.version, one.reveal_due) == ((True, False), table.version + 1, False)
    both = flow.lock(one, 1)
    assert both.reveal_due
    assert both.version == one.version
    with pytest.raises(ValueError, match="not the two sides of one deal"):
        flow.reveal(both, ("win", "win"))
    done = flow.reveal(both, ("loss", "win"))
    assert (done.status, done.version, done.locked) == ("betting", both.version + 1, (False, False))
    assert [(s.stack, s.with_commission) for s in done.seats] == [
        (990, Decimal("990.00")), (1010, Decimal("1009.50"))]
    for number in (None, 1):
        assert refused(errors.AlreadyRevealed, "lock", done, 0, deal_number=number) == (
            "This deal has already been revealed and settled.")
    assert refused(errors.AlreadyRevealed, "reveal", done, ("win", "loss")).startswith("This deal")


def test_a_finished_table_accepts_nothing() -> None:
    table = revealed(flow.start("solo"), 1000, ("loss", "win"))
    assert table.status == "finished"
    assert [seat.stack for seat in table.seats] == [0, 2000]
    finished = (
        "This table is finished: a stack is at 0 chips. Open a new table to play again.")
    assert refused(errors.TableFinished, "propose", table, 0, 1) == finished
    assert refused(errors.TableFinished, "rebet", table, 0, amount=1000) == finished
    assert refused(errors.TableFinished, "deal", table, 0) == finished
    assert refused(errors.TableFinished, "accept", table, 0, amount=1, proposal=1) == finished
    refused(errors.AlreadyRevealed, "lock", table, 0)
