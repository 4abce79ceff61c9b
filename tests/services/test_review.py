"""The review deck (games.services.review): which hands enter it, in what
order, and the Leitner boxes with their due dates under a frozen clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from unittest import mock

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from games import services
from games.engine.errors import InvalidSetting
from games.models import ExactAnalysisCache, ReviewCard
from games.review import selectors
from games.services import review
from games.services.review import (
    ReviewAnalysing,
    ReviewCardNotFound,
    ReviewNotDue,
    review_answer,
    review_deck_sync,
)
from tests.review import STRONG, WEAK, played, practised, scored_test, with_cost
from tests.support import deal_friend, house_front

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class Clock:
    """``django.utils.timezone.now``, frozen; ``advance`` moves it."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> Iterator[Clock]:
    frozen = Clock(T0)
    with mock.patch("django.utils.timezone.now", side_effect=lambda: frozen.now):
        yield frozen


def deck(user: Any) -> list[ReviewCard]:
    return list(selectors.review_deck(user=user))


# ------------------------------------------------------------ entering the deck


def test_table_and_practice_hands_from_a_cost_of_0_005_enter_worst_first(
    play_solo: Callable[..., Any], player: Any, clock: Clock,
) -> None:
    costly = played(play_solo, player, STRONG, "As Kd")  # gives up 0.198
    middling = played(play_solo, player, WEAK, "7d 5c")  # 0.0076
    played(play_solo, player, STRONG, "Kd Kc")  # 0.0012: below the threshold
    at_threshold = with_cost(played(play_solo, player, WEAK, "9h 5c", cost=""), "0.005")
    with_cost(played(play_solo, player, WEAK, "9h 3h", cost=""), "0.004999999")
    drilled = practised(player, WEAK, "3h 2c")  # 0.0150, exact
    practice_edge = practised(player, STRONG, "Kd Kc", loss=0.005)
    practised(player, STRONG, "Qs Qh", loss=0.0049)

    assert review_deck_sync(user=player) == 5
    cards = deck(player)
    # Equal costs: the card made first (table hands are added first).
    assert [(c.hand_id, c.practice_hand_id) for c in cards] == [
        (costly.pk, None), (None, drilled.pk), (middling.pk, None),
        (at_threshold.pk, None), (None, practice_edge.pk),
    ]
    assert [c.cost for c in cards] == sorted((c.cost for c in cards), reverse=True)
    assert cards[0].cost == costly.cost_loss
    assert cards[0].cost > Decimal("0.19")
    assert {c.cost for c in cards[-2:]} == {Decimal("0.005")}
    first = cards[0]
    assert (first.box, first.due, first.reviews, first.last_reviewed_at) == (1, T0, 0, None)
    assert (first.cards, first.front, first.mode) == (costly.cards, costly.front, "solo")
    assert cards[1].mode == "solo"  # practice plays against the dealer's copies
    assert selectors.review_due_count(user=player) == 5


def test_sampled_costs_unlocked_and_others_hands_never_enter(
    play_solo: Callable[..., Any], player: Any, friend: Any, clock: Clock,
) -> None:
    played(play_solo, player, STRONG, "As Kd", cost="sampled")
    played(play_solo, player, WEAK, "7d 5c", cost="")
    practised(player, WEAK, "3h 2c", exact=False)
    played(play_solo, friend, STRONG, "As Kd")
    practised(friend, WEAK, "3h 2c")
    assert review_deck_sync(user=player) == 0
    assert deck(player) == []
    assert review_deck_sync(user=friend) == 2
    assert {c.user_id for c in ReviewCard.objects.all()} == {friend.pk}


def test_a_friend_tables_hand_enters_with_its_mode(
    rig: Callable[..., None], joined_table: Any, player: Any, friend: Any, clock: Clock,
) -> None:
    from tests.review import record_exact_cost

    deal = deal_friend(rig, joined_table, player, friend, STRONG, WEAK)
    services.setting_lock(user=player, table_id=joined_table.pk, front=["As", "Kd"])
    services.setting_lock(user=friend, table_id=joined_table.pk, front=house_front(WEAK))
    hand = deal.hands.get(seat_number=0)
    assert record_exact_cost(hand, mode="friend") > Decimal("0.1")
    assert review_deck_sync(user=player) == 1
    assert deck(player)[0].mode == "friend"
    assert review_deck_sync(user=friend) == 0  # the friend's house way gives up little


def test_a_second_sync_adds_nothing_and_reads_in_one_query_a_kind(
    play_solo: Callable[..., Any], player: Any, clock: Clock,
) -> None:
    played(play_solo, player, STRONG, "As Kd")
    assert review_deck_sync(user=player) == 1
    with CaptureQueriesContext(connection) as queries:
        assert review_deck_sync(user=player) == 0
    assert len(queries) == 2  # the missing table hands, the missing practice hands
    assert ReviewCard.objects.count() == 1


def test_a_card_has_exactly_one_source(player: Any, clock: Clock) -> None:
    hand = practised(player, WEAK, "3h 2c")
    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewCard.objects.create(user=player, cards=WEAK, mode="solo", front="3h 2c",
                                  cost=Decimal("0.01"), due=T0)
    review_deck_sync(user=player)
    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewCard.objects.create(user=player, practice_hand=hand, cards=WEAK, mode="solo",
                                  front="3h 2c", cost=Decimal("0.01"), due=T0)
    test_hand = scored_test(player, [(STRONG, "As Ah")]).test_hands.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewCard.objects.create(user=player, practice_hand=hand, test_hand=test_hand,
                                  cards=WEAK, mode="solo", front="3h 2c",
                                  cost=Decimal("0.01"), due=T0)


def test_a_scored_tests_worst_hands_from_0_005_enter_once_due_at_once(
    player: Any, friend: Any, clock: Clock,
) -> None:
    attempt = scored_test(player, [(STRONG, "Kd Kc"), (WEAK, "7d 5c"), (STRONG, "As Ah"),
                              (STRONG, "As Kd")])
    # 0.0012 is below the threshold and As Ah is the best: neither enters.
    cards = deck(player)
    hands = {hand.position: hand for hand in attempt.test_hands.all()}
    assert [c.test_hand_id for c in cards] == [hands[4].pk, hands[2].pk]
    first = cards[0]
    assert (first.cards, first.front, first.mode) == (STRONG, "As Kd", "solo")
    assert first.cost == Decimal(repr(hands[4].loss)).quantize(Decimal("0.000000001"))
    assert first.cost > Decimal("0.19")
    assert {(c.box, c.due, c.reviews) for c in cards} == {(1, T0, 0)}
    assert (first.hand_id, first.practice_hand_id, first.user_id) == (None, None, player.pk)
    assert selectors.review_due_count(user=player) == 2
    assert review_deck_sync(user=player) == 0  # the sync leaves the test's cards alone
    assert selectors.review_due_count(user=friend) == 0


def test_scoring_twice_or_adding_again_adds_no_card_twice(player: Any, clock: Clock) -> None:
    from games.services import practice_test

    attempt = scored_test(player, [(STRONG, "As Kd"), (WEAK, "7d 5c")])
    assert ReviewCard.objects.count() == 2
    assert not practice_test.practice_test_score(test_id=attempt.pk)  # scored already
    worst = practice_test.practice_test_worst_hands(test_id=attempt.pk)
    assert review.review_cards_add_test_hands(player_id=player.pk, hands=worst) == []
    assert ReviewCard.objects.count() == 2
    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewCard.objects.create(user=player, test_hand=worst[0], cards=STRONG, mode="solo",
                                  front="As Kd", cost=Decimal("0.1"), due=T0)


def test_only_the_worst_hands_of_a_test_enter(
    player: Any, clock: Clock, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from games.services import practice_test

    monkeypatch.setattr(practice_test, "WORST_HANDS", 1)
    attempt = scored_test(player, [(WEAK, "7d 5c"), (STRONG, "As Kd")])
    assert [c.test_hand for c in deck(player)] == [attempt.test_hands.get(position=2)]


# ------------------------------------------------------------ boxes and due dates


def test_set_at_the_best_the_card_climbs_the_boxes_after_1_3_7_then_21_days(
    play_solo: Callable[..., Any], player: Any, clock: Clock,
) -> None:
    played(play_solo, player, WEAK, "7d 5c")
    review_deck_sync(user=player)
    card = deck(player)[0]
    best = "9h 7d"
    schedule = []
    for _ in range(5):
        answered = review_answer(user=player, card_id=card.pk, front=best)
        schedule.append((answered.box, answered.due - clock.now))
        assert selectors.review_due_count(user=player) == 0
        with pytest.raises(ReviewNotDue):  # not again before it is due
            review_answer(user=player, card_id=card.pk, front=best)
        clock.now = answered.due
        assert selectors.review_due_count(user=player) == 1
    days = timedelta(days=1)
    assert schedule == [(2, days), (3, 3 * days), (4, 7 * days), (5, 21 * days),
                        (5, 21 * days)]
    card.refresh_from_db()
    assert (card.reviews, card.last_front, card.last_at_best) == (5, "9h 7d", True)
    assert card.last_reviewed_at == T0 + timedelta(days=1 + 3 + 7 + 21)


def test_a_setting_short_of_the_best_goes_back_to_box_1_due_the_next_day(
    play_solo: Callable[..., Any], player: Any, clock: Clock,
) -> None:
    played(play_solo, player, WEAK, "7d 5c")
    review_deck_sync(user=player)
    card = deck(player)[0]
    for _ in range(3):
        clock.now = review_answer(user=player, card_id=card.pk, front="7d 9h").due
    assert ReviewCard.objects.get(pk=card.pk).box == 4
    # The house way's near miss (9h 5c gives up 0.0005) is not the best.
    missed = review_answer(user=player, card_id=card.pk, front=["9h", "5c"])
    assert (missed.box, missed.due, missed.last_at_best) == (1, clock.now + timedelta(days=1),
                                                             False)
    assert (missed.reviews, missed.last_front, missed.last_reviewed_at) == (4, "9h 5c", clock.now)
    clock.advance(days=1)
    again = review_answer(user=player, card_id=card.pk, front="9h 7d")
    assert (again.box, again.due) == (2, clock.now + timedelta(days=1))


def test_a_setting_tied_with_the_best_within_1e_9_counts_as_the_best(
    player: Any, clock: Clock,
) -> None:
    practised(player, WEAK, "3h 2c")
    review_deck_sync(user=player)
    card = deck(player)[0]
    # The class's stored analysis with 9h 5c a hair (5e-10) below the best
    # (WEAK is its suit class's representative: the rows are its own).
    row = ExactAnalysisCache.objects.get()
    payload = row.payload
    best = max(stored["expected"] for stored in payload["settings"])
    for stored in payload["settings"]:
        if set(stored["front"].split()) == {"9h", "5c"}:
            stored["expected"] = best - 5e-10
    row.payload = payload
    row.save()
    found = review.review_analysis(user=player, card=card)
    assert found is not None
    assert found.best.front != ("9h", "5c")
    assert review.at_best(found, ("9h", "5c"))
    assert not review.at_best(found, ("9h", "3h"))
    answered = review_answer(user=player, card_id=card.pk, front="9h 5c")
    assert (answered.box, answered.last_at_best) == (2, True)


def test_refused_answers_change_nothing(
    play_solo: Callable[..., Any], player: Any, friend: Any, clock: Clock,
) -> None:
    played(play_solo, player, WEAK, "7d 5c")
    review_deck_sync(user=player)
    card = deck(player)[0]
    with pytest.raises(ReviewCardNotFound):
        review_answer(user=friend, card_id=card.pk, front="9h 7d")
    with pytest.raises(ReviewCardNotFound):
        review_answer(user=player, card_id=card.pk + 1000, front="9h 7d")
    for front in ("9h", "As Ks", "9h 7d 5c", ""):
        with pytest.raises(InvalidSetting):
            review_answer(user=player, card_id=card.pk, front=front)
    ExactAnalysisCache.objects.all().delete()
    with (mock.patch.object(review.analysis, "exact_analysis_request") as request,
          pytest.raises(ReviewAnalysing)):
        review_answer(user=player, card_id=card.pk, front="9h 7d")
    request.assert_called_once_with(user=player, cards=card.cards, mode="solo", side="player")
    card.refresh_from_db()
    assert (card.box, card.due, card.reviews, card.last_front) == (1, T0, 0, "")


def test_an_answer_locks_the_cards_row_and_writes_once(
    play_solo: Callable[..., Any], player: Any, clock: Clock,
) -> None:
    played(play_solo, player, WEAK, "7d 5c")
    review_deck_sync(user=player)
    card = deck(player)[0]
    with CaptureQueriesContext(connection) as queries:
        review_answer(user=player, card_id=card.pk, front="9h 7d")
    sql = [q["sql"] for q in queries]
    writes = [s for s in sql if s.startswith("UPDATE")]
    assert len(writes) == 1
    assert "games_reviewcard" in writes[0]
    if connection.features.has_select_for_update:
        assert any("FOR UPDATE" in s and "games_reviewcard" in s for s in sql)
