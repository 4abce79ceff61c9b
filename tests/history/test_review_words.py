"""The review pages (issue #45) draw every hand as the table does, ranks
together from high to low, and say in words what the API and the CSV keep as
ids: a house-way row, a fouled deal's parts, the what-if ledger."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from games import services
from games.engine.house_way import REASONS
from games.models import Deal, Table
from games.services import upkeep
from tests.api.test_permissions import body
from tests.support import WEAK, deck_with

pytestmark = pytest.mark.django_db

# One pair of threes: the house way keeps them behind with 9-8-4, A-K in front.
# In deck order that back is "3s 8d 4d 9c 3c", the pair split (the example).
PAIR = "Ah Kd 3s 3c 9c 8d 4d"
PAIR_FRONT = ["9c", "8d"]  # not the house way: the threes behind with A-K
# Ace-king in front, ten-eight high behind: a foul whose front beats the dealer's 9-7.
NO_PAIR = "As Kd Th 8c 6s 4h 2d"
FOUL_FRONT = ["As", "Kd"]
# Every row id with a hyphen: none of them may be read on a page.
ROW_IDS = re.compile(r"\b(" + "|".join(
    re.escape(row) for row in sorted(REASONS, key=len, reverse=True) if "-" in row
) + r")\b")
MINI_CARDS = re.compile(
    r'<span class="mini-cards">((?:<span class="mini-card.*?</span></span>)*)</span>')
RANKS = "23456789TJQKA"


@pytest.fixture(autouse=True)
def fewer_opponents(settings: Any) -> None:
    settings.DECISION_COST_SAMPLES = 500


@pytest.fixture
def session(
    player: Any, play_solo: Callable[..., Deal], rig: Callable[..., None]
) -> tuple[Table, Deal, Deal]:
    """A solo session: the pair of threes set off the house way, then a foul
    locked anyway; both decision costs in."""
    table = services.table_start(user=player, mode="solo")
    pair = play_solo(player, table, PAIR, WEAK, front=PAIR_FRONT)
    rig(deck_with(NO_PAIR, WEAK))
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    foul = services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=FOUL_FRONT, confirm_foul=True)
    assert upkeep.decision_costs_sweep() == 2
    return table, pair, foul


@pytest.fixture
def ada(player: Any) -> Client:
    client = Client()
    client.force_login(player)
    return client


def page(client: Client, path: str) -> str:
    answer = client.get(path)
    assert answer.status_code == 200, path
    return body(answer).decode()


def shown_text(page: str) -> str:
    """What a reader reads: the page without its scripts, styles and tags."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.DOTALL)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def hands_drawn(page: str) -> list[list[str]]:
    """Each row of small card faces on a page, as its cards' codes in order."""
    return [re.findall(r'data-card="(\w+)"', group) for group in MINI_CARDS.findall(page)]


def in_table_order(cards: list[str]) -> bool:
    """The joker first, then ranks from high to low; a rank's cards spades,
    hearts, diamonds, clubs (js/cards.mjs's byRank)."""
    places = [(99, 0) if c == "JK" else (RANKS.index(c[0]), "cdhs".index(c[1])) for c in cards]
    return places == sorted(places, reverse=True)


def review_paths(table: Table, pair: Deal, foul: Deal) -> list[str]:
    return ["/history/", f"/history/deals/{pair.pk}/", f"/history/deals/{foul.pk}/",
            "/history/sessions/", f"/history/sessions/{table.pk}/", "/history/skill/", "/record/"]


def test_every_review_page_draws_its_hands_ranks_together_high_to_low(
    session: tuple[Table, Deal, Deal], ada: Client
) -> None:
    drawn = 0
    for path in review_paths(*session):
        for cards in hands_drawn(page(ada, path)):
            assert in_table_order(cards), (path, cards)
            drawn += 1
    assert drawn > 20
    replay = hands_drawn(page(ada, f"/history/deals/{session[1].pk}/"))
    # The house way's back and the setting's, pairs together: not "3s 8d 4d 9c 3c".
    assert ["9c", "8d", "4d", "3s", "3c"] in replay
    assert ["Ah", "Kd", "4d", "3s", "3c"] in replay


def test_no_review_page_shows_a_row_id_and_the_rows_are_in_words(
    session: tuple[Table, Deal, Deal], ada: Client
) -> None:
    for path in review_paths(*session):
        text = shown_text(page(ada, path))
        assert ROW_IDS.search(text) is None, (path, ROW_IDS.search(text))
    replay = shown_text(page(ada, f"/history/deals/{session[1].pk}/"))
    assert "The house way (One pair)" in " ".join(replay.split())
    report = page(ada, "/history/skill/")
    assert "<td>One pair</td>" in report
    assert "<td>No pair</td>" in report
    assert '<h3 class="worst-row">One pair</h3>' in report
    chart = json.loads(re.search(
        r'<script id="chart-skill-rows" type="application/json">(.*?)</script>', report, re.DOTALL
    )[1])
    assert sorted(chart["rows"]) == ["No pair", "One pair"]


def test_the_api_and_the_csv_keep_the_row_ids(
    session: tuple[Table, Deal, Deal], ada: Client
) -> None:
    rows = ada.get("/api/hands/").json()["results"]
    assert [r["house_way"]["row"] for r in rows] == ["no-pair", "one-pair"]
    export = body(ada.get("/history/export.csv")).decode()
    assert [r["house_row"] for r in csv.DictReader(io.StringIO(export))] == [
        "no-pair", "one-pair"]


def test_a_fouled_deal_calls_no_part_a_win(
    session: tuple[Table, Deal, Deal], ada: Client
) -> None:
    foul = session[2]
    replay = page(ada, f"/history/deals/{foul.pk}/")
    parts = replay.split('<h2 id="parts-h">')[1].split("</section>")[0]
    cells = re.findall(r"<td>(.*?)</td>", parts.split("<tbody>")[1].split("</tbody>")[0])
    # Each row: your setting's part, then the house way's (a house way never fouls).
    assert [cells[0], cells[2]] == ["not played: a foul"] * 2
    assert [cells[1], cells[3]] == ["win", "win"]
    assert "Your setting fouled: a foul loses the whole bet" in shown_text(replay)
    listed = re.findall(r'<tr class="result-.*?</tr>', page(ada, "/history/"), re.DOTALL)[0]
    assert "your foul loses the whole bet" in listed
    assert "front win" not in listed


def test_the_skill_report_has_one_name(session: tuple[Table, Deal, Deal], ada: Client) -> None:
    report = page(ada, "/history/skill/")
    assert "<h1>Skill report</h1>" in report
    assert 'aria-current="page">Skill report</a>' in report
    assert "<title>Skill report" in report


def test_the_sessions_say_what_the_with_5_ledger_is(
    session: tuple[Table, Deal, Deal], ada: Client
) -> None:
    for path in ("/history/sessions/", f"/history/sessions/{session[0].pk}/"):
        text = " ".join(shown_text(page(ada, path)).split())
        assert "“With 5%” is a what-if ledger" in text, path
        assert "can be below 0" in text, path
