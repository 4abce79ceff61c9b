"""Domain errors: each has a stable ``code`` and a ``detail`` sentence a player
can act on. A service raises one before it changes anything (or inside the
transaction, which then rolls back), so a refused action changes nothing.

``error_payload`` is the one mapping to the wire shape
``{"error": code, "detail": sentence}``, used by the table socket and by the
REST exception handler (``games.api.errors``).
"""

from __future__ import annotations

from typing import Any, ClassVar


class GameError(Exception):
    """Base of every domain error."""

    code: ClassVar[str] = "game_error"
    default_detail: ClassVar[str] = "That is not possible right now."
    status: ClassVar[int] = 409  # the HTTP status REST answers with

    def __init__(self, detail: str | None = None) -> None:
        self.detail = detail or self.default_detail
        super().__init__(self.detail)


class TableNotFound(GameError):
    code = "table_not_found"
    default_detail = "There is no such table, or you do not have a seat at it."
    status = 404


class NotSeated(GameError):
    code = "not_seated"
    default_detail = "You do not have a seat at this table."
    status = 403


class TableWaiting(GameError):
    code = "table_waiting"
    default_detail = "Your friend has not joined yet: wait for them to take the other seat."


class TableFinished(GameError):
    code = "table_finished"
    default_detail = (
        "This table is finished: a stack is at 0 chips. Open a new table to play again."
    )


class SeatTaken(GameError):
    code = "seat_taken"
    default_detail = "Both seats at this table are taken."


class TableFull(SeatTaken):
    """No seat left for a newcomer (a kind of ``SeatTaken``)."""

    code = "table_full"
    default_detail = "This table is full: both seats are taken."


class NotHost(GameError):
    code = "not_host"
    default_detail = "Only the player who opened this table can invite a friend to it."
    status = 403


class InviteNotFound(GameError):
    code = "invite_not_found"
    default_detail = (
        "That invite link is not valid. Check that you copied all of it, or ask for a new one."
    )
    status = 404


class InviteExpired(GameError):
    code = "invite_expired"
    default_detail = "That invite link has expired. Ask your friend for a new one."
    status = 410


class InviteRevoked(GameError):
    code = "invite_revoked"
    default_detail = "That invite link was withdrawn. Ask your friend for a new one."
    status = 410


class InviteUsed(GameError):
    code = "invite_used"
    default_detail = "That invite link has already been used. Ask your friend for a new one."
    status = 410


class NoOpenInvite(GameError):
    code = "no_open_invite"
    default_detail = "This table has no open invite link to withdraw."


class InviteThrottled(GameError):
    code = "invite_throttled"
    default_detail = "Too many invite links tried. Try again in a few minutes."
    status = 429


class InvalidStake(GameError):
    code = "stake_invalid"
    default_detail = "A stake is a whole number of chips, at least 1."
    status = 400


class StakeTooHigh(GameError):
    code = "stake_too_high"
    default_detail = "That stake is more than the smaller stack."
    status = 400


class NoStakeProposal(GameError):
    code = "stake_no_proposal"
    default_detail = "There is no stake from the other side to accept."


class StakeChanged(GameError):
    """An accept (or a rebet) named a stake that is no longer the one on the
    table: nothing is agreed on a stake the player did not see. The services
    say what the stake is now."""

    code = "stake_changed"
    default_detail = (
        "The stake changed before you answered, so nothing was agreed: look at the new "
        "stake, then accept it or propose another."
    )


class StakeNotAgreed(GameError):
    code = "stake_not_agreed"
    default_detail = "Agree a stake before dealing."


class NoLastStake(GameError):
    code = "no_last_stake"
    default_detail = "There is no earlier stake to bet again: choose a stake and deal."


class DealInProgress(GameError):
    code = "deal_in_progress"
    default_detail = "A deal is in progress: finish it before starting another."


class NoDeal(GameError):
    code = "no_deal"
    default_detail = "There is no deal in progress: choose a stake and deal."


class InvalidSetting(GameError):
    code = "setting_invalid"
    default_detail = "Set two of your seven cards in front and the other five in back."
    status = 400


class FoulNotConfirmed(GameError):
    code = "foul_unconfirmed"
    default_detail = "That setting is a foul. Lock anyway to play it as a foul."


class AlreadyLocked(GameError):
    code = "already_locked"
    default_detail = "You have already locked your setting for this deal."


class AlreadyRevealed(GameError):
    code = "already_revealed"
    default_detail = "This deal has already been revealed and settled."


class NotReadyToReveal(GameError):
    code = "not_ready_to_reveal"
    default_detail = "Both sides must lock a setting before the reveal."


class NotRevealed(GameError):
    code = "not_revealed"
    default_detail = "Luck is recorded after the reveal."


class InvalidLuck(GameError):
    code = "luck_invalid"
    default_detail = "A luck estimate is wins, pushes and losses over 120 samples."
    status = 400


class LuckAlreadyRecorded(GameError):
    code = "luck_already_recorded"
    default_detail = "The luck of this hand is already recorded."


class BadMessage(GameError):
    """A socket message that is not JSON, not an object, or has the wrong fields."""

    code = "bad_message"
    default_detail = "That message is not in the table's protocol."
    status = 400


class UnknownMessage(BadMessage):
    code = "unknown_type"
    default_detail = "That message type is not one the table understands."


class IdReused(BadMessage):
    """A resend whose ``id`` this seat already used for a different message."""

    code = "id_reused"
    default_detail = (
        "That “id” was already used for a different message: give every new message a new id."
    )


class TooManyMessages(GameError):
    """A socket sent faster than ``SOCKET_MESSAGES_PER_SECOND`` for longer than
    its burst allows (``games.realtime.table_socket``); if it goes on, it is closed."""

    code = "too_many_messages"
    default_detail = (
        "Too many messages too fast: this one was not handled. Wait a moment, then send it "
        "again; a socket that keeps sending this fast is closed."
    )
    status = 429


class TooManySockets(GameError):
    """A user already has ``SOCKETS_PER_USER`` table sockets open."""

    code = "too_many_sockets"
    default_detail = (
        "You have too many table pages open. Close one of them, then reload this page."
    )
    status = 429


class SessionEnded(GameError):
    """The session a socket signed in with ended (a sign-out, a password
    change, a session deleted): the socket is closed with 4401."""

    code = "session_ended"
    default_detail = "You were signed out. Sign in again to play."
    status = 401


class PracticeHandNotFound(GameError):
    code = "practice_not_found"
    default_detail = (
        "There is no such practice hand, or it is not yours: deal a new one on the practice page."
    )
    status = 404


class PracticeAlreadyLocked(GameError):
    code = "practice_already_locked"
    default_detail = (
        "You have already locked this practice hand: deal the next hand to practise again."
    )


class UnknownDrill(GameError):
    code = "drill_unknown"
    default_detail = "There is no such drill: choose one of the drills on the practice page."
    status = 400


class ServerError(GameError):
    code = "server_error"
    default_detail = "Something went wrong on the server and nothing changed. Try again."
    status = 500


class OutcomeUnknown(GameError):
    """The database failed while the change was committing, or after: it may
    have been applied or not. Resending the message with the same id is
    safe, and says which: applied once (``replayed`` if it had been)."""

    code = "outcome_unknown"
    default_detail = (
        "The server lost its database connection while saving this, so it may or may not "
        "have been applied. It is sent again with the same id."
    )
    status = 503


def error_payload(exc: GameError) -> dict[str, Any]:
    """The wire shape of a domain error, for the socket and for REST alike."""
    return {"error": exc.code, "detail": exc.detail}
