"""Adversarial clients against the live stack: two daphne processes on the
PostgreSQL and Redis that DATABASE_URL and REDIS_URL name (CI's), reached over
loopback only, in a database of their own (``<name>_adversarial``).

Every client records every frame it sends and receives and every HTTP body it
is answered, per player (``Record``). After each test the record is searched
for hidden information (``hidden_leaks``): no frame a player got while a deal
was unrevealed holds a card that is not its own (the other seat's, the solo
dealer's, the deck), the deck's secret or another card's name; no HTTP body
asked for during a deal holds the secret, the deck in its order or a run of
the other side's cards. The cards are read from the database afterwards.

Then, one test each: friends on different processes and a solo player play
deals; a host re-proposes while the friend accepts (the deal is at the amount
the friend named); sockets idle on real Redis stay open; a flood of messages
is cut off and another table plays on; a server killed mid-deal loses
nothing; an attacker tries origins, other tables, malformed frames, too many
sockets and messages after signing out. Counts are printed (``pytest -s``)
for docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from games import engine
from tests.live_site import migrate
from tests.system.test_faults import Site
from tests.system.test_two_servers import (
    PASSWORD,
    Socket,
    _forget_redis_keys,
    manage_shell,
    own_database,
    query,
    sign_in,
    stack_env,
)

pytestmark = [pytest.mark.services, pytest.mark.slow]

FRIEND_DEALS = 20
SOLO_DEALS = 10
RACES = 30
IDLE_SECONDS = 20
BROWSE_EVERY = 4  # deals 1, 5, 9...: the pages during a deal, from each seat
FLOOD = 600  # messages sent without waiting for any answer
COUNTS: Counter[str] = Counter()
T = TypeVar("T")

# --- what every client saw ------------------------------------------------------------------


@dataclass
class Seen:
    player: str
    kind: str  # "sent" or "frame" (a socket, both ways) or "http" (a response body)
    text: str
    table: int
    socket: int = 0
    deal: int | None = None  # http: the deal in progress when it was asked for
    seat: int | None = None  # http: the asker's seat at ``table``


@dataclass
class Record:
    seen: list[Seen] = field(default_factory=list)

    def add(self, seen: Seen) -> None:
        self.seen.append(seen)
        COUNTS[seen.kind] += 1

    def of(self, player: str) -> list[Seen]:
        return [s for s in self.seen if s.player == player]


SOCKET_NUMBERS = itertools.count(1)


class Recorded:
    """A ``websockets`` connection that records every frame, both ways, in
    the order this socket sent and received them."""

    def __init__(self, conn: ClientConnection, record: Record, player: str, table: int) -> None:
        self.conn, self.record, self.player, self.table = conn, record, player, table
        self.number = next(SOCKET_NUMBERS)

    def _keep(self, kind: str, data: str | bytes) -> None:
        text = data if isinstance(data, str) else data.decode("latin-1")
        self.record.add(Seen(self.player, kind, text, self.table, self.number))

    async def send(self, data: str | bytes) -> None:
        self._keep("sent", data)
        await self.conn.send(data)

    async def _frames(self) -> AsyncIterator[str | bytes]:
        async for message in self.conn:
            self._keep("frame", message)
            yield message

    def __aiter__(self) -> AsyncIterator[str | bytes]:
        return self._frames()

    async def close(self) -> None:
        await self.conn.close()

    @property
    def close_code(self) -> int | None:
        return self.conn.close_code


# --- the stack ------------------------------------------------------------------------------

PLAYERS = (
    "ada", "grace", "sol", "rhost", "rfriend", "ihost", "ifriend", "flooder", "bya", "byb",
    "khost", "kfriend", "mallory", "trudy",
)

SETUP = """
import json
from django.conf import settings
from django.db import transaction
from django.test import Client
from accounts.models import User
from games import selectors, services
def make():
    users = {name: User.objects.create_user(username=name) for name in NAMES}
    users["mallory"].set_password(PASSWORD)  # she also signs in (and out) through the form
    users["mallory"].save()
    cookies = {}
    for name, user in users.items():
        client = Client()
        client.force_login(user)
        cookie = settings.SESSION_COOKIE_NAME
        cookies[name] = f"{cookie}={client.cookies[cookie].value}"
    def friends(host, guest):
        table = services.table_start(user=users[host], mode="friend")
        services.invite_accept(user=users[guest], token=selectors.open_invite(table=table).token)
        return table.pk
    def solo(name):
        return services.table_start(user=users[name], mode="solo").pk
    tables = {
        "play": friends("ada", "grace"), "solo": solo("sol"),
        "race": [friends("rhost", "rfriend") for _ in range(RACES)],
        "idle": friends("ihost", "ifriend"), "flood": solo("flooder"),
        "bystanders": friends("bya", "byb"), "kill": friends("khost", "kfriend"),
        "mallory": solo("mallory"), "trudy": friends("trudy", "mallory"),
    }
    return {"tables": tables, "cookies": cookies}
with transaction.atomic():  # one commit for the lot
    made = make()
print(json.dumps(made))
""".replace("NAMES", repr(PLAYERS)).replace("PASSWORD", repr(PASSWORD)).replace(
    "RACES", str(RACES)
)


@dataclass
class Stack:
    database: str
    sites: tuple[Site, Site]
    tables: dict[str, Any]
    cookies: dict[str, str]
    record: Record = field(default_factory=Record)

    def ws_url(self, site: int, table: int) -> str:
        return self.sites[site].base.replace("http", "ws", 1) + f"/ws/tables/{table}/"

    async def open(
        self, player: str, site: int, table: int, *, origin: str | None = "",
        cookie: str | None = None,
    ) -> Socket:
        """A recorded table socket for ``player`` on server ``site`` (0 or 1),
        from the site's own page (``origin`` "") or ``origin`` (None: no header)."""
        conn = await connect(
            self.ws_url(site, table),
            origin=self.sites[site].base if origin == "" else origin,  # type: ignore[arg-type]
            additional_headers={"Cookie": cookie or self.cookies[player]},
            open_timeout=10,
            ping_interval=None,  # as a browser: no keepalive pings
        )
        return Socket(player, Recorded(conn, self.record, player, table))  # type: ignore[arg-type]

    def get(
        self, player: str, site: int, path: str, *, table: int, deal: int | None = None,
        seat: int | None = None, cookie: str | None = None,
    ) -> tuple[int, str]:
        """GET ``path`` as ``player``; the body is recorded."""
        request = urllib.request.Request(
            self.sites[site].base + path, headers={"Cookie": cookie or self.cookies[player]}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, body = response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read().decode()
        self.record.add(Seen(player, "http", body, table, deal=deal, seat=seat))
        return status, body


def make_players(env: dict[str, str]) -> dict[str, Any]:
    migrate(env)
    made: dict[str, Any] = manage_shell(env, SETUP)
    return made


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("adversarial")
    run = uuid.uuid4().hex[:10]
    with own_database("adversarial") as database:
        # Tasks run in the servers (no worker here).
        env = stack_env(database, logs / "var", f"adversarial-{run}", CELERY_EAGER="1")
        # A database thrown away after the test: its set-up need not wait
        # for the disk at every commit.
        quick = {**env, "PGOPTIONS": "-c synchronous_commit=off"}
        sites = (Site(env, logs / "web-a.log"), Site(env, logs / "web-b.log"))
        try:
            # The servers start (their /healthz needs no table) while the
            # schema and the players are made.
            with ThreadPoolExecutor(3) as pool:
                setup = pool.submit(make_players, quick)
                list(pool.map(Site.start, sites))
                made = setup.result()
            yield Stack(database, sites, made["tables"], made["cookies"])
        finally:
            with ThreadPoolExecutor(2) as pool:
                list(pool.map(Site.stop, sites))
            _forget_redis_keys(f"*adversarial-{run}*")
            print(f"\nadversarial suite, all tests: {dict(COUNTS)}; logs in {logs}")


def run(coroutine: Callable[[], Awaitable[T]]) -> T:
    """Run on a loop of its own thread (the session's Playwright driver may own
    this thread's loop)."""

    async def main() -> T:
        return await coroutine()

    with ThreadPoolExecutor(1) as runner:
        return runner.submit(asyncio.run, main()).result()


# --- looking for hidden information ---------------------------------------------------------

CARDS = frozenset(engine.DECK)
NAMES = {code: engine.card_name(code) for code in engine.DECK if code != "JK"}
CODE = r"(?:[2-9TJQKA][shdc]|JK)"
# A run of card codes: separated by spaces, commas, quotes, brackets or tags.
RUN = re.compile(rf"(?<![A-Za-z0-9]){CODE}(?:(?:[\s,\"'\[\]]|<[^>]*>)+{CODE})*(?![A-Za-z0-9])")
TABLE_STATE = re.compile(
    r'<script id="table-state" type="application/json">(.*?)</script>', re.DOTALL
)


@dataclass(frozen=True)
class Dealt:
    deck: tuple[str, ...]
    secret: str
    hands: dict[int, frozenset[str]]  # seat number -> its seven cards


def dealt(database: str) -> dict[tuple[int, int], Dealt]:
    """Every deal's deck, secret and hands, from the database."""
    rows = query(
        database,
        """select d.table_id, d.number, d.deck_order, d.secret, h.seat_number, h.cards
           from games_deal d join games_hand h on h.deal_id = d.id""",
    )
    deals: dict[tuple[int, int], Dealt] = {}
    for table, number, deck, secret, seat, cards in rows:
        deal = deals.setdefault((table, number), Dealt(tuple(deck.split()), secret, {}))
        deal.hands[seat] = frozenset(cards.split())
    return deals


def strings(value: Any) -> Iterator[str]:
    """Every string in a decoded JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def cards_in(value: Any) -> set[str]:
    """The card codes in a decoded JSON value: strings that are a code, or a
    list of codes written as one string ("As Kd"); not words in sentences."""
    found: set[str] = set()
    for text in strings(value):
        parts = text.replace(",", " ").split()
        if parts and all(part in CARDS for part in parts):
            found.update(parts)
    return found


def state_leaks(
    text: str, state: dict[str, Any], deal: Dealt, seat: int, echoed: frozenset[str] = frozenset()
) -> list[str]:
    """A state (a frame, or the table page's) of an unrevealed deal: every card
    in it is this seat's own; nothing of the other side, the deck or the secret.
    ``echoed``: cards the client itself named (an error may repeat them)."""
    own, other = deal.hands[seat], deal.hands[1 - seat] - echoed
    found = []
    codes = cards_in(state) - echoed
    if codes & other:
        found.append(f"the other side's {sorted(codes & other)}")
    if codes - own - other:
        found.append(f"cards of the deck {sorted(codes - own - other)}")
    if deal.secret in text:
        found.append("the secret")
    found += [f"the name {NAMES[c]!r}" for c in sorted(other & NAMES.keys()) if NAMES[c] in text]
    mine = (state.get("deal") or {}).get("you", {}).get("cards")
    if mine is not None and set(mine) != own:
        found.append(f"a hand that is not this seat's: {mine}")
    return found


def body_leaks(text: str, deal: Dealt, number: int, seat: int) -> list[str]:
    """An HTTP body asked for during a deal. A body may list earlier deals'
    revealed cards (cards repeat from deal to deal), so it leaks when it holds
    the secret, the deck in its order, a run of five or more cards all of the
    other side, or six of them in one shorter run; the table page's state is
    checked as a frame."""
    other = deal.hands[1 - seat]
    found = ["the secret"] if deal.secret in text else []
    for match in RUN.finditer(text):
        run_cards = re.findall(CODE, match.group())
        if tuple(run_cards) == deal.deck:
            found.append("the deck in its order")
        elif len(run_cards) < len(deal.deck) and (
            len(set(run_cards) & other) >= 6 or 5 <= len(run_cards) == len(set(run_cards) & other)
        ):
            found.append(f"the other side's cards in {run_cards}")
    for script in TABLE_STATE.findall(text):
        state = json.loads(script)
        shown = state.get("deal") or {}
        if shown.get("number") == number and not shown.get("revealed"):
            found += state_leaks(script, state, deal, seat)
    return found


def hidden_leaks(record: Record, deals: dict[tuple[int, int], Dealt]) -> list[str]:
    """Everything a player got while a deal was unrevealed that shows what it
    must not see. A frame is judged by the deal it shows (or, an error or a
    pong, by the last one its socket showed)."""
    found: list[str] = []
    checked = Counter[str]()
    showing: dict[int, tuple[int, int, int]] = {}  # socket -> table, deal, seat
    named: dict[int, frozenset[str]] = {}  # socket -> the cards it sent in this deal
    for seen in record.seen:
        if seen.kind == "sent":
            try:
                sent = cards_in(json.loads(seen.text))
            except (ValueError, RecursionError):  # the attacker's malformed frames
                sent = set()
            named[seen.socket] = named.get(seen.socket, frozenset()) | sent
        elif seen.kind == "frame":
            frame = json.loads(seen.text)
            if frame.get("type") == "state":
                deal = frame.get("deal") or {}
                if deal and not deal.get("revealed"):
                    where = (seen.table, deal["number"], frame["seats"]["you"]["seat"])
                    if showing.get(seen.socket) != where:  # a new deal: nothing named yet
                        named[seen.socket] = frozenset()
                    showing[seen.socket] = where
                else:
                    showing.pop(seen.socket, None)
            if seen.socket in showing:
                table, number, seat = showing[seen.socket]
                checked["frames"] += 1
                found += [
                    f"{seen.player}, table {table} deal {number}: {what} in {seen.text[:200]}"
                    for what in state_leaks(
                        seen.text, frame, deals[table, number], seat,
                        named.get(seen.socket, frozenset()),
                    )
                ]
        elif seen.kind == "http" and seen.deal is not None and seen.seat is not None:
            checked["bodies"] += 1
            found += [
                f"{seen.player}, table {seen.table} deal {seen.deal}: {what} in a page"
                for what in body_leaks(
                    seen.text, deals[seen.table, seen.deal], seen.deal, seen.seat
                )
            ]
    COUNTS["frames checked before a reveal"] = checked["frames"]
    COUNTS["bodies checked before a reveal"] = checked["bodies"]
    return found


def strangers_leaks(record: Record, player: str, tables: list[int], database: str) -> list[str]:
    """Nothing of tables ``player`` has no seat at: no secret, no hand."""
    deals = {key: deal for key, deal in dealt(database).items() if key[0] in tables}
    found = []
    for seen in record.of(player):
        if seen.kind == "sent":
            continue
        for (table, number), deal in deals.items():
            if deal.secret in seen.text:
                found.append(f"{player} got table {table} deal {number}'s secret")
            for match in RUN.finditer(seen.text):
                cards = set(re.findall(CODE, match.group()))
                if any(len(cards) >= 5 and cards <= hand for hand in deal.hands.values()):
                    found.append(f"{player} got a hand of table {table} deal {number}")
    return found


def server_errors(record: Record) -> list[str]:
    return [
        s.text for s in record.seen
        if s.kind == "frame" and json.loads(s.text).get("error") == "server_error"
    ]


def books(database: str) -> list[str]:
    """Every table's chips: stacks add up to 2,000, each stack is 1,000 plus
    its actual ledger, a revealed deal has 4 ledger entries and an open one none."""
    wrong = []
    seats = query(
        database,
        """select s.table_id, s.number, s.stack, coalesce(sum(l.amount), 0)
           from games_seat s left join games_ledgerentry l
             on l.seat_id = s.id and l.ledger = 'actual'
           group by s.id order by s.table_id, s.number""",
    )
    for table, group in itertools.groupby(seats, key=lambda row: row[0]):
        rows = list(group)
        if sum(row[2] for row in rows) != 2000:
            wrong.append(f"table {table}: stacks {[row[2] for row in rows]}")
        wrong += [f"table {table} seat {r[1]}: {r[2]} != 1000 + {r[3]}" for r in rows
                  if r[2] != 1000 + r[3]]
    entries = query(
        database,
        """select d.table_id, d.number, d.status, count(l.id) from games_deal d
           left join games_ledgerentry l on l.deal_id = d.id group by d.id""",
    )
    wrong += [
        f"table {t} deal {n}: {status} with {count} entries"
        for t, n, status, count in entries
        if count != {"revealed": 4, "dealt": 0}[status]
    ]
    return wrong


def assert_nothing_hidden_leaked(stack: Stack) -> None:
    assert hidden_leaks(stack.record, dealt(stack.database)) == []
    assert server_errors(stack.record) == []
    assert books(stack.database) == []


# --- playing --------------------------------------------------------------------------------


def house_front(cards: list[str]) -> list[str]:
    return list(engine.house_way(cards).setting.front)


async def ask(socket: Socket, message: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
    """Send with a fresh id; the answer to it, whatever it is."""
    socket.next_id += 1
    message_id = f"{socket.name}-{socket.next_id}"
    start = len(socket.frames)
    await socket.conn.send(json.dumps({**message, "id": message_id}))
    return await socket.until(lambda f: f.get("id") == message_id, start, timeout)


async def latest(socket: Socket) -> dict[str, Any]:
    return await socket.request({"type": "state"})


async def agree(host: Socket, friend: Socket, amount: int) -> None:
    """The host proposes, the friend accepts the proposal it was shown."""
    start = len(friend.frames)
    await host.request({"type": "stake", "amount": amount})
    shown = await friend.until(
        lambda f: offered(f) and f["table"]["proposal"]["amount"] == amount, start
    )
    proposal = shown["table"]["proposal"]
    accepted = await friend.request(
        {"type": "accept_stake", "amount": amount, "proposal": proposal["id"]}
    )
    assert accepted["table"]["stake"] == amount, accepted


async def look_around(
    stack: Stack, player: str, site: int, table: int, number: int, seat: int
) -> None:
    """During a deal, the pages and API a player can reach (recorded)."""
    for path in (
        f"/tables/{table}/", f"/tables/{table}/deals/{number}/verify/",
        f"/api/tables/{table}/", "/api/hands/", f"/history/sessions/{table}/",
    ):
        status, _ = await asyncio.to_thread(
            stack.get, player, site, path, table=table, deal=number, seat=seat
        )
        assert status == 200, (player, path, status)


async def play_friend_deal(
    stack: Stack, host: Socket, friend: Socket, table: int, number: int, *, browse: bool = False,
) -> None:
    await agree(host, friend, 1 + number % 7)
    mine = (await host.request({"type": "deal"}))["deal"]
    assert mine["number"] == number
    theirs = (await friend.until(
        lambda f: f.get("type") == "state" and (f.get("deal") or {}).get("number") == number
    ))["deal"]
    sockets = {host: (0, mine["you"]["cards"]), friend: (1, theirs["you"]["cards"])}
    if browse:  # every page and API answer of the table, from both seats
        for socket, site in ((host, 0), (friend, 1)):
            await look_around(stack, socket.name, site, table, number, sockets[socket][0])
    first, last = (host, friend) if number % 2 else (friend, host)
    for socket in (first, last):
        await socket.request(
            {"type": "lock", "front": house_front(sockets[socket][1]), "deal": number}
        )
    for socket in (host, friend):
        await socket.until(
            lambda f: (f.get("deal") or {}).get("number") == number and f["deal"]["revealed"]
        )


def test_no_frame_or_page_shows_a_hidden_card_before_the_reveal(stack: Stack) -> None:
    table, solo = stack.tables["play"], stack.tables["solo"]

    async def play() -> None:
        ada = await stack.open("ada", 0, table)
        grace = await stack.open("grace", 1, table)  # the friends on different processes
        sol = await stack.open("sol", 1, solo)
        try:
            for socket in (ada, grace, sol):
                await socket.until(lambda f: f.get("type") == "state")
            for number in range(1, FRIEND_DEALS + 1):
                browse = number % BROWSE_EVERY == 1
                await play_friend_deal(stack, ada, grace, table, number, browse=browse)
            for number in range(1, SOLO_DEALS + 1):
                await sol.request({"type": "stake", "amount": 5})
                cards = (await sol.request({"type": "deal"}))["deal"]["you"]["cards"]
                if number % BROWSE_EVERY == 1:
                    await look_around(stack, "sol", 1, solo, number, 0)
                done = await sol.request({"type": "lock", "front": house_front(cards)})
                assert done["deal"]["revealed"] is True
        finally:
            for socket in (ada, grace, sol):
                await socket.close()

    run(play)
    assert_nothing_hidden_leaked(stack)
    COUNTS["friend deals"] += FRIEND_DEALS
    COUNTS["solo deals"] += SOLO_DEALS
    print(f"\nhidden cards: {FRIEND_DEALS} friend deals over two servers, {SOLO_DEALS} solo; "
          f"{dict(COUNTS)}")


# --- stake consent under a race -------------------------------------------------------------


async def next_frame(
    socket: Socket, test: Callable[[dict[str, Any]], bool], start: int, timeout: float
) -> tuple[int, dict[str, Any]] | None:
    """The first frame from ``start`` on that passes ``test`` and its index, or
    None after ``timeout`` seconds."""
    try:
        frame = await socket.until(test, start, timeout)
    except AssertionError:
        if socket.closed:
            raise
        return None
    index = next(i for i in range(start, len(socket.frames)) if socket.frames[i] is frame)
    return index, frame


def offered(frame: dict[str, Any]) -> bool:
    if frame.get("type") != "state":
        return False
    return (frame["table"].get("proposal") or {}).get("by") == "other"


async def accept_shown(socket: Socket, proposal: dict[str, Any]) -> dict[str, Any]:
    return await ask(socket, {
        "type": "accept_stake", "amount": proposal["amount"], "proposal": proposal["id"],
    })


async def race_once(stack: Stack, table: int, rng: random.Random) -> tuple[int, int]:
    """The host re-proposes 10 and 900 in turn while the friend, on the other
    server, accepts each proposal it is shown as it is shown it. Returns the
    dealt stake and the amount of the friend's last accepted proposal."""
    host = await stack.open("rhost", 0, table)
    friend = await stack.open("rfriend", 1, table)
    try:
        await host.until(lambda f: f.get("type") == "state")
        await friend.until(lambda f: f.get("type") == "state")
        done = asyncio.Event()
        named: list[int] = []

        async def propose() -> None:
            for amount in (10, 900, 10, 900, 10, 900)[: rng.randint(3, 6)]:
                await host.request({"type": "stake", "amount": amount})
                await asyncio.sleep(rng.uniform(0, 0.004))
            done.set()

        async def accept() -> None:
            seen = len(friend.frames)
            while not done.is_set():
                found = await next_frame(friend, offered, seen, 0.05)
                if found is None:
                    continue
                seen = found[0] + 1
                reply = await accept_shown(friend, found[1]["table"]["proposal"])
                if reply["type"] == "state":
                    named.append(found[1]["table"]["proposal"]["amount"])
                else:
                    assert reply["error"] in {"stake_changed", "stake_no_proposal"}, reply
                    COUNTS["race: accepts refused as changed"] += 1

        await asyncio.gather(propose(), accept())
        # The host has stopped: the friend accepts what is on the table now.
        now = await latest(friend)
        if now["table"]["stake"] is None:
            reply = await accept_shown(friend, now["table"]["proposal"])
            assert reply["type"] == "state", reply
            named.append(now["table"]["proposal"]["amount"])
        dealt_stake = (await host.request({"type": "deal"}))["deal"]["stake"]
        return dealt_stake, named[-1]
    finally:
        await host.close()
        await friend.close()


def test_a_deal_is_only_ever_at_the_stake_the_friend_accepted(stack: Stack) -> None:
    rng = random.Random(16)

    async def races() -> list[tuple[int, int]]:
        return [await race_once(stack, table, rng) for table in stack.tables["race"]]

    outcomes = run(races)
    wrong = [(dealt, named) for dealt, named in outcomes if dealt != named]
    print(f"\nstake race: {len(outcomes)} trials, dealt at {Counter(d for d, _ in outcomes)}, "
          f"{COUNTS['race: accepts refused as changed']} accepts refused as changed, "
          f"{len(wrong)} deals at a stake the friend did not name")
    assert wrong == []
    assert_nothing_hidden_leaked(stack)
    COUNTS["race trials"] += len(outcomes)


# --- idle sockets ---------------------------------------------------------------------------


def health(stack: Stack, site: int) -> int:
    try:
        with urllib.request.urlopen(stack.sites[site].base + "/healthz", timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_idle_sockets_on_redis_stay_open_and_answer(stack: Stack) -> None:
    table = stack.tables["idle"]

    async def idle() -> dict[str, Any]:
        host = await stack.open("ihost", 0, table)
        friend = await stack.open("ifriend", 1, table)
        try:
            for socket in (host, friend):
                await socket.until(lambda f: f.get("type") == "state")
            await asyncio.sleep(IDLE_SECONDS)
            closed = {s.name: s.conn.close_code for s in (host, friend) if s.closed}
            healthy = [await asyncio.to_thread(health, stack, site) for site in (0, 1)]
            pongs = [(await ask(s, {"type": "ping"}))["type"] for s in (host, friend)]
            # A change still crosses from one process to the other.
            await agree(host, friend, 3)
            return {"closed": closed, "healthz": healthy, "pongs": pongs}
        finally:
            await host.close()
            await friend.close()

    outcome = run(idle)
    assert outcome == {"closed": {}, "healthz": [200, 200], "pongs": ["pong", "pong"]}
    assert_nothing_hidden_leaked(stack)
    COUNTS["idle socket-seconds"] += 2 * IDLE_SECONDS
    print(f"\nidle: 2 sockets idle {IDLE_SECONDS}s on Redis: open, answered, /healthz 200")


# --- a flood from one socket ----------------------------------------------------------------

# Mostly cheap for the server (no database call), so the count, not the
# server's speed, decides when the socket's message budget runs out.
FLOOD_FRAMES = (
    {"type": "ping"}, "not json", {"type": "ping"}, {"type": "stake", "amount": 1},
    {"type": "ping"}, "not json", {"type": "ping"}, {"type": "state"},
)


def test_a_flooding_socket_is_cut_off_and_another_table_plays_on(stack: Stack) -> None:
    bystanders = stack.tables["bystanders"]

    async def flood() -> dict[str, Any]:
        flooder = await stack.open("flooder", 0, stack.tables["flood"])
        await flooder.until(lambda f: f.get("type") == "state")
        start = len(flooder.frames)

        async def send_all() -> int:
            sent = 0
            for n in range(FLOOD):
                message = FLOOD_FRAMES[n % len(FLOOD_FRAMES)]
                try:
                    await flooder.conn.send(
                        message if isinstance(message, str) else json.dumps({**message, "id": n})
                    )
                except ConnectionClosed:  # the server closed it: the point
                    break
                sent += 1
            return sent

        sending = asyncio.create_task(send_all())
        host = await stack.open("bya", 0, bystanders)  # the same server as the flood
        friend = await stack.open("byb", 0, bystanders)
        try:
            for socket in (host, friend):
                await socket.until(lambda f: f.get("type") == "state")
            await play_friend_deal(stack, host, friend, bystanders, 1)
        finally:
            await host.close()
            await friend.close()
        sent = await sending
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(flooder.task), 30)
        answers = flooder.frames[start:]
        await flooder.close()
        return {
            "sent": sent, "answered": len(answers), "closed": flooder.conn.close_code,
            "errors": Counter(f.get("error") for f in answers if f.get("type") == "error"),
        }

    outcome = run(flood)
    print(f"\nflood: {outcome}")
    assert outcome["closed"] == 4429, outcome  # cut off, not served for ever
    assert outcome["answered"] <= FLOOD // 2, outcome
    assert outcome["errors"]["too_many_messages"] == 1, outcome
    assert set(outcome["errors"]) <= {"bad_message", "too_many_messages"}, outcome
    assert_nothing_hidden_leaked(stack)
    COUNTS["flood messages sent"] += outcome["sent"]


# --- a server killed mid-deal ---------------------------------------------------------------


async def reconnect(
    stack: Stack, player: str, site: int, table: int
) -> tuple[Socket, dict[str, Any]]:
    deadline = time.monotonic() + 30
    while True:
        try:
            socket = await stack.open(player, site, table)
            return socket, await socket.until(lambda f: f.get("type") == "state")
        except (OSError, InvalidHandshake, AssertionError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def test_a_server_killed_mid_deal_loses_nothing(stack: Stack) -> None:
    table = stack.tables["kill"]
    killed = stack.sites[0]

    async def kill() -> None:
        host = await stack.open("khost", 0, table)
        friend = await stack.open("kfriend", 1, table)
        for socket in (host, friend):
            await socket.until(lambda f: f.get("type") == "state")
        await agree(host, friend, 200)
        dealt_frame = (await host.request({"type": "deal"}))["deal"]
        theirs = (await friend.until(
            lambda f: f.get("type") == "state" and (f.get("deal") or {}).get("number") == 1
        ))["deal"]
        lock = {"type": "lock", "front": house_front(dealt_frame["you"]["cards"]), "id": "k-lock"}
        await host.conn.send(json.dumps(lock))
        await host.until(lambda f: f.get("id") == "k-lock")
        await asyncio.to_thread(killed.kill)
        # Restarted at once, as a supervisor would, while the game goes on.
        restarted = asyncio.create_task(asyncio.to_thread(killed.start))
        await asyncio.wait_for(host.task, 10)  # its socket is gone with the server
        # The host comes back on the other server: the deal as it was.
        host, state = await reconnect(stack, "khost", 1, table)
        assert state["deal"]["number"] == 1, state
        assert state["deal"]["you"]["locked"] is True, state
        assert state["deal"]["revealed"] is False
        assert state["deal"]["commitment"] == dealt_frame["commitment"]
        start = len(host.frames)
        await host.conn.send(json.dumps(lock))  # resent: its answer was lost with the server
        again = await host.until(lambda f: f.get("id") == "k-lock", start)
        assert again["type"] == "state", again
        assert again.get("replayed") is True, again
        done = await friend.request({"type": "lock", "front": house_front(theirs["you"]["cards"])})
        assert done["deal"]["revealed"] is True
        for socket in (host, friend):
            final = await latest(socket)
            assert final["deal"]["revealed"] is True
            assert final["table"]["deals"] == 1
            assert final["seats"]["you"]["stack"] + final["seats"]["other"]["stack"] == 2000
        reveals = [f for s in (host, friend) for f in s.frames
                   if (f.get("deal") or {}).get("revealed") and "id" not in f]
        assert all(f["deal"]["number"] == 1 for f in reveals)
        await host.close()
        await friend.close()
        await restarted

    try:
        run(kill)
    finally:
        if killed.process is not None and killed.process.poll() is not None:
            killed.start()  # the stack is whole again for the other tests
    assert query(stack.database, """select d.status, count(l.id) from games_deal d
        left join games_ledgerentry l on l.deal_id = d.id where d.table_id = %s
        group by d.id""", table) == [("revealed", 4)]
    assert_nothing_hidden_leaked(stack)
    COUNTS["servers killed"] += 1
    print("\nkill: a daphne SIGKILLed after one lock; the deal finished once on the other")


# --- an attacker ----------------------------------------------------------------------------

BAD_ORIGINS = (
    None, "http://evil.example", "null", "http://127.0.0.1.evil.example", "https://127.0.0.1",
    "http://127.0.0.1:1", "http://localhost", "OTHER SERVER",
)
MALFORMED: tuple[str | bytes, ...] = (
    b"\x00\x01binary", "", "not json", "[]", "42", '"state"', "{}", '{"type": 7}',
    '{"type": "fly"}', '{"type": "state", "extra": 1}', '{"type": "stake", "amount": "10"}',
    '{"type": "stake", "amount": 1e9}', '{"type": "stake", "amount": 10, "id": {"a": 1}}',
    '{"type": "ping", "id": "' + "x" * 65 + '"}', '{"type": "lock", "front": "AsKs"}',
    '{"type": "lock", "front": ["As"]}', '{"type": "luck", "deal": 1}',
    '{"type": "accept_stake"}', '{"type": "rebet"}', '{"type": "state\\u0000"}',
    "[" * 1000 + "]" * 1000, '{"type": "ping", "pad": "' + "x" * 3000 + '"}',
)
SOCKETS_PER_USER = 8  # the server's default (settings.SOCKETS_PER_USER)
SOCKETS_OVER = 3
REFUSALS = {"bad_message", "unknown_type", "setting_invalid", "stake_no_proposal",
            "deal_in_progress", "not_revealed", "no_deal", "table_waiting"}


async def refused(stack: Stack, player: str, site: int, table: int, **kwargs: Any) -> int | str:
    """What an unwelcome socket gets: the handshake refused ("refused") or the
    close code. It never gets a frame."""
    try:
        socket = await stack.open(player, site, table, **kwargs)
    except InvalidHandshake:
        return "refused"
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(socket.task), 10)
    if socket.frames or not socket.closed:
        await socket.close()
        return f"served {len(socket.frames)} frames"
    return socket.conn.close_code or 0


async def dealer_oracle(stack: Stack, socket: Socket, table: int) -> list[tuple[str, str]]:
    """Lock with two of the dealer's cards, then with two cards no one holds:
    the two refusals must read the same but for the cards' names, or the
    error would tell which cards the dealer holds."""
    deck, dealer = query(stack.database, """select d.deck_order, h.cards from games_deal d
        join games_hand h on h.deal_id = d.id and h.seat_number = 1
        where d.table_id = %s and d.status = 'dealt'""", table)[0]
    undealt = deck.split()[14:16]
    answers = []
    for front in (dealer.split()[:2], undealt):
        reply = await ask(socket, {"type": "lock", "front": front})
        detail = reply.get("detail", "")
        for code in front:
            detail = detail.replace(engine.card_name(code), "<card>")
        answers.append((reply.get("error", reply["type"]), detail))
    return answers


async def too_many_sockets(stack: Stack, player: str, table: int) -> dict[str, Any]:
    """Open SOCKETS_PER_USER + SOCKETS_OVER sockets one after another: the ones
    over the cap get no frame and a close."""
    opened, codes = [], []
    for n in range(SOCKETS_PER_USER + SOCKETS_OVER):
        socket = await stack.open(player, n % 2, table)
        try:
            await socket.until(lambda f: f.get("type") == "state", timeout=5)
            opened.append(socket)
        except AssertionError:
            assert socket.closed, socket.frames
            assert socket.frames == [], socket.frames
            codes.append(socket.conn.close_code)
    for socket in opened:
        await socket.close()
    return {"opened": len(opened), "refused": len(codes), "codes": codes}


def sign_out(stack: Stack, cookie: str) -> None:
    csrf = re.search(r"csrftoken=([^;]+)", cookie).group(1)  # type: ignore[union-attr]
    request = urllib.request.Request(
        stack.sites[0].base + "/accounts/sign-out/",
        data=urllib.parse.urlencode({"csrfmiddlewaretoken": csrf}).encode(),
        headers={"Cookie": cookie, "Referer": stack.sites[0].base + "/lobby/"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def test_an_attacker_gets_error_frames_and_closes_and_nothing_hidden(stack: Stack) -> None:
    own = stack.tables["mallory"]
    others = [stack.tables[name] for name in ("play", "solo", "kill")] + stack.tables["race"][:3]
    results: dict[str, Any] = {}

    async def attack() -> None:
        # Origins that are not the site's.
        results["origins"] = {
            origin: await refused(stack, "mallory", 0, own, origin=origin.replace(
                "OTHER SERVER", stack.sites[1].base) if origin else origin)
            for origin in BAD_ORIGINS
        }
        # Other people's tables, and tables that do not exist.
        results["tables"] = {t: await refused(stack, "mallory", t % 2, t)
                             for t in [*others, 10**9]}
        for table in others:
            for path in (f"/tables/{table}/", f"/tables/{table}/deals/1/verify/",
                         f"/api/tables/{table}/", f"/history/sessions/{table}/"):
                status, _ = await asyncio.to_thread(stack.get, "mallory", 0, path, table=table)
                assert status == 404, (path, status)
        # Malformed frames at her own table, with a solo deal in progress.
        socket = await stack.open("mallory", 1, own)
        await socket.until(lambda f: f.get("type") == "state")
        await socket.request({"type": "stake", "amount": 10})
        cards = (await socket.request({"type": "deal"}))["deal"]["you"]["cards"]
        not_hers = [c for c in engine.DECK if c not in cards]
        results["oracle"] = await dealer_oracle(stack, socket, own)
        start = len(socket.frames)
        for frame in (*MALFORMED, json.dumps({"type": "lock", "front": not_hers[:2]})):
            before = len(socket.frames)
            await socket.conn.send(frame)
            await socket.until(lambda f: True, before)
        answers = socket.frames[start:]
        results["malformed"] = Counter(f.get("error", f["type"]) for f in answers)
        results["still answers"] = (await ask(socket, {"type": "ping"}))["type"]
        await socket.close()
        # A seat at a friend table whose host never agreed anything.
        guest = await stack.open("mallory", 0, stack.tables["trudy"])
        await guest.until(lambda f: f.get("type") == "state")
        results["accept nothing"] = (await ask(
            guest, {"type": "accept_stake", "amount": 1, "proposal": 1}))["error"]
        await guest.close()
        # Signed in through the form, then out: her open socket is closed.
        cookie = await asyncio.to_thread(sign_in, stack.sites[0].base, "mallory")
        signed_in = await stack.open("mallory", 0, own, cookie=cookie)
        await signed_in.until(lambda f: f.get("type") == "state")
        await asyncio.to_thread(sign_out, stack, cookie)
        with contextlib.suppress(ConnectionClosed, TimeoutError):  # closed under her: the point
            await signed_in.conn.send(json.dumps({"type": "state", "id": "after-sign-out"}))
            await asyncio.wait_for(asyncio.shield(signed_in.task), 10)
        results["after sign-out"] = {
            "closed": signed_in.conn.close_code,
            # At most refused: the close may come before or after her message.
            "not served": [f.get("error", f["type"]) for f in signed_in.frames
                           if f.get("id") == "after-sign-out"] in ([], ["session_ended"]),
            "new socket": await refused(stack, "mallory", 0, own, cookie=cookie),
        }
        # More sockets than one account may hold open at once.
        results["sockets"] = await too_many_sockets(stack, "mallory", own)

    run(attack)
    print(f"\nattacker: {results}")
    assert all(v == "refused" for v in results["origins"].values()), results["origins"]
    assert set(results["tables"].values()) == {4403}, results["tables"]
    assert sum(results["malformed"].values()) == len(MALFORMED) + 1, results["malformed"]
    assert set(results["malformed"]) <= REFUSALS, results["malformed"]
    assert results["still answers"] == "pong"
    assert results["oracle"][0] == results["oracle"][1], results["oracle"]
    assert results["oracle"][0][0] == "setting_invalid", results["oracle"]
    assert results["accept nothing"] == "stake_no_proposal"
    assert results["after sign-out"] == {"closed": 4401, "not served": True, "new socket": 4401}
    assert results["sockets"]["refused"] >= SOCKETS_OVER, results["sockets"]
    assert set(results["sockets"]["codes"]) == {4429}, results["sockets"]
    assert strangers_leaks(stack.record, "mallory", others, stack.database) == []
    assert_nothing_hidden_leaked(stack)
    COUNTS["attacker attempts"] += (
        len(BAD_ORIGINS) + len(results["tables"]) + 4 * len(others) + len(MALFORMED) + 3
        + SOCKETS_PER_USER + SOCKETS_OVER
    )

