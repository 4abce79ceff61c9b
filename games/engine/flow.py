"""The table's flow as pure transitions: stakes, deals, locks and the reveal.

A :class:`TableState` is what the rules of the flow read of a table: its mode
and status, both seats' chips, the stake agreed or proposed, the last stake,
how many deals it has dealt, the open deal's locked sides and the version
that orders what the seats see. Each transition takes a state and what a
seat asked for and returns the new state, or raises the domain error
(``games.engine.errors``) that says why not, before anything changes: a
refusal leaves the caller's state as it was, since states are never changed
in place. Every change of what a seat may see moves ``version`` on by one, and
a proposal's id is the version its change gives the table, so no two
proposals share one. A service loads a state, applies one transition and
saves :func:`changed_fields`; shuffling and dealing the cards, the settings
and the settlement stay with the caller (the reveal takes the results).

Seats are 0 and 1: seat 0 opened the table; seat 1 is the dealer in solo
(who accepts any valid stake and has locked the house way when the cards are
dealt) and the friend with a friend (empty until they join).

>>> table = join(start("friend"))
>>> table = propose(table, 0, 10)
>>> table.stake_proposed, table.stake_proposal, table.version
(10, 2, 2)
>>> table = deal(accept(table, 1, amount=10, proposal=2), 1)
>>> table.status, table.last_stake, table.deals_count, table.locked
('playing', 10, 1, (False, False))
>>> table = lock(lock(table, 0), 1)
>>> table.reveal_due
True
>>> table = reveal(table, ("win", "loss"))
>>> table.status, [seat.stack for seat in table.seats], table.seats[0].with_commission
('betting', [1010, 990], Decimal('1009.50'))
>>> changed_fields(start("friend"), table)
('status', 'stake_proposal', 'last_stake', 'deals_count', 'version')
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from .choices import Mode, TableStatus
from .errors import (
    AlreadyLocked,
    AlreadyRevealed,
    DealInProgress,
    GameError,
    InvalidStake,
    NoDeal,
    NoLastStake,
    NoStakeProposal,
    NotReadyToReveal,
    NotSeated,
    SeatTaken,
    StakeChanged,
    StakeNotAgreed,
    StakeTooHigh,
    TableFinished,
    TableFull,
    TableWaiting,
)
from .settle import check_mode, ledger_delta, mirror_result

STARTING_STACK = 1000


@dataclass(frozen=True)
class SeatChips:
    """One seat's chips: its stack (the actual ledger, which limits stakes)
    and its "with 5%" balance (a what-if, which limits nothing); whether it is
    the solo dealer, or a friend's seat nobody has taken yet."""

    stack: int = STARTING_STACK
    with_commission: Decimal = Decimal(STARTING_STACK)
    dealer: bool = False
    empty: bool = False


@dataclass(frozen=True)
class TableState:
    """A table as its flow sees it (the fields are the table's own, by name).

    ``locked`` is which sides of the open deal have locked a setting; it
    means something only while a deal is in progress (``status`` "playing",
    the table's latest deal, number ``deals_count`` at ``last_stake``).

    >>> TableState(mode="solo", status="betting").max_stake
    1000
    """

    mode: Mode
    status: TableStatus
    seats: tuple[SeatChips, SeatChips] = (SeatChips(), SeatChips())
    stake: int | None = None
    stake_proposed: int | None = None
    stake_proposed_by: int | None = None
    stake_proposal: int | None = None
    last_stake: int | None = None
    deals_count: int = 0
    version: int = 0
    locked: tuple[bool, bool] = (False, False)

    @property
    def max_stake(self) -> int:
        """The most a stake can be: the smaller stack."""
        return min(seat.stack for seat in self.seats)

    @property
    def reveal_due(self) -> bool:
        """Whether the deal in progress has both sides locked, so it is revealed.

        >>> deal(propose(start("solo"), 0, 5), 0).reveal_due
        False
        """
        return self.status == "playing" and all(self.locked)


# The fields of a table that the flow writes, in the order the state lists them.
TABLE_FIELDS = (
    "status",
    "stake",
    "stake_proposed",
    "stake_proposed_by",
    "stake_proposal",
    "last_stake",
    "deals_count",
    "version",
)


def changed_fields(before: TableState, after: TableState) -> tuple[str, ...]:
    """The table's fields a transition changed (what a service saves); the
    seats' chips change only at the reveal (compare ``seats``).

    >>> changed_fields(start("solo"), propose(start("solo"), 0, 5))
    ('stake', 'version')
    """
    return tuple(name for name in TABLE_FIELDS if getattr(before, name) != getattr(after, name))


# --- opening a table and taking its seat -----------------------------------------


def start(mode: str, *, starting_stack: int = STARTING_STACK) -> TableState:
    """A new table with ``starting_stack`` chips on each side: solo is ready
    for a stake at once; a friend table waits for the friend.

    >>> start("solo").status, start("friend").status, start("friend").seats[1].empty
    ('betting', 'waiting', True)
    """
    solo = check_mode(mode) == "solo"
    seat = SeatChips(starting_stack, Decimal(starting_stack))
    return TableState(
        mode=check_mode(mode),
        status="betting" if solo else "waiting",
        seats=(seat, replace(seat, dealer=solo, empty=not solo)),
    )


def join(state: TableState, *, already_seated: bool = False) -> TableState:
    """A friend takes seat 1; ``already_seated``: the one joining has a seat
    at this table already.

    >>> join(start("friend")).status
    'betting'
    """
    if state.mode != "friend":
        raise TableFull("This is a solo table: its other seat is the dealer's.")
    if already_seated:
        raise SeatTaken("You already have a seat at this table.")
    if not state.seats[1].empty:
        raise TableFull()
    seats = (state.seats[0], replace(state.seats[1], empty=False))
    return _touch(state, seats=seats, status="betting")


# --- stakes -----------------------------------------------------------------------


def _touch(state: TableState, **changes: object) -> TableState:
    """``state`` with ``changes`` and the next version: a change a seat sees."""
    return replace(state, **changes, version=state.version + 1)  # type: ignore[arg-type]


def _check_seat(state: TableState, seat: int) -> None:
    if seat not in (0, 1) or state.seats[seat].empty or state.seats[seat].dealer:
        raise NotSeated()


def _require_betting(state: TableState) -> None:
    if state.status == "waiting":
        raise TableWaiting()
    if state.status == "finished":
        if min(seat.stack for seat in state.seats) <= 0:
            raise TableFinished()
        # Closed by a player, or by the idle upkeep, with chips on both sides.
        raise TableFinished("This table was closed. Open a new table to play again.")
    if state.status == "playing":
        raise DealInProgress()


def check_stake(state: TableState, amount: object) -> int:
    """``amount`` as a stake at this table: a whole number of chips from 1 to
    the smaller stack.

    >>> check_stake(start("solo"), 1000)
    1000
    >>> try:
    ...     check_stake(start("solo"), 1001)
    ... except StakeTooHigh as refusal:
    ...     print(refusal.detail)  # doctest: +NORMALIZE_WHITESPACE
    A stake of 1001 is more than the smaller stack:
    the most you can stake is 1000.
    """
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidStake()
    if amount < 1:
        raise InvalidStake("A stake is at least 1 chip.")
    limit = state.max_stake
    if amount > limit:
        raise StakeTooHigh(
            f"A stake of {amount} is more than the smaller stack: the most you can stake is "
            f"{limit}."
        )
    return amount


def _agree(state: TableState, stake: int) -> TableState:
    return _touch(state, stake=stake, stake_proposed=None, stake_proposed_by=None)


def _propose(state: TableState, seat: int, stake: int) -> TableState:
    """``seat`` proposes ``stake`` (replacing any open proposal), under a new
    id: the version this change gives the table."""
    return _touch(
        state,
        stake=None,
        stake_proposed=stake,
        stake_proposed_by=seat,
        stake_proposal=state.version + 1,
    )


def propose(state: TableState, seat: int, amount: object) -> TableState:
    """``seat`` proposes the next deal's stake. The solo dealer accepts at
    once; with a friend the proposal waits for the other seat (a new proposal
    replaces it).

    >>> table = propose(join(start("friend")), 1, 20)
    >>> table.stake, table.stake_proposed, table.stake_proposed_by, table.stake_proposal
    (None, 20, 1, 2)
    """
    _check_seat(state, seat)
    _require_betting(state)
    stake = check_stake(state, amount)
    if state.mode == "solo":
        return _agree(state, stake)
    return _propose(state, seat, stake)


def _proposal_of_other(state: TableState, seat: int) -> int | None:
    """The amount the other seat proposes now, or None."""
    if state.stake_proposed is None or state.stake_proposed_by == seat:
        return None
    return state.stake_proposed


def _not_agreed(state: TableState, seat: int, amount: int, proposal: int) -> GameError:
    """Why an accept of ``amount`` under id ``proposal``, not the other seat's
    open proposal, agrees nothing, saying the stake as it is now."""
    offered = _proposal_of_other(state, seat)
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
    if state.stake_proposed is not None and state.stake_proposal == proposal:
        return NoStakeProposal()  # one's own proposal
    if state.stake_proposed is not None:
        return StakeChanged(
            f"You have since proposed {state.stake_proposed} chips yourself, so nothing was "
            "agreed: wait for your friend to accept it, or propose another stake."
        )
    if state.stake is not None and state.stake != amount:
        return StakeChanged(
            f"The stake was agreed at {state.stake} chips before you accepted {amount}, so "
            f"your accept changed nothing. Deal at {state.stake} or propose another stake."
        )
    if state.stake is not None:
        return NoStakeProposal(
            f"The stake is already agreed at {state.stake} chips: deal, or propose another stake."
        )
    return NoStakeProposal()


def accept(state: TableState, seat: int, *, amount: int, proposal: int) -> TableState:
    """``seat`` accepts the other seat's proposed stake: the one the player
    saw, named by its ``amount`` and its ``proposal`` id. A proposal replaced
    in between (or gone) agrees nothing, and the refusal says the stake as it
    is now.

    >>> table = propose(join(start("friend")), 0, 10)
    >>> accept(table, 1, amount=10, proposal=2).stake
    10
    >>> try:
    ...     accept(propose(table, 0, 900), 1, amount=10, proposal=2)
    ... except StakeChanged as refusal:
    ...     print(refusal.detail)  # doctest: +NORMALIZE_WHITESPACE
    Your friend changed the stake to 900 chips before you accepted, so nothing
    was agreed. Accept 900 or propose another stake.
    """
    _check_seat(state, seat)
    _require_betting(state)
    offered = _proposal_of_other(state, seat)
    if offered is None or offered != amount or state.stake_proposal != proposal:
        raise _not_agreed(state, seat, amount, proposal)
    return _agree(state, check_stake(state, offered))


# --- deals ------------------------------------------------------------------------


def _dealt(state: TableState, stake: int) -> TableState:
    """The next deal in progress at ``stake``: the solo dealer's side is locked
    as it is dealt (the house way), a friend's is not."""
    return _touch(
        state,
        status="playing",
        stake=None,
        last_stake=stake,
        deals_count=state.deals_count + 1,
        locked=(state.seats[0].dealer, state.seats[1].dealer),
    )


def deal(state: TableState, seat: int) -> TableState:
    """``seat`` deals at the agreed stake (the caller shuffles and deals the
    cards of deal number ``deals_count`` of the new state).

    >>> deal(join(start("friend")), 0)
    Traceback (most recent call last):
    ...
    games.engine.errors.StakeNotAgreed: Agree a stake before dealing.
    """
    _check_seat(state, seat)
    _require_betting(state)
    if state.stake is None:
        raise StakeNotAgreed()
    return _dealt(state, check_stake(state, state.stake))


def rebet(state: TableState, seat: int, *, amount: int, proposal: int | None = None) -> TableState:
    """``seat`` bets the last stake again: ``amount``, the last stake the
    player saw (a different one now is refused). Solo: deal at once. With a
    friend: accept the other seat's proposal when it is of that amount and,
    when ``proposal`` names one, is that proposal; otherwise propose the last
    stake. Either seat then deals.

    >>> table = reveal(lock(deal(propose(start("solo"), 0, 35), 0), 0), ("push", "push"))
    >>> rebet(table, 0, amount=35).deals_count
    2
    >>> try:
    ...     rebet(table, 0, amount=900)
    ... except StakeChanged as refusal:
    ...     print(refusal.detail)  # doctest: +NORMALIZE_WHITESPACE
    The last stake is now 35 chips, not 900, so nothing was bet.
    Rebet 35 or choose another stake.
    """
    _check_seat(state, seat)
    _require_betting(state)
    if state.last_stake is None:
        raise NoLastStake()
    if state.last_stake != amount:
        raise StakeChanged(
            f"The last stake is now {state.last_stake} chips, not {amount}, so nothing "
            f"was bet. Rebet {state.last_stake} or choose another stake."
        )
    stake = check_stake(state, state.last_stake)
    if state.mode == "solo":
        return _dealt(state, stake)
    named = proposal is None or state.stake_proposal == proposal
    if _proposal_of_other(state, seat) == stake and named:
        return _agree(state, stake)
    return _propose(state, seat, stake)


# --- settings and the reveal -------------------------------------------------------


def _check_open_deal(state: TableState, deal_number: int | None = None) -> None:
    """Refuse unless a deal is in progress (and, when ``deal_number`` is given,
    it is that deal): the latest deal is number ``deals_count``, and it is in
    progress exactly while the table is "playing"."""
    open_now = state.status == "playing"
    if not open_now or deal_number not in (None, state.deals_count):
        if state.deals_count and not open_now and deal_number in (None, state.deals_count):
            raise AlreadyRevealed()
        raise NoDeal()


def lock(state: TableState, seat: int, *, deal_number: int | None = None) -> TableState:
    """``seat`` locks its setting for the deal in progress (the caller has
    checked the setting). When that completes both sides the deal is due to
    be revealed (``reveal_due``), in the same transaction: the reveal marks
    the table changed, so this lock does not; otherwise the other seat now
    sees this side locked.

    >>> table = deal(propose(start("solo"), 0, 5), 0)
    >>> lock(table, 0).reveal_due, lock(table, 0).version == table.version
    (True, True)
    >>> lock(lock(table, 0), 0)
    Traceback (most recent call last):
    ...
    games.engine.errors.AlreadyLocked: You have already locked your setting for this deal.
    """
    _check_seat(state, seat)
    _check_open_deal(state, deal_number)
    if state.locked[seat]:
        raise AlreadyLocked()
    locked = (True, state.locked[1]) if seat == 0 else (state.locked[0], True)
    if all(locked):
        return replace(state, locked=locked)
    return _touch(state, locked=locked)


def check_reveal(state: TableState) -> None:
    """Refuse unless a deal is in progress with both sides locked (before the
    caller settles it).

    >>> check_reveal(deal(propose(start("solo"), 0, 5), 0))
    Traceback (most recent call last):
    ...
    games.engine.errors.NotReadyToReveal: Both sides must lock a setting before the reveal.
    """
    _check_open_deal(state)
    if not all(state.locked):
        raise NotReadyToReveal()


def reveal(state: TableState, results: tuple[str, str]) -> TableState:
    """Settle the deal in progress, both sides locked, with ``results``: seat
    0's and seat 1's (a win for one is a loss for the other). Both ledgers
    move by the deal's stake (``last_stake``); the table is finished when a
    stack is at 0, and otherwise agrees the next stake afresh.

    >>> table = lock(deal(propose(start("solo"), 0, 1000), 0), 0)
    >>> done = reveal(table, ("loss", "win"))
    >>> done.status, done.seats[1].stack, done.seats[1].with_commission
    ('finished', 2000, Decimal('1950.00'))
    """
    check_reveal(state)
    first, second = results
    if mirror_result(first) != second:
        raise ValueError(f"“{first}” and “{second}” are not the two sides of one deal.")
    stake = state.last_stake
    if stake is None:  # pragma: no cover - a deal in progress has its stake
        raise NoDeal()
    seats = []
    for chips, result in zip(state.seats, results, strict=True):
        delta = ledger_delta(result, stake)
        seats.append(
            replace(
                chips,
                stack=chips.stack + delta.actual,
                with_commission=chips.with_commission + delta.with_commission,
            )
        )
    finished = min(seat.stack for seat in seats) <= 0
    return _touch(
        state,
        seats=(seats[0], seats[1]),
        status="finished" if finished else "betting",
        stake=None,
        stake_proposed=None,
        stake_proposed_by=None,
        locked=(False, False),
    )

