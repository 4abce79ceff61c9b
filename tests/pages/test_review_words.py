"""Issue #45 on the practice, table and lobby pages: a practice result draws
its hands as the table does and names the house-way row in words; the card
faces menu only when there is a choice; the what-if ledger said where a
table ends; a solo table's status in the lobby."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.models import Table
from tests.history.test_review_words import ROW_IDS, hands_drawn, in_table_order, shown_text
from tests.pages import test_practice_pages as practice

pytestmark = pytest.mark.django_db

# The practice pages' fixtures: fewer opponents (autouse) and a signed-in client.
few_opponents = practice.few_opponents
signed_in = practice.signed_in


@pytest.mark.parametrize("front", [["Ks", "7h"], ["8d", "8c"]])
def test_a_practice_result_draws_its_hands_in_the_tables_order_and_its_row_in_words(
    signed_in: Client, front: list[str]
) -> None:
    hand = practice.deal_two_pair(signed_in)
    page = signed_in.post(f"/practice/hands/{hand.pk}/lock/", {"front": front},
                          follow=True).content.decode()
    result = page.split('class="practice-result"')[1]
    drawn = hands_drawn(result)
    assert len(drawn) == 6
    assert all(in_table_order(cards) for cards in drawn), drawn
    # The house way's back, aces together: not deck order's "As Ks Ah 7h 4d".
    assert ["As", "Ah", "Ks", "7h", "4d"] in drawn
    text = " ".join(shown_text(result).split())
    assert "House way (Two pair, split)" in text
    assert ROW_IDS.search(text) is None


def test_the_json_lock_keeps_the_row_id_and_its_html_the_words(signed_in: Client) -> None:
    hand = practice.deal_two_pair(signed_in)
    answer = signed_in.post(f"/practice/hands/{hand.pk}/lock/", {"front": ["8d", "8c"]},
                            HTTP_ACCEPT="application/json").json()
    assert answer["result"]["house_way"]["row"] == "two-pair-split"
    assert "(Two pair, split)" in answer["result_html"]


def test_the_card_faces_menu_is_there_only_with_a_picture_pack(
    signed_in: Client, player: User, settings: Any, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    table = services.table_start(user=player, mode="solo")
    monkeypatch.delenv("CARD_FACES_DIR", raising=False)
    settings.CARD_FACES_DIR = ""
    page = signed_in.get(f"/tables/{table.pk}/").content.decode()
    assert 'id="faces-choice"' not in page
    assert "Card faces" not in page
    settings.CARD_FACES_DIR = str(tmp_path)
    page = signed_in.get(f"/tables/{table.pk}/").content.decode()
    assert '<option value="pack">Picture pack</option>' in page


def test_a_finished_table_says_what_the_with_5_ledger_is(
    signed_in: Client, player: User
) -> None:
    table = services.table_start(user=player, mode="solo")
    finished = signed_in.get(f"/tables/{table.pk}/").content.decode().split('id="finished"')[1]
    text = " ".join(shown_text(finished.split("</section>")[0]).split())
    assert "“With 5%” is a what-if ledger" in text
    assert "can be below 0" in text


def test_the_lobby_says_a_solo_table_waits_for_your_stake(
    signed_in: Client, player: User
) -> None:
    solo = services.table_start(user=player, mode="solo")
    friend = services.table_start(user=player, mode="friend")
    Table.objects.filter(pk=friend.pk).update(status=Table.Status.BETTING)
    items = {line.split('href="/tables/')[1].split("/")[0]: line
             for line in signed_in.get("/lobby/").content.decode().split("<li>")[1:]}
    solo_item, friend_item = " ".join(items[str(solo.pk)].split()), items[str(friend.pk)]
    assert solo.status == Table.Status.BETTING
    assert "Waiting for your stake" in solo_item
    assert "Agreeing a stake" not in solo_item
    assert "Agreeing a stake" in friend_item
