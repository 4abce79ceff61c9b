"""Table sockets while PostgreSQL stops under them, against real processes: a
private PostgreSQL cluster (``tests.system.postgres``) and daphne as
production starts it (``python -m paigow_site.server``).

One player keeps two tabs open and asks for the ``state`` over and over
while PostgreSQL is stopped for about a second and started again, eight
times. Each time, every tab either keeps answering ``ping`` or was closed
with a code a server may send, and reconnects as the browser does (a 4429,
the per-player socket cap, would lock the player out). Afterwards the player
opens a new socket and plays a deal; the database holds a presence row for
each open socket only; and once every tab is closed the friend's view says
the player is gone.

Before: each stop left a socket open that never answered again (its close
with 1011 refused by autobahn), its heartbeat keeping it counted, until the
cap refused every new socket."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.live_site import embedded_env, migrate
from tests.system.postgres import Postgres, private_postgres, wait_accepting
from tests.system.test_faults import Browser, Site, friend_table, house_front
from tests.system.wsclient import Closed, WebSocket

pytestmark = pytest.mark.slow

ROUNDS = 8
TABS = 2
CAP = 4  # SOCKETS_PER_USER: two tabs and two ghosts reach it
STOPPED_SECONDS = 1.0
ANSWER_SECONDS = 5.0


class ProductionServer(Site):
    module = "paigow_site.server"


def valid_close(code: int | None) -> bool:
    """A code a server may send (RFC 6455, autobahn's check)."""
    return code == 1000 or (code is not None and 3000 <= code <= 4999)


def open_tab(player: Browser, table_id: int) -> WebSocket:
    """A table socket of ``player`` past its first frame (``Closed`` if refused)."""
    site = player.site
    ws = WebSocket(
        site.base.replace("http", "ws") + f"/ws/tables/{table_id}/",
        origin=site.base, cookie=f"sessionid={player.cookie('sessionid')}",
    )
    first = ws.recv()
    assert first["type"] == "state", first
    return ws


def answer(ws: WebSocket, message: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The reply to ``message`` (frames without its id passed over);
    ``TimeoutError`` when none comes within ``seconds``."""
    ws.send(message)
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        frame = ws.recv(timeout=left)
        if frame.get("id") == message["id"]:
            return frame


def stop_for(pg: Postgres, seconds: float) -> None:
    time.sleep(0.3)  # the state messages are already flowing
    pg.stop("fast")
    time.sleep(seconds)
    pg.start()


def ask_state_until(tabs: list[WebSocket | None], done: threading.Thread,
                    closes: list[int | None]) -> None:
    """Each open tab asks for the state again and again until ``done`` ends;
    a tab closed under it becomes None (its code in ``closes``)."""
    n = 0
    while done.is_alive():
        for i, ws in enumerate(tabs):
            if ws is None:
                continue
            n += 1
            try:
                answer(ws, {"type": "state", "id": f"s{n}"}, 0.2)
            except TimeoutError:
                pass
            except Closed as closed:
                closes.append(closed.code)
                tabs[i] = None
        time.sleep(0.05)


def presence_rows(pg: Postgres, username: str) -> int:
    with psycopg.connect(pg.url.replace("postgres://", "postgresql://")) as conn:
        row = conn.execute(
            "SELECT count(*) FROM games_presence p JOIN games_seat s ON p.seat_id = s.id"
            " JOIN accounts_user u ON s.user_id = u.id WHERE u.username = %s",
            [username],
        ).fetchone()
    assert row is not None
    return int(row[0])


def settles(check: Any, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def reconnect_tab(player: Browser, table_id: int, refused: Counter[int],
                  seconds: float = 20) -> WebSocket:
    """Reconnect as the page does after a close that is not final: again
    until a socket reaches its first frame. Refusals are counted by code."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return open_tab(player, table_id)
        except Closed as closed:
            refused[closed.code or 0] += 1
        except (OSError, ConnectionError):
            refused[0] += 1
        if time.monotonic() > deadline:
            raise AssertionError(f"no socket within {seconds}s; refused: {dict(refused)}")
        time.sleep(0.3)


def test_postgresql_stopping_under_state_messages_leaves_no_ghost_socket(
    tmp_path: Path,
) -> None:
    stats: dict[str, Any] = {
        "rounds": 0, "ghosts": [], "closes": Counter(), "refused": Counter(), "reconnect_s": [],
    }
    with private_postgres() as pg:
        env = embedded_env(
            tmp_path / "var", DATABASE_URL=pg.url, PRESENCE_HEARTBEAT_SECONDS="1",
            PRESENCE_TTL_SECONDS="30", SOCKETS_PER_USER=str(CAP),
        )
        migrate(env)
        site = ProductionServer(env, tmp_path / "daphne.log")
        site.start()
        ghosts: list[WebSocket] = []  # open, never answering: kept, as a stuck page keeps them
        try:
            table_id, ada, grace = friend_table(site)
            friend = open_tab(grace, table_id)
            tabs: list[WebSocket | None] = [open_tab(ada, table_id) for _ in range(TABS)]
            for _round in range(ROUNDS):
                stopper = threading.Thread(target=stop_for, args=(pg, STOPPED_SECONDS))
                stopper.start()
                closes: list[int | None] = []
                ask_state_until(tabs, stopper, closes)
                stopper.join()
                wait_accepting(pg)
                stats["rounds"] += 1
                made = 0
                for i, ws in enumerate(tabs):
                    if ws is None:
                        continue
                    try:
                        pong = answer(ws, {"type": "ping", "id": "p"}, ANSWER_SECONDS)
                        assert pong["type"] == "pong"
                    except Closed as closed:
                        closes.append(closed.code)
                        tabs[i] = None
                    except TimeoutError:
                        ghosts.append(ws)
                        made += 1
                        tabs[i] = None
                stats["ghosts"].append(made)
                stats["closes"].update(closes)
                for i, ws in enumerate(tabs):
                    if ws is None:
                        started = time.monotonic()
                        tabs[i] = reconnect_tab(ada, table_id, stats["refused"])
                        stats["reconnect_s"].append(round(time.monotonic() - started, 2))
            assert sum(stats["ghosts"]) == 0, stats
            assert all(valid_close(code) for code in stats["closes"]), stats
            assert not stats["refused"].get(4429), stats

            # The player opens one more socket and plays a deal on it.
            table = open_tab(ada, table_id)
            proposed = answer(table, {"type": "stake", "amount": 10, "id": "a1"}, 10)
            shown = proposed["table"]["proposal"]["id"]
            accept = {"type": "accept_stake", "amount": 10, "proposal": shown, "id": "g1"}
            assert answer(friend, accept, 10)["table"]["stake"] == 10
            dealt = answer(table, {"type": "deal", "id": "a2"}, 10)
            seen = answer(friend, {"type": "state", "id": "g2"}, 10)
            answer(table, {"type": "lock", "front": house_front(dealt), "id": "a3"}, 10)
            done = answer(friend, {"type": "lock", "front": house_front(seen), "id": "g3"}, 10)
            assert done["deal"]["revealed"] is True, done

            # A row for each open socket only; and none once they are closed,
            # the friend shown the player gone.
            open_now = [ws for ws in tabs if ws is not None] + [table]
            assert settles(lambda: presence_rows(pg, "ada") == len(open_now)), (
                presence_rows(pg, "ada"), len(open_now), stats,
            )
            for ws in open_now + ghosts:
                ws.close()
            assert settles(lambda: presence_rows(pg, "ada") == 0), stats
            deadline = time.monotonic() + 10
            gone = False
            while not gone and time.monotonic() < deadline:
                try:
                    frame = friend.recv(timeout=max(0.1, deadline - time.monotonic()))
                except TimeoutError:
                    break
                gone = frame.get("type") == "state" and not frame["seats"]["other"]["connected"]
            assert gone, "the friend still sees the player connected"
        finally:
            site.stop()
            log = (tmp_path / "daphne.log").read_text(errors="replace")
            stats["invalid_close_logged"] = log.count("invalid close code")
            stats["killed_logged"] = log.count("took too long to shut down")
            stats["pg_stops"] = pg.stops
            print(f"\npostgres stops: {stats}")
