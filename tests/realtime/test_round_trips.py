"""A socket message's round trips to PostgreSQL, BEGIN and COMMIT included.

What goes on the wire is what the source reads, in its order: one round
trip of reads that begins the transaction (BEGIN, the table's row locked,
the seats, the latest deal, the session, what the message's id was recorded
for: ``games.reads`` and ``games.folds``), the ORM's inserts as the services
make them, and the transition's writes with the id's row
(``services.updates``) that end it with its COMMIT. These tests hold that
in real transactions (not a test's), and hold that the transaction is one:
refused, it changes nothing; the connection is left as Django thinks it
is."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count
from typing import Any

import psycopg
import pytest
from django.contrib.sessions.models import Session
from django.db import connection, transaction
from django.test import Client

from accounts.models import User
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
def trips(monkeypatch: pytest.MonkeyPatch) -> RoundTrips:
    """What psycopg sent, as sent (after ``games.folds`` added its BEGIN or
    COMMIT to a statement)."""
    seen_ = RoundTrips()
    own_command = psycopg.Connection._exec_command
    own_execute = psycopg.ClientCursor.execute

    def exec_command(self: Any, command: Any, *args: Any, **kwargs: Any) -> Any:
        seen_.sent.append(("psycopg", bytes(command).decode()))
        return own_command(self, command, *args, **kwargs)

    def execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return own_execute(self, query, *args, **kwargs)
        finally:  # after any BEGIN psycopg sent first
            seen_.sent.append(("sql", str(query)))

    monkeypatch.setattr(psycopg.Connection, "_exec_command", exec_command)
    monkeypatch.setattr(psycopg.ClientCursor, "execute", execute)
    return seen_


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
        user=user,
        table_id=table.pk,
        message=Message(kind, fields, next(ids)),
        signed_in=signed,
        seat_id=seat,
    ).result


def test_a_sockets_message_goes_on_the_wire_in_the_order_its_source_reads(
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
        assert all(by == "sql" for by, _ in sent), (kind, sent)  # none of psycopg's own
        begin, lock, *reads = sent[0][1].split("; ")
        assert begin == "BEGIN", kind
        assert lock == 'SELECT * FROM "games_table" WHERE id = %s FOR UPDATE', kind
        assert len(reads) == 4, kind  # the seats, the deal, the session, the id
        *saves, commit = sent[-1][1].rsplit("; ", 1)
        assert commit == "COMMIT", kind
        ran["reveal" if kind == "lock" and user == friend else kind] = [
            _written(text) for _, text in [*sent[1:-1], ("sql", *saves)]
        ]
    saves = "WITH (UPDATE ...)"
    assert ran == {
        "stake": [saves],
        "accept_stake": [saves],
        "deal": ['INSERT "games_deal"', 'INSERT "games_hand"', saves],
        "lock": [saves],
        "reveal": [saves],  # the ledger's entries with the saves
    }
    assert Table.objects.get(pk=table.pk).deals_count == 1
    assert ClientMessage.objects.filter(seat__table=table).count() == 5


def _written(text: str) -> str:
    """An INSERT by its table, or the one statement of a transition's saves."""
    if text.startswith("WITH "):
        assert 'INSERT INTO "games_clientmessage"' in text  # the message's id
        return "WITH (UPDATE ...)"
    return " ".join(text.replace(" INTO ", " ").split()[:2])


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


def test_a_refused_message_changes_nothing(player: User, friend: User, trips: RoundTrips) -> None:
    table = friend_table(player, friend)
    with pytest.raises(StakeTooHigh):
        send(trips, player, table, "stake", amount=10**6)
    assert trips.sent[0][1].startswith("BEGIN; ")
    assert trips.sent[-1] == ("psycopg", "ROLLBACK")
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
            user=player,
            table_id=table.pk,
            message=Message("stake", {"amount": 7}, 1),
            signed_in=signed,
            seat_id=seat,
        )
    assert not ClientMessage.objects.filter(seat__table=table).exists()
