"""A reply lost with its socket: the table page resends the message with the
same id once the new socket is live, the server answers it replayed (applied
once), and the page goes on as if the first reply had come."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.test_table import deal, start_solo, wait_engine


def test_a_message_whose_reply_was_lost_is_resent_with_its_id_and_applied_once(
    page: Any, site: str
) -> None:
    sent: list[dict[str, Any]] = []  # page -> server, on every socket
    answers: list[dict[str, Any]] = []  # server -> page
    drop: dict[str, Any] = {"type": None, "id": None}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            sent.append(frame)
            if drop["type"] == frame.get("type") and drop["id"] is None:
                drop["id"] = frame.get("id")
            server.send(message)

        def from_server(message: str | bytes) -> None:
            frame = json.loads(message)
            answers.append(frame)
            if drop["id"] is not None and frame.get("id") == drop["id"]:
                drop.update(type=None, id=None)
                ws.close(code=4000)  # the reply is lost with its socket
                return
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    start_solo(page, site)

    # The stake's reply is lost: the deal that follows it comes after the resend.
    drop["type"] = "stake"
    deal(page)
    stakes = [m for m in sent if m["type"] == "stake"]
    assert len(stakes) == 2, stakes
    assert stakes[0] == stakes[1], stakes
    replayed = [a for a in answers if a.get("id") == stakes[0]["id"]]
    assert [a.get("replayed", False) for a in replayed] == [False, True]
    assert len([m for m in sent if m["type"] == "deal"]) == 1
    expect(page.locator("#commitment")).to_contain_text("Deal 1 · stake 20")

    # The lock's reply (the reveal) is lost: the resend is not locked again.
    wait_engine(page)
    page.get_by_role("button", name="House way").click()
    expect(page.locator("#cards button[aria-pressed='true']")).to_have_count(2)
    drop["type"] = "lock"
    page.get_by_role("button", name="Lock", exact=True).click()
    status = page.get_by_role("status")
    expect(status).to_contain_text(re.compile(r"Win|Push|Loss"))
    expect(page.locator("#connection")).to_have_text("Connected")
    locks = [m for m in sent if m["type"] == "lock"]
    for _ in range(50):  # the resend follows the new socket's first frame
        if len(locks) == 2 and any(
            a.get("replayed") for a in answers if a.get("id") == locks[0]["id"]
        ):
            break
        page.wait_for_timeout(100)
        locks = [m for m in sent if m["type"] == "lock"]
    assert len(locks) == 2, locks
    assert locks[0] == locks[1], locks
    lock_replays = [a.get("replayed", False) for a in answers if a.get("id") == locks[0]["id"]]
    assert lock_replays == [False, True]
    expect(page.get_by_role("alert")).to_be_hidden()  # no "already locked" / "already revealed"
    word = status.locator(".headline").inner_text().split(":")[0]
    stack = {"Win": "1020", "Push": "1000", "Loss": "980"}[word]
    expect(page.locator("#stack-you")).to_have_text(stack)
