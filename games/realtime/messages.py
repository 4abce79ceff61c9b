"""The table socket's messages: the one registry of types, shapes and handlers.

Every client frame is checked here before anything else happens: size, JSON,
an object with a known ``type``, exactly the registered fields with the right
types and sizes, and an optional ``id`` (echoed in the reply). Anything else
is a ``BadMessage``/``UnknownMessage`` and changes nothing. The rules are not
checked here (the services and the engine do that); only the shape is. Each
type is registered with the service that handles it, in the transaction
``apply.message_apply`` opens.
``docs/protocol.md`` documents the same registry for people.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import services
from ..engine.errors import BadMessage, UnknownMessage
from ..services import OpenTable

MAX_FRAME_CHARS = 2048
MAX_ID_CHARS = 64
MAX_INT = 10**9
MAX_PROPOSAL = 2**63 - 1  # a proposal id is a table version (a big integer column)


@dataclass(frozen=True)
class Spec:
    """One field: its kind and limits."""

    kind: str  # "int", "bool" or "cards"
    required: bool = True
    count: int | None = None  # for cards: exactly this many
    minimum: int = 0  # for ints
    maximum: int = MAX_INT


@dataclass(frozen=True)
class Message:
    type: str
    fields: dict[str, Any] = field(default_factory=dict)
    id: str | int | None = None


# A message's handler: the service it calls, with the fields it passes, in the
# transaction of the table ``message_apply`` opened (``OpenTable``).
Handler = Callable[[Any, int, dict[str, Any], OpenTable], object]


@dataclass(frozen=True)
class MessageType:
    """One message type: its fields and the service that handles it (None:
    the socket answers it itself, without a transition)."""

    fields: dict[str, Spec]
    handler: Handler | None = None

    def __iter__(self) -> Iterator[str]:  # the field names, as a dict's keys
        return iter(self.fields)

    def __getitem__(self, name: str) -> Spec:
        return self.fields[name]


def _lock(user: Any, table_id: int, f: dict[str, Any], opened: OpenTable) -> object:
    return services.setting_lock(
        user=user,
        table_id=table_id,
        front=f["front"],
        back=f.get("back"),
        confirm_foul=f.get("confirm_foul", False),
        deal_number=f.get("deal"),
        opened=opened,
    )


def _luck(user: Any, table_id: int, f: dict[str, Any], opened: OpenTable) -> object:
    return services.luck_record(
        user=user,
        table_id=table_id,
        deal_number=f["deal"],
        wins=f["wins"],
        pushes=f["pushes"],
        losses=f["losses"],
        opened=opened,
    )


MESSAGES: dict[str, MessageType] = {
    # Send the full state this seat may see (the server also sends it on connect).
    "state": MessageType({}),
    "ping": MessageType({}),
    # Propose the next deal's stake (the solo dealer accepts at once).
    "stake": MessageType(
        {"amount": Spec("int", minimum=-MAX_INT)},
        lambda user, table_id, f, opened: services.stake_propose(
            user=user, table_id=table_id, amount=f["amount"], opened=opened
        ),
    ),
    # Accept the other seat's proposed stake (friend tables): the one the player
    # saw, by its amount and id (``table.proposal``); a changed one is refused.
    "accept_stake": MessageType(
        {"amount": Spec("int", minimum=1), "proposal": Spec("int", maximum=MAX_PROPOSAL)},
        lambda user, table_id, f, opened: services.stake_accept(
            user=user,
            table_id=table_id,
            amount=f["amount"],
            proposal=f["proposal"],
            opened=opened,
        ),
    ),
    # Deal at the agreed stake.
    "deal": MessageType(
        {},
        lambda user, table_id, f, opened: services.deal_start(
            user=user, table_id=table_id, opened=opened
        ),
    ),
    # Bet the last stake again (solo: deals at once): the last stake the player
    # saw and, with a friend, the other seat's proposal it may accept.
    "rebet": MessageType(
        {
            "amount": Spec("int", minimum=1),
            "proposal": Spec("int", required=False, maximum=MAX_PROPOSAL),
        },
        lambda user, table_id, f, opened: services.deal_rebet(
            user=user,
            table_id=table_id,
            amount=f["amount"],
            proposal=f.get("proposal"),
            opened=opened,
        ),
    ),
    # Lock a setting: two cards in front; the back defaults to the other five.
    "lock": MessageType(
        {
            "front": Spec("cards", count=2),
            "back": Spec("cards", required=False, count=5),
            "confirm_foul": Spec("bool", required=False),
            "deal": Spec("int", required=False, minimum=1),
        },
        _lock,
    ),
    # The host of a friend table: make a new invite link (the old one stops
    # working), or withdraw the open one.
    "invite_new": MessageType(
        {},
        lambda user, table_id, f, opened: services.invite_create(
            user=user, table_id=table_id, opened=opened
        ),
    ),
    "invite_revoke": MessageType(
        {},
        lambda user, table_id, f, opened: services.invite_revoke(
            user=user, table_id=table_id, opened=opened
        ),
    ),
    # Record the on-device luck estimate of a revealed deal (120 samples).
    "luck": MessageType(
        {
            "deal": Spec("int", minimum=1),
            "wins": Spec("int", maximum=10_000),
            "pushes": Spec("int", maximum=10_000),
            "losses": Spec("int", maximum=10_000),
        },
        _luck,
    ),
}


def _check(name: str, spec: Spec, value: Any) -> Any:
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadMessage(f"“{name}” must be a whole number.")
        if not spec.minimum <= value <= spec.maximum:
            raise BadMessage(f"“{name}” must be between {spec.minimum} and {spec.maximum}.")
        return value
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise BadMessage(f"“{name}” must be true or false.")
        return value
    if spec.kind == "cards":
        if (
            not isinstance(value, list)
            or len(value) != spec.count
            or not all(isinstance(card, str) and 1 <= len(card) <= 3 for card in value)
        ):
            raise BadMessage(f"“{name}” must be a list of {spec.count} card codes, like \"As\".")
        return list(value)
    raise AssertionError(spec.kind)  # pragma: no cover - a registry typo


def _is_text(value: str) -> bool:
    """Whether ``value`` can be written out as UTF-8. JSON's ``\\ud800``
    escape decodes to a lone surrogate, which json.loads accepts but which no
    database, log or reply can encode."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _all_text(raw: Any) -> bool:
    """Whether every string in ``raw`` (keys included, at any depth) is text.
    Iterative: a frame may nest as deep as json.loads allows."""
    pending = [raw]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if not _is_text(value):
                return False
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return True


def message_id(raw: Any) -> str | int | None:
    """The client's ``id`` if it is one we may echo, else None."""
    if isinstance(raw, dict):
        value = raw.get("id")
        if isinstance(value, str) and len(value) <= MAX_ID_CHARS and _is_text(value):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_INT:
            return value
    return None


def decode(text: str | None, data: bytes | None = None) -> Any:
    """The JSON of one frame, or BadMessage."""
    if text is None:
        raise BadMessage("Send text frames holding one JSON object.")
    if len(text) > MAX_FRAME_CHARS:
        raise BadMessage(f"A message is at most {MAX_FRAME_CHARS} characters.")
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        raise BadMessage("That message is not valid JSON.") from None
    if not _all_text(raw):
        raise BadMessage(
            "That message holds a broken character (a lone \\ud800-\\udfff escape): "
            "send text that is valid Unicode."
        )
    return raw


def validate(raw: Any) -> Message:
    """Check one decoded frame against the registry."""
    if not isinstance(raw, dict):
        raise BadMessage("A message is a JSON object with a “type”.")
    kind = raw.get("type")
    if not isinstance(kind, str):
        raise BadMessage("A message needs a “type”.")
    registered = MESSAGES.get(kind)
    if registered is None:
        raise UnknownMessage(f"“{kind[:40]}” is not a message type the table understands.")
    if "id" in raw and message_id(raw) is None:
        raise BadMessage(f"An “id” is a string of at most {MAX_ID_CHARS} characters or a number.")
    specs = registered.fields
    extra = sorted(set(raw) - set(specs) - {"type", "id"})
    if extra:
        raise BadMessage(f"A “{kind}” message has no “{extra[0][:40]}” field.")
    fields: dict[str, Any] = {}
    for name, spec in specs.items():
        if name not in raw:
            if spec.required:
                raise BadMessage(f"A “{kind}” message needs “{name}”.")
            continue
        fields[name] = _check(name, spec, raw[name])
    return Message(type=kind, fields=fields, id=message_id(raw))


def parse(text: str | None, data: bytes | None = None) -> Message:
    return validate(decode(text, data))
