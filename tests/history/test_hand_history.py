"""The hand history in JSON lines (docs/hand-history.md): every revealed deal
with its deck and secret, from the page and the API alike, which
``manage.py verify_hand_history`` re-settles with the engine alone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import User
from games import engine, services
from tests.accounts.test_api_tokens import create, signed_in
from tests.api.test_permissions import body, client_for
from tests.support import STRONG, WEAK, deal_friend, deck_with, house_front

pytestmark = pytest.mark.django_db

FOULED_FRONT = ["As", "Ah"]  # and a back of nine high: the front beats the back


def export(client: Client, path: str = "/history/export.jsonl") -> list[dict[str, Any]]:
    response = client.get(path)
    assert response.status_code == 200, body(response)
    assert response["Content-Type"] == "application/jsonl; charset=utf-8"
    return [json.loads(line) for line in body(response).decode().splitlines()]


def verify(tmp_path: Path, lines: list[dict[str, Any]], capsys: Any) -> tuple[int, str]:
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    try:
        call_command("verify_hand_history", str(path))
        status = 0
    except SystemExit as stop:
        status = int(stop.code or 0)
    return status, capsys.readouterr().out


@pytest.fixture
def three_deals(
    player: User, friend: User, play_solo: Callable[..., Any], rig: Callable[..., None]
) -> list[Any]:
    """A solo deal by the house way, a fouled solo deal, and a friend deal."""
    solo = services.table_start(user=player, mode="solo")
    first = play_solo(player, solo, STRONG, WEAK)
    rig(deck_with("As Ah 9d 7c 5h 4c 3s", WEAK))
    services.stake_propose(user=player, table_id=solo.pk, amount=10)
    fouled = services.deal_start(user=player, table_id=solo.pk)
    services.setting_lock(user=player, table_id=solo.pk, front=FOULED_FRONT, confirm_foul=True)
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    together = deal_friend(rig, table, player, friend, WEAK, STRONG, stake=7)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(WEAK))
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(STRONG))
    return [first, fouled, together]


def test_every_revealed_deal_is_a_line_the_engine_bears_out(
    player: User, three_deals: list[Any], tmp_path: Path, capsys: Any
) -> None:
    lines = export(client_for(player))
    assert [line["deal_id"] for line in lines] == [deal.pk for deal in reversed(three_deals)]
    for line in lines:
        assert line["format"] == "paigow-lab/hand-history"
        assert line["version"] == 1
        assert engine.record_problems(line) == []
        assert len(line["deck"]) == 53
        assert engine.verify_shuffle(line["deck"], line["secret"], line["commitment"])
    friend_deal, fouled, _ = lines
    assert "E-" not in json.dumps(lines)  # decimals as plain text, never "0E-9"
    assert fouled["you"]["foul"] is True
    assert fouled["result"] == "loss"
    assert fouled["ledgers"]["actual"]["delta"] == "-10.00"
    assert friend_deal["mode"] == "friend"
    assert friend_deal["other"]["name"] == "grace"
    assert friend_deal["ledgers"]["with_5"]["delta"] == "-7.00"
    assert verify(tmp_path, lines, capsys) == (
        0, "All 3 deals hold: shuffles, cards, settlements and ledgers.\n"
    )


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda r: r.update(result="win"), "result: the record says 'win'"),
        (lambda r: r["ledgers"]["actual"].update(delta="10.00"), "actual ledger"),
        (lambda r: r.update(deck=[*r["deck"][1:], r["deck"][0]]), "commitment"),
        (lambda r: r["other"].update(front=r["other"]["back"][:2]), "other side's setting"),
        (lambda r: r.update(version=2), "not a paigow-lab/hand-history record of version 1"),
    ],
)
def test_a_changed_line_is_named_and_the_check_fails(
    player: User, three_deals: list[Any], tmp_path: Path, capsys: Any,
    change: Callable[[dict[str, Any]], None], said: str,
) -> None:
    lines = export(client_for(player))
    change(lines[1])
    status, out = verify(tmp_path, lines, capsys)
    assert status == 1
    assert f"line 2: deal {lines[1]['deal_id']}: " in out
    assert said in out
    assert "line 1" not in out
    assert "line 3" not in out
    assert out.endswith("1 of 3 deals do not hold.\n")


def test_a_line_that_is_not_json_is_named(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "hands.jsonl"
    path.write_text("{not json\n")
    with pytest.raises(SystemExit) as stop:
        call_command("verify_hand_history", str(path))
    assert stop.value.code == 1
    assert "line 1: not a JSON object" in capsys.readouterr().out


def test_only_revealed_deals_and_only_the_filtered_ones_are_exported(
    player: User, friend: User, three_deals: list[Any], rig: Callable[..., None]
) -> None:
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    deal_friend(rig, table, player, friend, WEAK, STRONG)  # dealt, not revealed
    client = client_for(player)
    assert len(export(client)) == 3
    solo = export(client, "/history/export.jsonl?mode=solo")
    assert [line["mode"] for line in solo] == ["solo", "solo"]
    assert export(client_for(friend))[0]["you"]["name"] == "grace"


def test_the_api_gives_the_same_lines_to_a_token(
    player: User, three_deals: list[Any]
) -> None:
    token = create(signed_in(player))
    api = Client(HTTP_AUTHORIZATION=f"Token {token}")
    assert export(api, "/api/hands/export/?mode=friend") == export(
        client_for(player), "/history/export.jsonl?mode=friend"
    )
    refused = api.get("/api/hands/export/?mode=poker")
    assert refused.status_code == 400
    assert refused.json()["error"]


def test_signed_out_there_is_no_export() -> None:
    assert Client().get("/history/export.jsonl").status_code == 302
    assert Client().get("/api/hands/export/").status_code in (401, 403)
