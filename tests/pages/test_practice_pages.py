"""The practice pages: /practice/, a hand (form post and JSON), the record."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.engine import house_way
from games.models import PracticeHand

pytestmark = pytest.mark.django_db

TWO_PAIR = "As Ah 8d 8c Ks 7h 4d"
JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture(autouse=True)
def few_opponents(settings: Any) -> None:
    settings.PRACTICE_OPPONENTS = 1000


@pytest.fixture
def signed_in(client: Client, player: User) -> Client:
    client.force_login(player)
    return client


def deal_two_pair(client: Client) -> PracticeHand:
    response = client.post("/practice/deal/", {"drill": "two-pair"})
    hand = PracticeHand.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[1]))
    hw = house_way(TWO_PAIR)
    PracticeHand.objects.filter(pk=hand.pk).update(
        cards=TWO_PAIR, house_front=" ".join(hw.setting.front), house_row=hw.row)
    services.practice_analyse(hand_id=hand.pk)  # what the deal's task does
    return hand


def test_the_practice_pages_need_an_account(client: Client) -> None:
    for url in ("/practice/", "/practice/record/"):
        assert client.get(url)["Location"] == f"/accounts/sign-in/?next={url}"


def test_the_practice_page_offers_every_drill(signed_in: Client) -> None:
    page = signed_in.get("/practice/").content.decode()
    drills = re.findall(r'name="drill" id="drill-([a-z-]+)"', page)
    assert drills == ["any", "two-pair", "joker", "straights-with-pairs", "four-of-a-kind",
                      "full-house", "three-pair"]


def test_the_header_and_the_lobby_link_practice(signed_in: Client) -> None:
    page = signed_in.get("/lobby/").content.decode()
    assert page.count('href="/practice/"') == 2


def test_a_deal_goes_to_the_hand_page_with_seven_named_checkboxes(signed_in: Client) -> None:
    response = signed_in.post("/practice/deal/", {"drill": "joker"})
    page = signed_in.get(response["Location"]).content.decode()
    assert len(re.findall(r'<input type="checkbox" name="front"', page)) == 7


def test_the_no_script_pick_list_is_in_the_tables_order(signed_in: Client) -> None:
    hand = deal_two_pair(signed_in)  # As Ah 8d 8c Ks 7h 4d
    page = signed_in.get(f"/practice/hands/{hand.pk}/").content.decode()
    picks = re.findall(r'<input type="checkbox" name="front" value="(\w\w)"', page)
    assert picks == ["As", "Ah", "Ks", "8d", "8c", "7h", "4d"]


def test_a_hand_page_does_not_show_the_house_way_before_the_lock(signed_in: Client) -> None:
    hand = deal_two_pair(signed_in)
    page = signed_in.get(f"/practice/hands/{hand.pk}/").content.decode()
    state = json.loads(re.search(r'id="practice-state"[^>]*>(.*?)</script>', page, re.DOTALL)[1])
    assert ("house_way" not in page, "result" in state) == (True, False)


def test_a_form_lock_shows_the_house_way_the_best_and_the_loss(signed_in: Client) -> None:
    hand = deal_two_pair(signed_in)
    response = signed_in.post(f"/practice/hands/{hand.pk}/lock/", {"front": ["Ks", "7h"]},
                              follow=True)
    page = response.content.decode()
    for text in ("House way", "Two pair, split", "Best setting", "gave up",
                 "An estimate over 1,000 random opponents", "Next hand"):
        assert text in page


def test_a_json_lock_answers_the_result_and_its_html(signed_in: Client) -> None:
    hand = deal_two_pair(signed_in)
    answer = signed_in.post(f"/practice/hands/{hand.pk}/lock/", {"front": ["8d", "8c"]},
                            **JSON).json()
    result = answer["result"]
    assert (result["at_best"], result["house_way"]["row"], result["best"]["front"]) == (
        True, "two-pair-split", ["8d", "8c"])
    assert "Your setting is the best one" in answer["result_html"]


def test_a_json_deal_answers_the_new_hand(signed_in: Client) -> None:
    response = signed_in.post("/practice/deal/", {"drill": "three-pair"}, **JSON)
    view = response.json()
    assert (response.status_code, view["drill"], len(view["cards"]), len(view["settings"])) == (
        201, "three-pair", 7, 21)


def test_a_second_lock_answers_a_sentence_the_player_can_act_on(signed_in: Client) -> None:
    hand = deal_two_pair(signed_in)
    signed_in.post(f"/practice/hands/{hand.pk}/lock/", {"front": ["8d", "8c"]})
    response = signed_in.post(f"/practice/hands/{hand.pk}/lock/", {"front": ["As", "Ah"]},
                              **JSON)
    assert (response.status_code, response.json()) == (409, {
        "error": "practice_already_locked",
        "detail": "You have already locked this practice hand: deal the next hand to "
                  "practise again."})


def test_a_form_lock_of_one_card_shows_the_sentence_on_the_hand_page(signed_in: Client) -> None:
    hand = deal_two_pair(signed_in)
    response = signed_in.post(f"/practice/hands/{hand.pk}/lock/", {"front": ["8d"]})
    assert response.status_code == 400
    assert "Pick exactly two of your seven cards for the front, then lock." in (
        response.content.decode())


def test_another_players_hand_is_not_found(signed_in: Client, friend: User) -> None:
    hand = deal_two_pair(signed_in)
    other = Client()
    other.force_login(friend)
    pages = (other.get(f"/practice/hands/{hand.pk}/").status_code,
             other.post(f"/practice/hands/{hand.pk}/lock/", {"front": ["8d", "8c"]},
                        **JSON).status_code)
    assert pages == (404, 404)


def test_an_unknown_drill_is_refused_on_the_practice_page(signed_in: Client) -> None:
    response = signed_in.post("/practice/deal/", {"drill": "five-aces"})
    assert response.status_code == 400
    assert "There is no drill “five-aces”" in response.content.decode()


def test_the_record_shows_accuracy_loss_and_the_charts_data(signed_in: Client) -> None:
    for front in (["8d", "8c"], ["Ks", "7h"]):
        hand = deal_two_pair(signed_in)
        signed_in.post(f"/practice/hands/{hand.pk}/lock/", {"front": front})
    page = signed_in.get("/practice/record/").content.decode()
    data = json.loads(re.search(r'id="chart-practice"[^>]*>(.*?)</script>', page, re.DOTALL)[1])
    assert re.search(r'id="record-accuracy">50.0%<', page)
    assert (data["hand"], data["accuracy"]) == ([1, 2], [100.0, 50.0])


def test_the_record_without_practice_says_so(signed_in: Client) -> None:
    assert "No practice hands locked yet." in signed_in.get("/practice/record/").content.decode()


def test_the_practice_pages_have_nothing_inline(signed_in: Client) -> None:
    hand = deal_two_pair(signed_in)
    pages = [signed_in.get(u).content.decode()
             for u in ("/practice/", f"/practice/hands/{hand.pk}/", "/practice/record/")]
    inline = [p for p in pages if re.search(r"<script(?![^>]*(src=|application/json))|style=|"
                                            r" on[a-z]+=", p)]
    assert inline == []
