"""What the history pages and the CSV say about a deal: fouls flagged, one
minus sign (U+2212) on the pages while the CSV stays ASCII, the replay's
link to the shuffle proof, and the report's skill at each real reveal time."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from games import services
from games.models import Deal
from tests.api.test_permissions import body, client_for
from tests.support import SPLIT_A, SPLIT_B, STRONG, WEAK, deck_with

pytestmark = pytest.mark.django_db

FOUL_FRONT = ["Ks", "Qd"]  # king high in front, nine high behind: a foul
HYPHEN_NUMBER = re.compile(r">\s*-\d")  # a displayed number written with ASCII's "-"


@pytest.fixture
def fouled(play_solo: Callable[..., Deal], rig: Callable[..., None], player: Any) -> Deal:
    """A house-way win, then a foul locked anyway (skill −0.5: the house way pushes)."""
    table = services.table_start(user=player, mode="solo")
    play_solo(player, table, STRONG, WEAK)
    rig(deck_with(SPLIT_A, SPLIT_B))
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    deal = services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=FOUL_FRONT, confirm_foul=True)
    deal.refresh_from_db()
    return deal


def text(client: Client, path: str) -> str:
    answer = client.get(path)
    assert answer.status_code == 200, path
    return body(answer).decode()


def test_the_history_list_flags_the_foul(fouled: Deal, player: Any) -> None:
    page = text(client_for(player), "/history/")
    rows = re.findall(r'<tr class="result-.*?</tr>', page, re.DOTALL)
    assert len(rows) == 2
    newest, oldest = rows
    assert '<span class="tag foul">Foul</span>' in newest
    assert "Foul" not in oldest


def test_the_csv_has_a_foul_column_for_each_side(fouled: Deal, player: Any) -> None:
    export = body(client_for(player).get("/history/export.csv")).decode()
    rows = list(csv.DictReader(io.StringIO(export)))
    assert [(r["deal_number"], r["foul"], r["other_foul"]) for r in rows] == [
        ("2", "yes", "no"), ("1", "no", "no")]
    # Machine-readable: the skill keeps ASCII's minus.
    assert rows[0]["skill"] == "-0.50"


def test_the_api_rows_carry_the_foul(fouled: Deal, player: Any) -> None:
    rows = client_for(player).get("/api/hands/").json()["results"]
    assert [(r["you"]["foul"], r["other"]["foul"]) for r in rows] == [(True, False),
                                                                       (False, False)]


@pytest.mark.parametrize("path", ["/history/", "/history/sessions/", "/history/skill/",
                                  "session", "deal"])
def test_negative_numbers_show_the_minus_sign(fouled: Deal, player: Any, path: str) -> None:
    path = {"session": f"/history/sessions/{fouled.table_id}/",
            "deal": f"/history/deals/{fouled.pk}/"}.get(path, path)
    page = text(client_for(player), path)
    assert "\u22120.5" in page  # the foul's skill, or a total or mean that includes it
    assert HYPHEN_NUMBER.search(page) is None, HYPHEN_NUMBER.search(page)


def test_the_replay_links_to_the_shuffle_proof(fouled: Deal, player: Any) -> None:
    page = text(client_for(player), f"/history/deals/{fouled.pk}/")
    proof = f"/tables/{fouled.table_id}/deals/{fouled.number}/verify/"
    assert f'href="{proof}"' in page
    assert text(client_for(player), proof).count("Checked: the deck is all 53 cards") == 1


def test_the_skill_chart_plots_each_reveal_at_its_real_time(
    fouled: Deal, player: Any
) -> None:
    # Two reveals 13 minutes apart on one day: two points, 780 s apart.
    first = Deal.objects.get(table_id=fouled.table_id, number=1)
    revealed = timezone.now().replace(hour=9, minute=0, second=0, microsecond=0)
    Deal.objects.filter(pk=first.pk).update(revealed_at=revealed)
    Deal.objects.filter(pk=fouled.pk).update(revealed_at=revealed + timedelta(minutes=13))
    page = text(client_for(player), "/history/skill/")
    data = json.loads(re.search(
        r'<script id="chart-skill-time" type="application/json">(.*?)</script>', page, re.DOTALL
    ).group(1))
    assert data["at"] == [revealed.timestamp(), revealed.timestamp() + 780]
    assert data["cumulative"] == [0.0, -0.5]


def test_a_sessions_luck_average_is_rounded_once_from_the_exact_mean(
    play_solo: Callable[..., Deal], player: Any
) -> None:
    # 76 estimates whose exact mean is 5.049506…: one decimal is 5.0; rounding
    # the three-place 5.050 again would show 5.1 (rules §6: round once).
    table = services.table_start(user=player, mode="solo")
    for number in range(76):
        luck = (53, 1, 66) if number == 0 else (54, 0, 66)
        play_solo(player, table, STRONG, WEAK, luck=luck)
    client = Client()
    client.force_login(player)
    for url in ("/history/sessions/", f"/history/sessions/{table.pk}/"):
        text = client.get(url).content.decode()
        assert re.search(r">\s*5\.0\s*<", text), url
