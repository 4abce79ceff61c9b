"""A socket message's round trips to PostgreSQL, BEGIN and COMMIT included.

psycopg sends a transaction's BEGIN as a round trip of its own before the
first statement, and Django's COMMIT as another after the last. A socket
message sends its BEGIN with the table's open and its COMMIT with its
writes (``games.sql``): these tests hold that, in real transactions (not a
test's), and hold that the transaction is still one: refused, it changes
nothing; the connection is left as Django thinks it is."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import count
from typing import Any

import psycopg
import pytest
from django.contrib.sessions.models import Session
from django.db import ProgrammingError, connection, transaction
from django.test import Client

from accounts.models import User
from games import sql
from games.engine.errors import SessionEnded, StakeTooHigh
from games.models import ClientMessage, Seat, Table
from games.realtime.apply import message_apply
from games.realtime.messages import Message
from games.realtime.session import SignedIn
from tests.support import STRONG, WEAK, deck_with, friend_table, house_front, seen

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="BEGIN and COMMIT are folded on PostgreSQL"
    ),
]

ids = count(1)


class RoundTrips:
    """What went to the server, in order: each statement Django executed
    (``"sql"``) and each command psycopg sent of its own (``"psycopg"``: its
    BEGIN, COMMIT or ROLLBACK)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def clear(self) -> None:
        self.sent.clear()

    def of_one_transaction(self) -> list[tuple[str, str]]:
        """What was sent up to the first COMMIT or ROLLBACK (after it, a
        message's on-commit callbacks may run tasks in place, embedded)."""
        for i, (_, text) in enumerate(self.sent):
            if text.endswith(("COMMIT", "ROLLBACK")):
                return self.sent[: i + 1]
        return list(self.sent)


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[RoundTrips]:
    seen_ = RoundTrips()
    own = psycopg.Connection._exec_command

    def exec_command(self: Any, command: Any, *args: Any, **kwargs: Any) -> Any:
        seen_.sent.append(("psycopg", bytes(command).decode()))
        return own(self, command, *args, **kwargs)

    def execute(run: Callable[..., Any], sql_: str, *args: Any) -> Any:
        try:
            return run(sql_, *args)
        finally:  # after any BEGIN psycopg sent first
            seen_.sent.append(("sql", sql_))

    monkeypatch.setattr(psycopg.Connection, "_exec_command", exec_command)
    with connection.execute_wrapper(execute):
        yield seen_


def signed_in(user: User) -> SignedIn:
    client = Client()
    client.force_login(user)
    return SignedIn(client.cookies["sessionid"].value, user.pk)


def send(trips: RoundTrips, user: User, table: Table, kind: str, **fields: Any) -> object:
    """Apply a socket's message; ``trips`` holds what it sent (the session
    row and seat read before it are not counted)."""
    signed, seat = signed_in(user), Seat.objects.get(table=table, user=user).pk
    trips.clear()
    return message_apply(
        user=user, table_id=table.pk, message=Message(kind, fields, next(ids)),
        signed_in=signed, seat_id=seat,
    ).result


def test_a_sockets_message_sends_its_begin_with_the_open_and_its_commit_with_its_writes(
    player: User, friend: User, trips: RoundTrips, rig: Callable[..., None]
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = friend_table(player, friend)
    ran = {}
    for kind, user, fields in [
        ("stake", player, {"amount": 7}),
        ("accept_stake", friend, {"amount": 7}),
        ("deal", player, {}),
        ("lock", player, {"front": house_front(STRONG), "deal": 1}),
        ("lock", friend, {"front": house_front(WEAK), "deal": 1}),
    ]:
        if kind == "accept_stake":
            fields["proposal"] = seen(friend, table.pk)["proposal"]["id"]
        send(trips, user, table, kind, **fields)
        sent = trips.of_one_transaction()
        assert [who for who, _ in sent] == ["sql"] * len(sent), kind  # no BEGIN of psycopg's
        assert sent[0][1].startswith("BEGIN; "), kind
        assert sent[-1][1].endswith("; COMMIT"), kind
        ran["reveal" if kind == "lock" and user == friend else kind] = len(sent)
    # The open, then the writes with the COMMIT; a deal inserts the deal and
    # its hands first, a reveal the ledger's entries.
    assert ran == {"stake": 2, "accept_stake": 2, "deal": 4, "lock": 2, "reveal": 3}
    assert Table.objects.get(pk=table.pk).deals_count == 1
    assert ClientMessage.objects.filter(seat__table=table).count() == 5


def test_the_connection_is_left_as_django_thinks_it_is(
    player: User, friend: User, trips: RoundTrips
) -> None:
    table = friend_table(player, friend)
    send(trips, player, table, "stake", amount=7)
    raw = connection.connection
    assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    assert raw.autocommit is connection.get_autocommit() is True
    # The next block is a transaction of its own: rolled back, it changed nothing.
    with transaction.atomic():
        Table.objects.filter(pk=table.pk).update(deals_count=99)
        transaction.set_rollback(True)
    assert Table.objects.get(pk=table.pk).deals_count == 0


def test_a_refused_message_changes_nothing_though_its_begin_went_with_the_open(
    player: User, friend: User, trips: RoundTrips
) -> None:
    table = friend_table(player, friend)
    with pytest.raises(StakeTooHigh):
        send(trips, player, table, "stake", amount=10**6)
    assert trips.sent[0][0] == "sql"
    assert trips.sent[0][1].startswith("BEGIN; ")
    assert trips.sent[1:] == [("psycopg", "ROLLBACK")]
    assert Table.objects.get(pk=table.pk).stake_proposal is None
    assert not ClientMessage.objects.filter(seat__table=table).exists()
    send(trips, player, table, "stake", amount=7)  # and the connection goes on
    assert Table.objects.get(pk=table.pk).stake_proposed == 7


def test_an_ended_session_refuses_the_message_and_the_claim_rolls_back(
    player: User, friend: User
) -> None:
    table = friend_table(player, friend)
    signed = signed_in(player)
    Session.objects.filter(session_key=signed.session_key).delete()
    seat = Seat.objects.get(table=table, user=player).pk
    with pytest.raises(SessionEnded):
        message_apply(
            user=player, table_id=table.pk, message=Message("stake", {"amount": 7}, 1),
            signed_in=signed, seat_id=seat,
        )
    assert not ClientMessage.objects.filter(seat__table=table).exists()


def test_a_statement_that_was_never_sent_leaves_the_begin_to_psycopg(
    player: User, trips: RoundTrips
) -> None:
    unadaptable = sql.Read("SELECT %s", [object()], lambda columns, rows: rows)
    with transaction.atomic():
        with pytest.raises(ProgrammingError):
            sql.read_all(unadaptable)
        assert connection.connection.autocommit is False
        trips.clear()
        User.objects.filter(pk=player.pk).update(first_name="Ada")
        assert trips.sent[0] == ("psycopg", "BEGIN")
        transaction.set_rollback(True)
    assert User.objects.get(pk=player.pk).first_name == ""


def test_writes_and_commit_go_together_only_at_the_end_of_the_outermost_block(
    player: User, friend: User, trips: RoundTrips
) -> None:
    table = friend_table(player, friend)
    committed: list[str] = []
    with transaction.atomic():
        Table.objects.select_for_update().get(pk=table.pk)
        transaction.on_commit(lambda: committed.append("outer"))
        with transaction.atomic():  # a savepoint: written at once, committed with the rest
            with sql.saves_then_commit():
                table.deals_count = 3
                sql.save(table, ["deals_count"])
            assert connection.connection.info.transaction_status != (
                psycopg.pq.TransactionStatus.IDLE
            )
        with sql.saves_then_commit():
            table.deals_count = 4
            sql.save(table, ["deals_count"])
            assert committed == []
        assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        assert trips.sent[-1][1].endswith("; COMMIT")
        assert committed == []  # Django's callbacks wait for the block's end, as ever
    assert committed == ["outer"]
    assert Table.objects.get(pk=table.pk).deals_count == 4


def test_saves_then_commit_writes_nothing_when_its_block_raises(
    player: User, friend: User
) -> None:
    table = friend_table(player, friend)

    def refused() -> None:
        with transaction.atomic():
            Table.objects.select_for_update().get(pk=table.pk)
            with sql.saves_then_commit():
                table.deals_count = 5
                sql.save(table, ["deals_count"])
                raise RuntimeError

    with pytest.raises(RuntimeError):
        refused()
    assert Table.objects.get(pk=table.pk).deals_count == 0
