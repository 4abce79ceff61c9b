"""The 100-hand test's writes (games.services.practice_test): start an
attempt, lock its hands in order, score it with the exact analysis on a
worker, retake it. The tests use 3 hands (the product deals 100)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games import engine
from games.engine import ExactAnalysis, ExactSetting, hand_guide
from games.engine.errors import InvalidSetting
from games.models import ExactAnalysisCache, PracticeTest, PracticeTestHand, ReviewCard
from games.services import practice_test as service
from games.services.analysis import exact_analysis_compute

pytestmark = pytest.mark.django_db

HANDS = 3


def fake_analysis(cards: tuple[str, ...]) -> ExactAnalysis:
    """A stand-in for the exact analysis: the house way scores 0.6, one other
    legal setting 0.7 (the best), the rest 0.2."""
    guide = hand_guide(cards)
    better = next(s for s in guide.settings if not s.house_way and not s.foul)
    rows = [
        ExactSetting(front=s.front, back=s.back, front_name=s.front_name,
                     back_name=s.back_name, foul=s.foul, wins=0, pushes=0, losses=0,
                     expected=0.6 if s.house_way else 0.7 if s is better else 0.2,
                     house_way=s.house_way)
        for s in guide.settings
    ]
    return ExactAnalysis(opponents=1, settings=tuple(sorted(rows, key=lambda r: -r.expected)))


def lock_all(user: User, attempt: PracticeTest, choose: Callable[[tuple[str, ...]], Any]) -> None:
    for hand in attempt.test_hands.order_by("position"):
        service.practice_test_lock(user=user, test_id=attempt.pk, position=hand.position,
                                   front=list(choose(hand.card_list)))


def house(cards: tuple[str, ...]) -> tuple[str, ...]:
    return engine.house_way(cards).setting.front


def test_start_deals_the_tests_published_hands_with_their_house_way(player: User) -> None:
    attempt = service.practice_test_start(user=player, number=7, hands=HANDS)
    rows = list(attempt.test_hands.order_by("position"))
    assert [r.card_list for r in rows] == list(engine.test_hands(7, count=HANDS))
    assert [r.position for r in rows] == [1, 2, 3]
    assert [r.house_front for r in rows] == [" ".join(house(r.card_list)) for r in rows]
    assert attempt.status == "playing"
    assert attempt.hands == HANDS
    assert len(attempt.share_token) >= 40


def test_the_product_deals_100_hands_unless_the_setting_says_otherwise(
    player: User, settings: Any
) -> None:
    assert service.practice_test_start(user=player, number=1).hands == 100
    settings.PRACTICE_TEST_HANDS = 4
    assert service.practice_test_start(user=player, number=2).hands == 4


def test_one_attempt_per_number_is_played_at_a_time(player: User, friend: User) -> None:
    first = service.practice_test_start(user=player, number=3, hands=HANDS)
    assert service.practice_test_start(user=player, number="3", hands=HANDS).pk == first.pk
    assert service.practice_test_start(user=player, number=4, hands=HANDS).pk != first.pk
    assert service.practice_test_start(user=friend, number=3, hands=HANDS).pk != first.pk


@pytest.mark.parametrize("number", ["", "0", "-2", "x", None])
def test_a_test_number_must_be_one(player: User, number: Any) -> None:
    with pytest.raises(service.PracticeTestNumberInvalid, match="whole number from 1"):
        service.practice_test_start(user=player, number=number, hands=HANDS)
    assert not PracticeTest.objects.exists()


def test_hands_are_locked_in_order_once_each(player: User) -> None:
    attempt = service.practice_test_start(user=player, number=1, hands=HANDS)
    first, second, _ = attempt.test_hands.order_by("position")
    with pytest.raises(service.PracticeTestOutOfOrder, match="Hand 1 of 3 is the next one"):
        service.practice_test_lock(user=player, test_id=attempt.pk, position=2,
                                   front=house(second.card_list))
    service.practice_test_lock(user=player, test_id=attempt.pk, position=1,
                               front=house(first.card_list))
    with pytest.raises(service.PracticeTestOutOfOrder, match="Hand 2 of 3 is the next one"):
        service.practice_test_lock(user=player, test_id=attempt.pk, position=1,
                                   front=house(first.card_list))
    with pytest.raises(InvalidSetting, match="Pick exactly two"):
        service.practice_test_lock(user=player, test_id=attempt.pk, position=2,
                                   front=list(first.card_list[:2]))
    assert list(attempt.test_hands.exclude(front="").values_list("position", flat=True)) == [1]


def test_another_players_attempt_cannot_be_locked(player: User, friend: User) -> None:
    attempt = service.practice_test_start(user=player, number=1, hands=HANDS)
    hand = attempt.test_hands.get(position=1)
    with pytest.raises(service.PracticeTestNotFound):
        service.practice_test_lock(user=friend, test_id=attempt.pk, position=1,
                                   front=house(hand.card_list))


def test_the_last_lock_queues_the_scoring_once_it_commits(
    player: User, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "_exact", fake_analysis)
    attempt = service.practice_test_start(user=player, number=2, hands=HANDS)
    hands = list(attempt.test_hands.order_by("position"))
    with django_capture_on_commit_callbacks() as queued:
        for hand in hands[:2]:
            service.practice_test_lock(user=player, test_id=attempt.pk, position=hand.position,
                                       front=house(hand.card_list))
    assert queued == []
    with django_capture_on_commit_callbacks(execute=True) as queued:
        service.practice_test_lock(user=player, test_id=attempt.pk, position=3,
                                   front=house(hands[2].card_list))
    assert len(queued) == 1
    attempt.refresh_from_db()
    assert attempt.status == "scored"  # eager: the task ran in the callback
    assert attempt.total_loss == pytest.approx(3 * 0.1)
    assert attempt.house_loss == pytest.approx(3 * 0.1)
    with pytest.raises(service.PracticeTestFinished, match="every hand of this attempt"):
        service.practice_test_lock(user=player, test_id=attempt.pk, position=3,
                                   front=house(hands[2].card_list))


def test_scoring_stores_each_cost_the_totals_and_the_best_setting(player: User) -> None:
    attempt = service.practice_test_start(user=player, number=9, hands=HANDS)

    def choose(cards: tuple[str, ...]) -> tuple[str, ...]:  # best, house way, a poor one
        position = engine.test_hands(9, count=HANDS).index(cards)
        best = fake_analysis(cards).best.front
        poor = next(s.front for s in hand_guide(cards).settings
                    if not s.house_way and s.front != best)
        return (best, house(cards), poor)[position]

    lock_all(player, attempt, choose)
    assert not service.practice_test_score(test_id=attempt.pk + 1, analyse=fake_analysis)
    assert service.practice_test_score(test_id=attempt.pk, analyse=fake_analysis)
    assert not service.practice_test_score(test_id=attempt.pk, analyse=fake_analysis)
    attempt.refresh_from_db()
    rows = list(attempt.test_hands.order_by("position"))
    assert [r.loss for r in rows] == pytest.approx([0.0, 0.1, 0.5])
    assert [r.house_loss for r in rows] == pytest.approx([0.1, 0.1, 0.1])
    assert all(r.best_front == " ".join(fake_analysis(r.card_list).best.front) for r in rows)
    assert (attempt.status, attempt.at_best) == ("scored", 1)
    assert attempt.total_loss == pytest.approx(0.6)
    assert attempt.house_loss == pytest.approx(0.3)


def test_a_playing_attempt_is_not_scored(player: User) -> None:
    attempt = service.practice_test_start(user=player, number=1, hands=HANDS)
    assert not service.practice_test_score(test_id=attempt.pk, analyse=fake_analysis)
    assert PracticeTestHand.objects.filter(loss__isnull=False).count() == 0


def test_a_finished_attempt_can_be_retaken_as_a_new_one(player: User) -> None:
    attempt = service.practice_test_start(user=player, number=5, hands=HANDS)
    lock_all(player, attempt, house)
    again = service.practice_test_start(user=player, number=5, hands=HANDS)
    assert again.pk != attempt.pk
    assert again.status == "playing"
    assert PracticeTest.objects.filter(player=player, number=5).count() == 2


def test_the_real_exact_analysis_scores_the_house_way_as_its_own_cost(player: User) -> None:
    """Two hands with the real analysis (cache first, computed and stored where
    missing): setting by the house way gives up exactly what the house way does."""
    attempt = service.practice_test_start(user=player, number=1, hands=2)
    lock_all(player, attempt, house)
    assert service.practice_test_score(test_id=attempt.pk)
    attempt.refresh_from_db()
    assert attempt.total_loss == attempt.house_loss >= 0
    assert ExactAnalysisCache.objects.count() == 2
    for hand in attempt.test_hands.all():
        exact = exact_analysis_compute(cards=hand.card_list, mode="solo", side="player")
        chosen = next(s for s in exact.settings if " ".join(s.front) == hand.front)
        assert hand.loss == exact.best.expected - chosen.expected


def test_a_scoring_attempt_left_behind_is_queued_again(
    player: User, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "_exact", fake_analysis)
    attempt = service.practice_test_start(user=player, number=6, hands=HANDS)
    lock_all(player, attempt, house)  # its callback never runs: a lost task
    assert not service.practice_test_score_again(test_id=attempt.pk)  # too soon
    PracticeTest.objects.filter(pk=attempt.pk).update(
        finished_at=attempt.started_at - service.SCORING_AGAIN_AFTER)
    with django_capture_on_commit_callbacks(execute=True):
        assert service.practice_test_score_again(test_id=attempt.pk)
    attempt.refresh_from_db()
    assert attempt.status == "scored"


def test_the_username_is_shown_only_when_chosen(player: User, friend: User) -> None:
    attempt = service.practice_test_start(user=player, number=1, hands=HANDS)
    assert not attempt.show_name
    assert service.practice_test_share(user=player, test_id=attempt.pk, show_name=True).show_name
    with pytest.raises(service.PracticeTestNotFound):
        service.practice_test_share(user=friend, test_id=attempt.pk, show_name=False)


def test_the_worst_hands_are_those_that_gave_up_most_once_scored(player: User) -> None:
    """What the review deck takes from a test: the scoring adds them to it."""
    attempt = service.practice_test_start(user=player, number=9, hands=HANDS)

    def choose(cards: tuple[str, ...]) -> tuple[str, ...]:  # best, house way, a poor one
        position = engine.test_hands(9, count=HANDS).index(cards)
        best = fake_analysis(cards).best.front
        poor = next(s.front for s in hand_guide(cards).settings
                    if not s.house_way and s.front != best)
        return (best, house(cards), poor)[position]

    lock_all(player, attempt, choose)
    assert service.practice_test_worst_hands(test_id=attempt.pk) == []  # not scored yet
    service.practice_test_score(test_id=attempt.pk, analyse=fake_analysis)
    worst = service.practice_test_worst_hands(test_id=attempt.pk)
    assert [hand.position for hand in worst] == [3, 2]  # hand 1 was set at the best
    assert [hand.position for hand in service.practice_test_worst_hands(
        test_id=attempt.pk, limit=1)] == [3]
    cards = ReviewCard.objects.filter(user=player).order_by("-cost")
    assert [card.test_hand for card in cards] == worst
    assert [(card.box, card.mode, card.reviews) for card in cards] == [(1, "solo", 0)] * 2
    assert all(card.due <= timezone.now() for card in cards)


def test_a_run_computes_at_most_a_batch_and_queues_the_next(
    player: User, django_capture_on_commit_callbacks: Any
) -> None:
    """Each run stays inside the broker's visibility timeout: past ``batch``
    computed hands it stops, keeps what it stored, and queues the next run."""
    attempt = service.practice_test_start(user=player, number=1, hands=2)
    lock_all(player, attempt, house)
    with django_capture_on_commit_callbacks() as queued:
        assert not service.practice_test_score(test_id=attempt.pk, batch=1)
    assert len(queued) == 1
    assert ExactAnalysisCache.objects.count() == 1
    assert PracticeTest.objects.get(pk=attempt.pk).status == "scoring"
    queued[0]()  # eager: the next run, which reads the stored hand and computes the other
    attempt.refresh_from_db()
    assert attempt.status == "scored"
    assert ExactAnalysisCache.objects.count() == 2
