"""The review pages: /review/ (the deck), a card (form post and JSON), and
the due count in the header and the lobby."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games.engine import house_way, row_words
from games.models import ExactAnalysisCache, ReviewCard
from games.services import review
from tests.review import STRONG, WEAK, played, practised, scored_test

pytestmark = pytest.mark.django_db
JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def signed_in(client: Client, player: User) -> Client:
    client.force_login(player)
    return client


@pytest.fixture
def two_cards(play_solo: Callable[..., Any], player: User) -> list[ReviewCard]:
    """A solo hand that gave up 0.198 and a practice hand that gave up 0.0150."""
    played(play_solo, player, STRONG, "As Kd")
    practised(player, WEAK, "3h 2c")
    review.review_deck_sync(user=player)
    return list(ReviewCard.objects.order_by("-cost"))


def state(page: str) -> dict[str, Any]:
    found = re.search(r'id="review-state"[^>]*>(.*?)</script>', page, re.DOTALL)
    assert found is not None
    return dict(json.loads(found[1]))


def test_the_review_pages_need_an_account(client: Client) -> None:
    for url in ("/review/", "/review/1/"):
        assert client.get(url)["Location"] == f"/accounts/sign-in/?next={url}"
    assert client.post("/review/1/answer/", {"front": ["As", "Ah"]}).status_code == 302
    page = client.get("/rules/").content.decode()
    assert "/review/" not in page  # signed out: no link and no count


def test_the_deck_reads_in_new_cards_worst_first_with_the_count_in_header_and_lobby(
    play_solo: Callable[..., Any], signed_in: Client, player: User,
) -> None:
    played(play_solo, player, STRONG, "As Kd")
    practised(player, WEAK, "3h 2c")
    page = signed_in.get("/review/").content.decode()  # reading the deck adds them
    assert ReviewCard.objects.count() == 2
    assert "2 hands due now." in page
    rows = re.findall(r'<td><a href="([^"]+)">(Solo table|Practice)</a></td>', page)
    assert [label for _, label in rows] == ["Solo table", "Practice"]  # the worst first
    assert re.findall(r'<td class="num">(0\.\d+)</td>', page) == ["0.198", "0.015"]
    worst = ReviewCard.objects.order_by("-cost").first()
    assert worst is not None
    assert f'href="/review/{worst.pk}/" id="review-next"' in page
    for url in ("/review/", "/lobby/", "/rules/"):
        assert re.search(r'id="nav-review">Review <span class="due-count">\(2 due\)</span>',
                         signed_in.get(url).content.decode()), url
    assert "Review 2 hands due" in signed_in.get("/lobby/").content.decode()


def test_the_due_count_is_one_query_on_each_page(
    two_cards: list[ReviewCard], signed_in: Client,
) -> None:
    with CaptureQueriesContext(connection) as queries:
        signed_in.get("/lobby/")
    counts = [q["sql"] for q in queries if "games_reviewcard" in q["sql"]]
    assert len(counts) == 1
    assert "COUNT(" in counts[0].upper()


def test_an_empty_deck_says_how_hands_get_there(signed_in: Client) -> None:
    page = signed_in.get("/review/").content.decode()
    assert 'id="review-empty"' in page
    assert "due-count" not in page


def test_a_due_card_is_dealt_without_the_house_way_or_the_figures(
    two_cards: list[ReviewCard], signed_in: Client,
) -> None:
    card = two_cards[0]
    page = signed_in.get(f"/review/{card.pk}/").content.decode()
    assert len(re.findall(r'<input type="checkbox" name="front"', page)) == 7
    view = state(page)
    assert (view["due"], view["ready"], "result" in view) == (True, True, False)
    assert len(view["settings"]) == 21
    assert house_way(STRONG).reason not in page
    assert "review-figures" not in page


def test_a_card_whose_analysis_is_missing_queues_it_and_says_so(
    two_cards: list[ReviewCard], signed_in: Client,
) -> None:
    ExactAnalysisCache.objects.all().delete()
    card = two_cards[0]
    with mock.patch.object(review.analysis, "exact_analysis_request") as queued:
        page = signed_in.get(f"/review/{card.pk}/").content.decode()
        assert state(page)["ready"] is False
        assert "being worked out" in page
        answer = signed_in.post(f"/review/{card.pk}/answer/", {"front": ["As", "Ah"]}, **JSON)
    assert queued.call_count == 2
    assert answer.status_code == 409
    assert answer.json()["error"] == "review_analysing"
    assert ReviewCard.objects.get(pk=card.pk).reviews == 0


def test_a_spent_analysis_budget_still_deals_the_hand_and_its_answer_says_why(
    two_cards: list[ReviewCard], signed_in: Client, player: User, settings: Any,
) -> None:
    """The analysis a card needs goes through the player's budget on the
    analysis queue: spent, the page still deals the hand, and the answer is a
    429 with a sentence and when to ask again; the card is unchanged."""
    from games.services import analysis

    settings.ANALYSIS_AT_ONCE, settings.ANALYSIS_PER_MINUTE = 1, 30
    ExactAnalysisCache.objects.all().delete()
    slot = analysis.analysis_budget_claim(user_id=player.pk)
    try:
        card = two_cards[0]
        page = signed_in.get(f"/review/{card.pk}/")
        assert page.status_code == 200
        assert state(page.content.decode())["ready"] is False
        answer = signed_in.post(f"/review/{card.pk}/answer/", {"front": ["As", "Ah"]}, **JSON)
        assert answer.status_code == 429
        assert answer.json()["error"] == "analysis_budget"
        assert "wait a few seconds" in answer.json()["detail"]
        assert answer["Retry-After"] == "5"
        form = signed_in.post(f"/review/{card.pk}/answer/", {"front": ["As", "Ah"]})
        assert form.status_code == 429
        assert "wait a few seconds" in form.content.decode()
        assert ReviewCard.objects.get(pk=card.pk).reviews == 0
    finally:
        analysis.analysis_budget_release(slot=slot)


def test_a_form_answer_shows_all_21_exact_figures_then_now_and_the_house_way(
    two_cards: list[ReviewCard], signed_in: Client,
) -> None:
    card = two_cards[0]
    response = signed_in.post(f"/review/{card.pk}/answer/", {"front": ["Kd", "Kc"]})
    assert response.status_code == 302
    assert response["Location"] == f"/review/{card.pk}/"
    page = signed_in.get(response["Location"]).content.decode()
    figures = page.split('id="review-figures"')[1].split("</table>")[0]
    assert len(re.findall(r"<tr", figures)) == 22  # the head and 21 settings
    assert "53,524,680 opponent hands" in figures
    assert "Your setting then" in page
    assert "Your setting now" in page
    assert "Your setting then, your setting now" not in figures  # then As Kd, now Kd Kc
    assert house_way(STRONG).reason in page
    # The house way's row in words, as on the practice result and the replay.
    assert f"House way <span class=\"row-id\">({row_words(house_way(STRONG).row)})" in page
    assert "Not the best setting" in page
    assert "Back to box 1: this hand comes back tomorrow." in page
    assert "gives up 0.0012" in page  # Kd Kc against As Ah
    assert "gave up 0.1982" in page  # the setting then
    # The other due card is next.
    assert f'href="/review/{two_cards[1].pk}/" id="next"' in page


def test_a_json_answer_at_the_best_moves_the_card_up_with_its_result(
    two_cards: list[ReviewCard], signed_in: Client,
) -> None:
    card = two_cards[0]
    answer = signed_in.post(f"/review/{card.pk}/answer/", {"front": ["As", "Ah"]}, **JSON)
    assert answer.status_code == 200
    view = answer.json()
    assert (view["box"], view["due"], view["locked"], view["due_text"]) == (
        2, False, True, "tomorrow")
    assert view["result"]["at_best"] is True
    assert len(view["result"]["rows"]) == 21
    assert "Set at the best" in view["result_html"]
    assert "Now in box 2 of 5" in view["result_html"]
    again = signed_in.post(f"/review/{card.pk}/answer/", {"front": ["As", "Ah"]}, **JSON)
    assert (again.status_code, again.json()["error"]) == (409, "review_not_due")


def test_a_bad_front_or_anothers_card_is_refused(
    two_cards: list[ReviewCard], client: Client, friend: User, signed_in: Client,
) -> None:
    card = two_cards[0]
    bad = signed_in.post(f"/review/{card.pk}/answer/", {"front": ["As"]}, **JSON)
    assert (bad.status_code, bad.json()["error"]) == (400, "setting_invalid")
    page = signed_in.post(f"/review/{card.pk}/answer/", {"front": ["As"]})
    assert page.status_code == 400
    assert "Pick exactly two of your seven cards" in page.content.decode()
    other = Client()
    other.force_login(friend)
    assert other.get(f"/review/{card.pk}/").status_code == 404
    assert other.post(f"/review/{card.pk}/answer/", {"front": ["As", "Ah"]}).status_code == 404
    refused = other.post(f"/review/{card.pk}/answer/", {"front": ["As", "Ah"]}, **JSON)
    assert (refused.status_code, refused.json()["error"]) == (404, "review_card_not_found")
    assert ReviewCard.objects.get(pk=card.pk).reviews == 0


def test_a_test_hands_card_is_dealt_and_answered_with_its_exact_figures(
    signed_in: Client, player: User,
) -> None:
    attempt = scored_test(player, [(STRONG, "As Kd")], number=4)
    card = ReviewCard.objects.get(test_hand__test=attempt)
    page = signed_in.get(f"/review/{card.pk}/").content.decode()
    assert f'from <a href="/practice/test/{attempt.pk}/#test-hand-1">hand 1 of your test' in page
    assert "(Test 4)" in page
    assert len(re.findall(r'<input type="checkbox" name="front"', page)) == 7
    assert state(page)["ready"] is True
    response = signed_in.post(f"/review/{card.pk}/answer/", {"front": ["Kd", "Kc"]})
    assert response.status_code == 302
    page = signed_in.get(response["Location"]).content.decode()
    figures = page.split('id="review-figures"')[1].split("</table>")[0]
    assert len(re.findall(r"<tr", figures)) == 22  # the head and 21 settings
    assert "gave up 0.1982" in page  # the setting then, in the test
    assert "gives up 0.0012" in page  # the setting now
    assert "Back to box 1: this hand comes back tomorrow." in page
