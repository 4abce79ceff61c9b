"""Property-based fuzzing of the table socket (hypothesis), and message ids.

A friend table with a deal in progress that the fuzzed seat has not locked:
in that state no frame the fuzzer makes may change anything. Random text and
bytes, JSON of every shape, registered types with wrong, missing or extra
fields, huge and deeply nested payloads, unknown cards, the other side's
cards, out-of-order actions and bad ids: each gets exactly one answer (an
error frame; ``state``/``pong`` for those two), the table, both ledgers and the
stored ids are unchanged, no answer shows a hidden card or the secret, and the
socket still answers a ping afterwards.

Then ids: a resent action with the same ``id`` is applied once and answered
with the same result (the current ``state``, marked ``replayed``), for every
action type, across a reconnect; an id reused for another message is refused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import User
from games import engine, services
from games.models import ClientMessage, Deal, Presence, Table
from games.realtime import messages as protocol
from tests.sockets import assert_no_leak, db_snapshot, hidden_cards, join
from tests.support import (
    STRONG,
    WEAK,
    deck_with,
    friend_table,
    friends_mid_deal,
    house_front,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

Rig = Callable[..., None]

FUZZED = {"frames": 0, "examples": 0}
# Examples per run (each a fresh socket and 1-8 frames); FUZZ_EXAMPLES=1000 for a long run.
FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))

MINE = STRONG.split()  # seat 0's seven cards
THEIRS = WEAK.split()
REST = [c for c in engine.DECK if c not in MINE + THEIRS]
JUNK_CARDS = ["", "X", "Xx", "1s", "10h", "AS", "as", "Ahh", "JK ", "🂡", "As\u0000", "null"]
ERROR_CODES = {
    "bad_message", "unknown_type", "deal_in_progress", "setting_invalid", "table_full",
    "no_deal", "not_revealed", "luck_invalid", "stake_invalid", "stake_too_high",
    "already_locked", "foul_unconfirmed", "id_reused",
}


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Iterator[None]:
    yield
    print(f"\nsocket fuzz: {FUZZED['frames']} frames in {FUZZED['examples']} examples")


# --- strategies ---------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
ids = st.one_of(
    st.none(), st.text(max_size=80), st.integers(), st.floats(), st.booleans(),
    st.lists(st.integers(), max_size=2),
)
not_mine = st.sampled_from(THEIRS + REST[:6] + JUNK_CARDS)
any_card = st.sampled_from(MINE + THEIRS + JUNK_CARDS)


def _with_id(message: dict[str, Any], draw_id: Any) -> dict[str, Any]:
    return message if draw_id is None else {**message, "id": draw_id}


@st.composite
def bad_locks(draw: st.DrawFn) -> dict[str, Any]:
    """A lock that is never a setting of seat 0's own seven cards."""
    shape = draw(st.integers(0, 3))
    if shape == 0:  # a front with at least one card that is not mine
        front = [draw(not_mine), draw(any_card)]
        message: dict[str, Any] = {"type": "lock", "front": draw(st.permutations(front))}
    elif shape == 1:  # my front, a back with a card that is not mine
        back = [*MINE[2:6], draw(not_mine)]
        message = {"type": "lock", "front": MINE[:2], "back": back}
    elif shape == 2:  # duplicates, or front and back overlapping
        message = {"type": "lock", "front": [MINE[0], MINE[0]], "back": MINE[2:7]}
    else:  # wrong sizes and types
        message = {
            "type": "lock",
            "front": draw(st.one_of(st.lists(any_card, max_size=4), json_values)),
        }
    if draw(st.booleans()):
        message["confirm_foul"] = draw(st.one_of(st.booleans(), json_values))
    if draw(st.booleans()):
        message["deal"] = draw(st.one_of(st.integers(), json_values))
    return message


@st.composite
def registered(draw: st.DrawFn) -> dict[str, Any]:
    """A registered type with random, wrong, missing or extra fields."""
    kind = draw(st.sampled_from(sorted(set(protocol.MESSAGES) - {"lock"})))
    message: dict[str, Any] = {"type": kind}
    for name in protocol.MESSAGES[kind]:
        if draw(st.booleans()):
            message[name] = draw(st.one_of(st.integers(), json_values))
    if draw(st.integers(0, 4)) == 0:
        message[draw(st.text(min_size=1, max_size=10))] = draw(json_values)
    return message


well_typed = st.one_of(
    st.builds(lambda n: {"type": "stake", "amount": n}, st.integers(-(10**9), 10**9)),
    # Proposal ids are table versions: small numbers name real ones at times.
    st.builds(
        lambda n, p: {"type": "accept_stake", "amount": n, "proposal": p},
        st.integers(1, 10**9), st.integers(0, 60),
    ),
    st.just({"type": "deal"}),
    st.builds(lambda n: {"type": "rebet", "amount": n}, st.integers(1, 10**9)),
    st.builds(
        lambda n, p: {"type": "rebet", "amount": n, "proposal": p},
        st.integers(1, 10**9), st.integers(0, 60),
    ),
    st.just({"type": "invite_new"}),
    st.just({"type": "invite_revoke"}),
    st.builds(
        lambda d, w, p, lost: {"type": "luck", "deal": d, "wins": w, "pushes": p, "losses": lost},
        st.integers(1, 3), st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 10_000),
    ),
)

messages = st.builds(
    _with_id, st.one_of(bad_locks(), registered(), well_typed, st.just({"type": "state"})), ids
)


@st.composite
def frames(draw: st.DrawFn) -> tuple[str | None, bytes | None]:
    """One frame as sent on the wire: (text, None) or (None, bytes)."""
    shape = draw(st.integers(0, 9))
    if shape == 0:
        return draw(st.text(max_size=200)), None
    if shape == 1:
        return None, draw(st.binary(max_size=200))
    if shape == 2:
        return json.dumps(draw(json_values)), None
    if shape == 3:  # huge: past the 2,048-character limit, up to 200 KB
        size = draw(st.integers(protocol.MAX_FRAME_CHARS + 1, 200_000))
        return json.dumps({"type": "stake", "amount": 5, "pad": "x" * size}), None
    if shape == 4:  # deep nesting, within the size limit
        depth = draw(st.integers(500, 1000))
        return "[" * depth + "]" * depth, None
    if shape == 5:  # a number or string too big for anything
        return json.dumps({"type": "stake", "amount": 10 ** draw(st.integers(10, 400))}), None
    return json.dumps(draw(messages)), None


# --- the fuzz -----------------------------------------------------------------------------


@pytest.fixture
def in_memory_layer(settings: Any) -> Iterator[None]:
    """Hypothesis runs the examples on fresh event loops, which a channels-redis
    layer (one per process, its locks bound to a loop) does not survive; the
    fuzz is about the protocol and the database, so it uses the in-memory layer."""
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def mid_deal(player: User, friend: User, rig: Rig) -> Table:
    """A friend table, deal 1 in progress, neither seat locked."""
    rig(deck_with(STRONG, WEAK))
    return friends_mid_deal(player, friend)


def _stored(table_id: int) -> tuple[object, ...]:
    return (
        db_snapshot(table_id),
        ClientMessage.objects.count(),
        Deal.objects.get(table_id=table_id, number=1).deck_order,
    )


@settings(
    max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large],
)
@given(sent=st.lists(frames(), min_size=1, max_size=8))
async def test_no_fuzzed_frame_changes_anything_or_leaks(
    in_memory_layer: None,
    mid_deal: Table,
    player: User,
    sent: list[tuple[str | None, bytes | None]],
) -> None:
    table_id = mid_deal.pk
    before = await database_sync_to_async(_stored)(table_id)
    seat, hello = await join(player, table_id)
    assert hello["type"] == "state"
    assert hello["deal"]["you"]["locked"] is False
    for text, data in sent:
        # As the server gets it (empty frames included, which send_to refuses).
        frame = {"text": text} if text is not None else {"bytes": data}
        await seat.comm.send_input({"type": "websocket.receive", **frame})
        reply = await seat.receive()
        FUZZED["frames"] += 1
        sent_type = _type_of(text)
        if reply["type"] == "error":
            assert reply["error"] in ERROR_CODES, reply
            assert reply["detail"]
            assert isinstance(reply["detail"], str)
        else:
            assert (reply["type"], sent_type) in {("state", "state"), ("pong", "ping")}, reply
        assert await seat.nothing_more()  # exactly one answer
        assert await database_sync_to_async(_stored)(table_id) == before
    assert (await seat.send({"type": "ping", "id": "still-there"})) == {
        "type": "pong", "id": "still-there",
    }
    secret = await database_sync_to_async(lambda: Deal.objects.get(table_id=table_id).secret)()
    assert_no_leak(seat.frames, await database_sync_to_async(hidden_cards)(table_id, 0), secret)
    await seat.close()
    FUZZED["examples"] += 1
    assert not await database_sync_to_async(Presence.objects.exists)()


def _type_of(text: str | None) -> object:
    try:
        raw = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None
    return raw.get("type") if isinstance(raw, dict) else None


# --- ids: applied once --------------------------------------------------------------------


async def test_every_action_resent_with_its_id_is_applied_once(
    player: User, friend: User, rig: Rig
) -> None:
    rig(deck_with(STRONG, WEAK), deck_with(STRONG, WEAK))
    table = await database_sync_to_async(friend_table)(player, friend)
    ada, _ = await join(player, table.pk)
    grace, _ = await join(friend, table.pk)
    await ada.receive()  # grace connected
    # A heartbeat that saw Grace connect before the connect's refresh came
    # sends Ada a view of its own too: let it come before the counting starts.
    while not await ada.nothing_more():
        await ada.receive()

    async def twice(seat: Any, other: Any, message: dict[str, Any]) -> dict[str, Any]:
        first = await seat.send(message)
        assert first["type"] == "state", first
        await other.receive()  # told once
        stored = await database_sync_to_async(db_snapshot)(table.pk)
        again = await seat.send(message)  # the reply was lost: the client resends
        assert again["type"] == "state"
        assert again["replayed"] is True
        assert again["id"] == first["id"]
        assert "replayed" not in first
        assert {k: v for k, v in again.items() if k != "replayed"} == first
        assert await database_sync_to_async(db_snapshot)(table.pk) == stored
        assert await other.nothing_more()  # and not told again
        return first

    proposed = await twice(ada, grace, {"type": "stake", "amount": 30, "id": "a1"})
    shown = proposed["table"]["proposal"]["id"]
    await twice(grace, ada, {"type": "accept_stake", "amount": 30, "proposal": shown, "id": "g1"})
    await twice(ada, grace, {"type": "deal", "id": "a2"})
    await twice(ada, grace, {"type": "lock", "front": house_front(STRONG), "id": "a3"})
    done = await twice(grace, ada, {"type": "lock", "front": house_front(WEAK), "id": 7})
    assert done["deal"]["revealed"] is True
    luck = {"type": "luck", "deal": 1, "wins": 60, "pushes": 30, "losses": 30, "id": "a4"}
    await twice(ada, grace, luck)
    rebet = await twice(ada, grace, {"type": "rebet", "amount": 30, "id": "a5"})
    again_shown = rebet["table"]["proposal"]["id"]
    await twice(grace, ada, {"type": "rebet", "amount": 30, "proposal": again_shown, "id": "g2"})
    # The ids are kept in the database: after a reconnect (or a restart) the
    # same id is still applied once.
    await ada.close()
    await grace.receive()  # ada gone
    ada, _ = await join(player, table.pk)
    await grace.receive()  # ada back
    # From here each answer is found by its id: a heartbeat that saw the
    # other seat come back before its refresh did sends a view of its own.
    again = await ada.answer({"type": "rebet", "amount": 30, "id": "a5"})
    assert again["replayed"] is True
    assert again["table"]["stake"] == 30
    # A different message under a used id is refused and changes nothing.
    reused = await ada.answer({"type": "stake", "amount": 31, "id": "a1"})
    assert reused["error"] == "id_reused"
    assert reused["id"] == "a1"
    # "7" and 7 are different ids.
    fresh = await grace.answer({"type": "stake", "amount": 12, "id": "7"})
    assert fresh["type"] == "state"
    assert fresh["table"]["proposal"] == {
        "amount": 12, "by": "you", "id": fresh["table"]["version"]
    }
    await ada.receive()
    assert await database_sync_to_async(ClientMessage.objects.count)() == 9
    await ada.close()
    await grace.close()


async def test_a_refused_action_is_not_remembered(player: User, friend: User) -> None:
    """Only applied actions are kept: an error changed nothing, so the same id
    may be sent again once the action is allowed."""
    table = await database_sync_to_async(friend_table)(player, friend)
    ada, _ = await join(player, table.pk)
    assert (await ada.send({"type": "deal", "id": "d"}))["error"] == "stake_not_agreed"
    proposed = await ada.send({"type": "stake", "amount": 10, "id": "s"})
    assert proposed["type"] == "state"
    mine = proposed["table"]["proposal"]["id"]
    own = {"type": "accept_stake", "amount": 10, "proposal": mine, "id": "x"}  # her own proposal
    assert (await ada.send(own))["error"] == "stake_no_proposal"
    assert await database_sync_to_async(ClientMessage.objects.count)() == 1
    await ada.close()


async def test_the_invite_actions_are_applied_once(player: User) -> None:
    table = await database_sync_to_async(services.table_start)(user=player, mode="friend")
    ada, hello = await join(player, table.pk)
    first = await ada.send({"type": "invite_new", "id": "n"})
    assert first["table"]["invite"]["url"] != hello["table"]["invite"]["url"]
    again = await ada.send({"type": "invite_new", "id": "n"})
    assert again["replayed"] is True
    assert again["table"]["invite"] == first["table"]["invite"]
    assert (await ada.send({"type": "invite_revoke", "id": "r"}))["table"]["invite"] is None
    assert (await ada.send({"type": "invite_revoke", "id": "r"}))["replayed"] is True
    count = await database_sync_to_async(lambda: table.invites.count())()
    assert count == 2  # the first link and one new one
    await ada.close()
