"""The 100-hand test's pages: start, set the hands (form post and JSON) with
no hints, "Scoring…", the result, and the shared link (no username unless
chosen; nobody else sees an attempt being played)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import engine
from games.models import PracticeTest, ReviewCard
from games.services import practice_test as service
from tests.review import STRONG, scored_test
from tests.services.test_practice_test import fake_analysis

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture(autouse=True)
def three_hands(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.PRACTICE_TEST_HANDS = 3
    monkeypatch.setattr(service, "_exact", fake_analysis)


@pytest.fixture
def player(make_user: Callable[[str], User]) -> User:
    """A name that appears nowhere else on a page."""
    return make_user("quinella7")


@pytest.fixture
def signed_in(client: Client, player: User) -> Client:
    client.force_login(player)
    return client


def started(client: Client, number: int = 1) -> PracticeTest:
    response = client.post("/practice/test/start/", {"number": str(number)})
    assert response.status_code == 302
    return PracticeTest.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[1]))


def house(cards: tuple[str, ...]) -> list[str]:
    return list(engine.house_way(cards).setting.front)


def play(client: Client, attempt: PracticeTest, captured: Any) -> None:
    """Lock every hand by the house way (JSON, as the page's script does)."""
    with captured(execute=True):
        for hand in attempt.test_hands.order_by("position"):
            response = client.post(f"/practice/test/{attempt.pk}/lock/",
                                   {"position": hand.position, "front": house(hand.card_list)},
                                   **JSON)
            assert response.status_code == 200


def test_the_test_pages_need_an_account(client: Client) -> None:
    assert client.get("/practice/test/")["Location"] == "/accounts/sign-in/?next=/practice/test/"


def test_the_home_page_publishes_the_deck_order(signed_in: Client) -> None:
    page = signed_in.get("/practice/test/").content.decode()
    assert 'random.Random("paigow-test-N")' in page
    assert "The 3-hand test" in page


def test_the_practice_page_links_the_test(signed_in: Client) -> None:
    page = signed_in.get("/practice/").content.decode()
    assert 'href="/practice/test/" id="practice-test-link"' in page


def test_a_hand_is_set_with_no_hints(signed_in: Client) -> None:
    attempt = started(signed_in, 4)
    page = signed_in.get(f"/practice/test/{attempt.pk}/").content.decode()
    assert "hand <span id=\"position\">1</span> of 3" in page
    first = attempt.test_hands.get(position=1)
    for card in first.card_list:
        assert f'value="{card}"' in page
    state = page.split('id="practice-test-state" type="application/json">')[1].split("</script>")[0]
    view = json.loads(state)
    assert view["cards"] == list(first.card_list)
    assert "house" not in state.lower()
    assert "expected" not in state
    assert len(view["settings"]) == 21


def test_a_form_post_locks_and_an_out_of_order_one_is_refused_with_a_sentence(
    signed_in: Client,
) -> None:
    attempt = started(signed_in)
    first, second, _ = attempt.test_hands.order_by("position")
    response = signed_in.post(f"/practice/test/{attempt.pk}/lock/",
                              {"position": 1, "front": house(first.card_list)})
    assert response.status_code == 302
    again = signed_in.post(f"/practice/test/{attempt.pk}/lock/",
                           {"position": 1, "front": house(first.card_list)})
    assert again.status_code == 409
    assert "Hand 2 of 3 is the next one to set" in again.content.decode()
    answer = signed_in.post(f"/practice/test/{attempt.pk}/lock/",
                            {"position": 3, "front": house(second.card_list)}, **JSON).json()
    assert answer["error"] == "practice_test_out_of_order"
    assert answer["detail"].startswith("Hand 2 of 3 is the next one to set")


def test_the_json_lock_answers_the_next_hand_then_finished(
    signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    attempt = started(signed_in)
    hands = list(attempt.test_hands.order_by("position"))
    answer = signed_in.post(f"/practice/test/{attempt.pk}/lock/",
                            {"position": 1, "front": house(hands[0].card_list)}, **JSON).json()
    assert (answer["position"], answer["cards"]) == (2, list(hands[1].card_list))
    signed_in.post(f"/practice/test/{attempt.pk}/lock/",
                   {"position": 2, "front": house(hands[1].card_list)}, **JSON)
    with django_capture_on_commit_callbacks(execute=False):  # the task not run yet
        last = signed_in.post(f"/practice/test/{attempt.pk}/lock/",
                              {"position": 3, "front": house(hands[2].card_list)}, **JSON).json()
    assert last["finished"] is True
    page = signed_in.get(last["urls"]["page"]).content.decode()
    assert "Scoring…" in page
    assert 'http-equiv="refresh"' in page


def test_the_result_shows_the_totals_and_the_worst_hands_in_words(
    signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    attempt = started(signed_in)
    play(signed_in, attempt, django_capture_on_commit_callbacks)
    page = signed_in.get(f"/practice/test/{attempt.pk}/").content.decode()
    assert 'id="total-loss">0.300<' in page
    assert 'id="house-loss">0.300<' in page
    assert "exactly as much as the house way" in page
    assert page.count("gave up 0.100</h3>") == 3
    reason = engine.house_way(attempt.test_hands.get(position=1).card_list).reason
    assert reason in page.replace("&#x27;", "'")
    assert 'http-equiv="refresh"' not in page


def test_the_result_says_which_hands_were_added_to_the_review_deck(
    signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    attempt = started(signed_in)
    play(signed_in, attempt, django_capture_on_commit_callbacks)  # each gave up 0.100
    page = signed_in.get(f"/practice/test/{attempt.pk}/").content.decode()
    assert ("Added to your review deck: hands 1, 2 and 3, each of which gave up 0.005 or "
            "more. Review them there: set at the best, a hand comes back less and less often. "
            '<a href="/review/" id="deck-link">Your review deck</a>') in page
    assert '<a href="/review/" id="deck-link">Your review deck</a>' in page
    for card in ReviewCard.objects.filter(test_hand__test=attempt):
        assert f'<a href="/review/{card.pk}/">In your review deck: review it</a>' in page
        assert f'<li id="test-hand-{card.test_hand.position}">' in page
    shared = Client().get(f"/practice/test/shared/{attempt.share_token}/").content.decode()
    assert "review deck" not in shared  # a stranger's page: not their deck
    deck = signed_in.get("/review/").content.decode()
    assert f'<a href="/practice/test/{attempt.pk}/#test-hand-1">Test 1</a>' in deck


def test_the_result_says_so_when_no_hand_gave_up_enough_for_the_deck(
    signed_in: Client, player: User
) -> None:
    attempt = scored_test(player, [(STRONG, "Kd Kc")])  # gives up 0.0012
    page = signed_in.get(f"/practice/test/{attempt.pk}/").content.decode()
    assert "gave up 0.001</h3>" in page
    assert ("None of these gave up 0.005 or more, so none was added to your review deck."
            in page)
    assert 'id="deck-link"' not in page
    assert not ReviewCard.objects.exists()


def test_the_shared_page_shows_no_username_unless_chosen(
    signed_in: Client, player: User, django_capture_on_commit_callbacks: Any
) -> None:
    attempt = started(signed_in)
    play(signed_in, attempt, django_capture_on_commit_callbacks)
    owner_page = signed_in.get(f"/practice/test/{attempt.pk}/").content.decode()
    shared_url = f"/practice/test/shared/{attempt.share_token}/"
    assert shared_url in owner_page
    stranger = Client()
    page = stranger.get(shared_url).content.decode()
    assert 'id="total-loss">0.300<' in page
    assert 'id="house-loss">0.300<' in page
    assert 'id="every-hand"' in page
    assert player.username not in page
    assert f"/practice/test/{attempt.pk}/" not in page
    signed_in.post(f"/practice/test/{attempt.pk}/share/", {"show_name": "on"})
    assert f"{player.username}'s result" in stranger.get(shared_url).content.decode()
    signed_in.post(f"/practice/test/{attempt.pk}/share/", {})
    assert player.username not in stranger.get(shared_url).content.decode()


def test_another_user_sees_a_shared_result_but_never_an_attempt_being_played(
    signed_in: Client, friend: User, django_capture_on_commit_callbacks: Any
) -> None:
    attempt = started(signed_in)
    other = Client()
    other.force_login(friend)
    assert other.get(f"/practice/test/shared/{attempt.share_token}/").status_code == 404
    assert other.get(f"/practice/test/{attempt.pk}/").status_code == 404
    assert other.post(f"/practice/test/{attempt.pk}/lock/", {"position": 1}).status_code == 404
    assert other.post(f"/practice/test/{attempt.pk}/share/", {}).status_code == 404
    play(signed_in, attempt, django_capture_on_commit_callbacks)
    assert other.get(f"/practice/test/shared/{attempt.share_token}/").status_code == 200
    assert other.get(f"/practice/test/{attempt.pk}/").status_code == 404
    assert Client().get("/practice/test/shared/not-a-token/").status_code == 404


def test_a_bad_test_number_is_answered_with_a_sentence(signed_in: Client) -> None:
    response = signed_in.post("/practice/test/start/", {"number": "0"})
    assert response.status_code == 400
    assert "A test number is a whole number from 1 up" in response.content.decode()
