"""A locked practice hand's figures made exact in the background
(services.practice.practice_cost_exact, the costs queue's
games.practice_cost_hands and the beat's sweep), as a revealed table hand's
cost is: only then can it enter the review deck, which takes exact costs
only."""

from __future__ import annotations

import random
from typing import Any

import pytest

from accounts.models import User
from games import enqueue, services, tasks
from games.engine import explore_settings, house_way
from games.engine.cost import EXACT_OPPONENTS
from games.models import ExactAnalysisCache, PracticeHand, ReviewCard
from games.services.review import review_deck_sync
from tests.review import STRONG, WEAK, analysed

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def few_opponents(settings: Any) -> None:
    settings.PRACTICE_OPPONENTS = 2000  # the estimate at the lock: quick


def locked(user: User, cards: str, front: str) -> PracticeHand:
    """A practice hand of known cards, analysed by the estimate and locked
    with ``front`` through the services."""
    hand = services.practice_deal(user=user, drill="any", rng=random.Random(1))
    hw = house_way(cards)
    PracticeHand.objects.filter(pk=hand.pk).update(
        cards=cards, house_front=" ".join(hw.setting.front), house_row=hw.row)
    services.practice_analyse(hand_id=hand.pk)
    return services.practice_lock(user=user, hand_id=hand.pk, front=front)


def test_a_lock_queues_its_exact_cost(player: User, monkeypatch: pytest.MonkeyPatch) -> None:
    queued: list[int] = []
    monkeypatch.setattr(enqueue, "practice_cost_later",
                        lambda *, hand_id: queued.append(hand_id))
    hand = locked(player, WEAK, "7d 5c")
    assert (hand.exact, queued) == (False, [hand.pk])


def test_the_exact_cost_replaces_the_estimate_once(player: User) -> None:
    hand = locked(player, WEAK, "7d 5c")
    found = analysed(WEAK)
    by_front = {frozenset(r.front): r.expected for r in found.settings}
    assert tasks.practice_cost_hands.apply(args=[[hand.pk]]).get() == [True]
    hand.refresh_from_db()
    assert (hand.exact, hand.opponents) == (True, EXACT_OPPONENTS)
    assert hand.expected == [by_front[frozenset(s.front)] for s in explore_settings(WEAK)]
    assert set(hand.best_front.split()) == set(found.best.front)
    assert hand.loss == pytest.approx(found.best.expected - by_front[frozenset({"7d", "5c"})])
    assert hand.at_best is False
    assert services.practice_cost_exact(hand_id=hand.pk) is False  # exact already


def test_an_unlocked_or_missing_hand_is_not_costed(player: User) -> None:
    hand = services.practice_deal(user=player, drill="any", rng=random.Random(1))
    assert services.practice_cost_exact(hand_id=hand.pk) is False
    assert services.practice_cost_exact(hand_id=10**9) is False
    hand.refresh_from_db()
    assert (hand.exact, hand.locked_at) == (False, None)


def test_a_class_nobody_analysed_is_worked_out_and_not_stored(player: User) -> None:
    hand = locked(player, STRONG, "As Kd")
    assert services.practice_cost_exact(hand_id=hand.pk) is True
    assert ExactAnalysisCache.objects.count() == 0  # one row a hand would only grow the cache
    hand.refresh_from_db()
    assert hand.exact
    assert hand.loss is not None
    assert hand.loss > 0.19


def test_the_sweep_costs_the_oldest_locks_first_and_only_estimates(player: User) -> None:
    first, second = locked(player, WEAK, "7d 5c"), locked(player, STRONG, "As Ah")
    services.practice_deal(user=player, drill="any")  # not locked: never costed
    assert tasks.practice_costs_sweep.apply(kwargs={"size": 1}).get() == 1
    assert [h.exact for h in PracticeHand.objects.filter(pk__in=[first.pk, second.pk])
            .order_by("pk")] == [True, False]
    assert services.practice_costs_sweep(size=10) == 1
    assert services.practice_costs_sweep(size=10) == 0


def test_a_practice_hand_enters_the_review_deck_once_its_cost_is_exact(player: User) -> None:
    costly, fine = locked(player, WEAK, "7d 5c"), locked(player, STRONG, "Kd Kc")
    review_deck_sync(user=player)
    assert not ReviewCard.objects.exists()  # estimates never enter
    services.practice_costs_sweep(size=10)
    review_deck_sync(user=player)
    (card,) = ReviewCard.objects.all()  # 0.0076 enters; 0.0012 stays out
    assert (card.practice_hand_id, card.front, card.mode) == (costly.pk, "7d 5c", "solo")
    assert PracticeHand.objects.get(pk=fine.pk).exact


def test_the_practice_page_says_the_figures_are_exact_once_they_are(
    client: Any, player: User
) -> None:
    hand = locked(player, WEAK, "7d 5c")
    client.force_login(player)
    assert "An estimate over 2,000" in client.get(f"/practice/hands/{hand.pk}/").content.decode()
    services.practice_cost_exact(hand_id=hand.pk)
    page = client.get(f"/practice/hands/{hand.pk}/").content.decode()
    assert f"Exact: against every one of the {EXACT_OPPONENTS:,}" in page
