"""Faults against real processes: daphne killed with SIGKILL mid-deal and
started again, and Redis restarted under a live table.

Two players sign up over HTTP, open a friend table and play over real
WebSockets (``tests.system.wsclient``). After each fault they reconnect, the
first frame is the full state, a resent message (same ``id``) is applied once,
the deal finishes exactly once, and the database holds exactly one settlement
with stacks adding up to 2,000 (checked by a separate process reading it).
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from games import engine
from tests.conftest import IN_CI
from tests.live_site import REPO, embedded_env, free_port, migrate, stop_group, wait_healthy
from tests.system.wsclient import Closed, WebSocket

pytestmark = pytest.mark.slow
PASSWORD = "a long pass phrase 1"
FAULTS = {"kills": 0, "redis_restarts": 0}

LEDGER_CHECK = """
import json, django
django.setup()
from decimal import Decimal
from django.db.models import Sum
from games.models import ClientMessage, Deal, LedgerEntry, Seat
out = {"tables": []}
for deal in Deal.objects.all():
    out.setdefault("deals", []).append(
        [deal.table_id, deal.number, deal.status, LedgerEntry.objects.filter(deal=deal).count()])
for seat in Seat.objects.all():
    s = LedgerEntry.objects.filter(seat=seat, ledger="actual").aggregate(s=Sum("amount"))["s"] or 0
    out["tables"].append([seat.table_id, seat.number, seat.stack, int(1000 + s)])
out["ids"] = ClientMessage.objects.count()
print(json.dumps(out))
"""


class Site:
    """One daphne process that can be killed and started again on the same port.
    ``module``: what runs it (``paigow_site.server`` is daphne as production
    starts it)."""

    module = "daphne"

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log = env, log
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", self.module, "-b", "127.0.0.1", "-p", str(self.port),
                 "paigow_site.asgi:application"],
                cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_healthy(self.base, self.process)

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        FAULTS["kills"] += 1

    def stop(self) -> None:
        if self.process is not None:
            stop_group(self.process)

    def check(self) -> dict[str, Any]:
        result = subprocess.run(
            [sys.executable, "-c", LEDGER_CHECK], cwd=REPO, capture_output=True, text=True,
            env={**self.env, "DJANGO_SETTINGS_MODULE": "paigow_site.settings"}, check=True,
        )
        data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
        return data


class Browser:
    """A player: a cookie jar for HTTP and a table socket."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.jar = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.ws: WebSocket | None = None

    def cookie(self, name: str) -> str:
        return next(c.value for c in self.jar if c.name == name)

    def get(self, path: str) -> tuple[str, str]:
        with self.http.open(self.site.base + path, timeout=10) as response:
            return response.geturl(), response.read().decode()

    def post(self, path: str, data: dict[str, str] | None = None) -> tuple[str, str]:
        body = urllib.parse.urlencode(
            {**(data or {}), "csrfmiddlewaretoken": self.cookie("csrftoken")}
        ).encode()
        with self.http.open(self.site.base + path, data=body, timeout=10) as response:
            return response.geturl(), response.read().decode()

    def sign_up(self, name: str) -> None:
        self.get("/accounts/sign-up/")
        url, _ = self.post(
            "/accounts/sign-up/", {"username": name, "password1": PASSWORD, "password2": PASSWORD}
        )
        assert url.endswith("/lobby/"), url

    def connect(self, table_id: int) -> dict[str, Any]:
        ws_url = self.site.base.replace("http", "ws") + f"/ws/tables/{table_id}/"
        self.ws = WebSocket(
            ws_url, origin=self.site.base, cookie=f"sessionid={self.cookie('sessionid')}"
        )
        first = self.ws.recv()
        assert first["type"] == "state"
        return first

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.ws is not None
        self.ws.send(message)
        return self.ws.reply_to(message["id"])


def friend_table(site: Site) -> tuple[int, Browser, Browser]:
    ada, grace = Browser(site), Browser(site)
    ada.sign_up("ada")
    grace.sign_up("grace")
    url, page = ada.post("/tables/new/friend/")
    table_id = int(re.search(r"/tables/(\d+)/", url).group(1))  # type: ignore[union-attr]
    token = re.search(r"/invite/#([\w-]+)", page).group(1)  # type: ignore[union-attr]
    url, _ = grace.post("/invite/", {"token": token})  # as the invite page's script does
    assert url.endswith(f"/tables/{table_id}/")
    return table_id, ada, grace


def house_front(state: dict[str, Any]) -> list[str]:
    return list(engine.house_way(tuple(state["deal"]["you"]["cards"])).setting.front)


def reconnect(player: Browser, table_id: int, seconds: float = 30) -> dict[str, Any]:
    """Reconnect as a browser does: retry until the server answers."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return player.connect(table_id)
        except (OSError, Closed, ConnectionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def assert_settled_once(site: Site, deals: int) -> None:
    data = site.check()
    assert [d[2:] for d in data["deals"]] == [["revealed", 4]] * deals, data
    stacks = [row[2] for row in data["tables"]]
    assert sum(stacks) == 2000, data
    assert all(stack == from_ledger for *_, stack, from_ledger in data["tables"]), data


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    env = embedded_env(tmp_path / "var", PRESENCE_TTL_SECONDS="5")
    migrate(env)
    site = Site(env, tmp_path / "daphne.log")
    site.start()
    try:
        yield site
    finally:
        site.stop()


@pytest.mark.parametrize("when", ["after_one_lock", "after_both_locks"])
def test_a_killed_server_finishes_the_deal_exactly_once(site: Site, when: str) -> None:
    table_id, ada, grace = friend_table(site)
    ada.connect(table_id)
    grace.connect(table_id)
    proposed = ada.send({"type": "stake", "amount": 50, "id": "a1"})
    assert proposed["type"] == "state"
    shown = proposed["table"]["proposal"]["id"]  # pushed to grace as well
    accept = {"type": "accept_stake", "amount": 50, "proposal": shown, "id": "g1"}
    assert grace.send(accept)["table"]["stake"] == 50
    dealt = ada.send({"type": "deal", "id": "a2"})
    grace_cards = grace.send({"type": "state", "id": "g-look"})
    lock_a = {"type": "lock", "front": house_front(dealt), "id": "a3"}
    lock_g = {"type": "lock", "front": house_front(grace_cards), "id": "g2"}
    assert ada.send(lock_a)["deal"]["you"]["locked"] is True
    if when == "after_both_locks":
        assert grace.ws is not None
        grace.ws.send(lock_g)  # the reply may or may not come: kill now
    site.kill()
    site.start()
    a_state = reconnect(ada, table_id)
    g_state = reconnect(grace, table_id)
    assert a_state["deal"]["number"] == 1
    assert a_state["deal"]["you"]["locked"] is True
    assert a_state["deal"]["commitment"] == dealt["deal"]["commitment"]
    # The player whose reply was lost resends: applied once.
    again = ada.send(lock_a)
    assert again["type"] == "state"
    assert again.get("replayed") is True
    done = grace.send(lock_g)
    assert done["type"] == "state", done
    assert done["deal"]["revealed"] is True, done
    if when == "after_one_lock":
        assert not g_state["deal"]["revealed"]
        assert "replayed" not in done
    for player in (ada, grace):
        state = player.send({"type": "state", "id": "final"})
        assert state["deal"]["revealed"] is True
        assert state["seats"]["you"]["stack"] + state["seats"]["other"]["stack"] == 2000
    assert_settled_once(site, deals=1)
    # And the table plays on.
    rebet = grace.send({"type": "rebet", "amount": 50, "id": "g3"})
    assert rebet["table"]["proposal"]["amount"] == 50


# --- Redis restarts under a live table ----------------------------------------------------


def _redis_server() -> str:
    found = shutil.which("redis-server")
    if found is None:
        message = "redis-server is not installed"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return found


class Redis:
    """A private redis-server on a free port (never the shared one on 6379)."""

    def __init__(self, binary: str) -> None:
        self.binary, self.port = binary, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True,
        )
        import socket

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a test may have frozen it
            self.process.terminate()
            self.process.wait(timeout=10)


@contextmanager
def private_redis() -> Iterator[Redis]:
    """A started ``Redis``, stopped when the block ends however it ends."""
    server = Redis(_redis_server())
    server.start()
    try:
        yield server
    finally:
        server.stop()


def next_state(player: Browser, table_id: int, seconds: float = 15) -> dict[str, Any]:
    """The next frame the server pushes; when the socket was closed under it,
    reconnect (as the browser does) and take the full state it starts with."""
    assert player.ws is not None
    try:
        return player.ws.recv(timeout=seconds)
    except Closed:
        return reconnect(player, table_id)


def wait_for(
    player: Browser, table_id: int, wanted: Any, seconds: float = 20
) -> dict[str, Any]:
    """Frames (reconnecting when closed) until one satisfies ``wanted``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            frame = next_state(player, table_id, seconds=max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            break
        if frame.get("type") == "state" and wanted(frame):
            return frame
    raise AssertionError(f"no such frame within {seconds}s")


@pytest.mark.services
def test_redis_restarting_under_a_live_table_loses_nothing(tmp_path: Path) -> None:
    redis = Redis(_redis_server())
    redis.start()
    env = embedded_env(
        tmp_path / "var", REDIS_URL=f"redis://127.0.0.1:{redis.port}/0", CELERY_EAGER="1",
        PRESENCE_HEARTBEAT_SECONDS="1",
    )
    migrate(env)
    # Two processes share the table through Redis: ada on one, grace on the other.
    first, second = Site(env, tmp_path / "a.log"), Site(env, tmp_path / "b.log")
    try:
        first.start()
        second.start()
        table_id, ada, grace = friend_table(first)
        grace.site = second
        ada.connect(table_id)
        grace.connect(table_id)
        assert next_state(ada, table_id)["seats"]["other"]["connected"] is True  # over Redis
        proposed = ada.send({"type": "stake", "amount": 20, "id": "a1"})["table"]["proposal"]
        shown = next_state(grace, table_id)["table"]["proposal"]
        assert shown == {**proposed, "by": "other"}
        assert shown["amount"] == 20
        redis.stop()
        redis.start()  # empty: no groups, no channels
        FAULTS["redis_restarts"] += 1
        time.sleep(3)
        # The next change still reaches the other process's player, or that
        # player's socket was closed and the reconnect resyncs the full state.
        for _attempt in range(20):
            try:
                accepted = grace.send(
                    {"type": "accept_stake", "amount": 20, "proposal": shown["id"], "id": "g1"}
                )
                break
            except (Closed, OSError):
                reconnect(grace, table_id)
        assert accepted["table"]["stake"] == 20, accepted
        wait_for(ada, table_id, lambda f: f["table"]["stake"] == 20)
        dealt = ada.send({"type": "deal", "id": "a2"})
        grace_view = wait_for(grace, table_id, lambda f: (f["deal"] or {}).get("number") == 1)
        ada.send({"type": "lock", "front": house_front(dealt), "id": "a3"})
        wait_for(grace, table_id, lambda f: f["deal"]["other"]["locked"])
        done = grace.send({"type": "lock", "front": house_front(grace_view), "id": "g2"})
        assert done["deal"]["revealed"] is True
        wait_for(ada, table_id, lambda f: f["deal"]["revealed"])
        assert_settled_once(first, deals=1)
    finally:
        first.stop()
        second.stop()
        redis.stop()
        print(f"\nfaults: {FAULTS}")
