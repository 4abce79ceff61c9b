"""Table sockets for the tests, through the real ASGI stack: a connected
browser that keeps every frame it received, and the checks that no frame
shows what its seat may not see."""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from games.models import Deal, Hand, LedgerEntry, Seat, Table
from paigow_site.asgi import application


def session_cookie(user: User) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


class Seat_:
    """A connected browser: every frame it received is kept for the leak checks."""

    def __init__(self, comm: WebsocketCommunicator) -> None:
        self.comm = comm
        self.frames: list[str] = []

    async def receive(self) -> dict[str, Any]:
        text = await self.comm.receive_from(timeout=5)
        self.frames.append(text)
        frame: dict[str, Any] = json.loads(text)
        return frame

    async def send(self, message: Any) -> dict[str, Any]:
        """Send ``message`` and return the next frame, whatever it is."""
        await self.comm.send_to(text_data=json.dumps(message))
        return await self.receive()

    async def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message`` (it has an ``id``) and return its answer: views
        pushed in between (a heartbeat's, another seat's change: they carry
        no id) are kept in ``frames`` and passed over."""
        frame = await self.send(message)
        while frame.get("id") != message["id"]:
            frame = await self.receive()
        return frame

    async def send_raw(self, text: str | None = None, data: bytes | None = None) -> dict[str, Any]:
        await self.comm.send_to(text_data=text, bytes_data=data)
        return await self.receive()

    async def nothing_more(self) -> bool:
        return await self.comm.receive_nothing(timeout=0.2)

    async def close(self) -> None:
        await self.comm.disconnect()


async def open_seat(
    user: User | None, table_id: int, origin: bytes = b"http://testserver", app: Any = application
) -> WebsocketCommunicator:
    # As a browser sends them: the socket's origin must match its own host.
    headers = [(b"origin", origin), (b"host", b"testserver")]
    if user is not None:
        headers.append((b"cookie", await database_sync_to_async(session_cookie)(user)))
    return WebsocketCommunicator(app, f"/ws/tables/{table_id}/", headers=headers)


async def join(user: User, table_id: int, app: Any = application) -> tuple[Seat_, dict[str, Any]]:
    comm = await open_seat(user, table_id, app=app)
    connected, _ = await comm.connect()
    assert connected
    seat = Seat_(comm)
    return seat, await seat.receive()


def db_snapshot(table_id: int) -> tuple[object, ...]:
    table = Table.objects.get(pk=table_id)
    return (
        table.status, table.stake, table.stake_proposed, table.last_stake, table.deals_count,
        tuple(Seat.objects.filter(table=table).values_list("stack", "balance_with_commission")),
        tuple(Deal.objects.filter(table=table).values_list("status", "number")),
        tuple(Hand.objects.filter(deal__table=table).values_list("front", "back", "result")),
        LedgerEntry.objects.filter(deal__table=table).count(),
    )


def hidden_cards(table_id: int, seat_number: int) -> list[str]:
    """The cards seat ``seat_number`` must not see before the reveal: the other
    hand and the rest of the deck (all 53 minus its own seven)."""
    deal = Deal.objects.filter(table_id=table_id).order_by("-number").first()
    assert deal is not None
    own = Hand.objects.get(deal=deal, seat_number=seat_number).card_list
    return [card for card in deal.deck if card not in own]


def assert_no_leak(frames: list[str], hidden: list[str], secret: str) -> None:
    for text in frames:
        frame = json.loads(text)
        blob = json.dumps(frame)
        for card in hidden:
            assert f'"{card}"' not in blob, (card, frame)
        assert secret not in blob
        deal = frame.get("deal") or {}
        assert "deck" not in deal
        assert "secret" not in deal
        assert "results" not in deal
        assert set((deal.get("other") or {"locked": 0}).keys()) == {"locked"}
