"""Reads of the 100-hand test: the hand to set next, the player's attempts,
and a scored attempt's result (the owner's page and the shared one show the
same result; only the owner's has the attempt's own links)."""

from __future__ import annotations

from typing import Any, cast

from django.urls import reverse

from ..engine import card_name, guide_view, hand_guide, test_seed
from ..models import PracticeTest, PracticeTestHand, ReviewCard
from ..practice.selectors import decimals
from ..services.practice_test import PracticeTestNotFound, practice_test_worst_hands
from ..services.review import REVIEW_THRESHOLD


def practice_test_attempt(*, user: Any, test_id: int) -> PracticeTest:
    """The player's own attempt, or ``PracticeTestNotFound``."""
    found = PracticeTest.objects.filter(pk=test_id, player_id=user.pk).first()
    if found is None:
        raise PracticeTestNotFound()
    return found


def practice_test_shared(*, token: str) -> PracticeTest:
    """The finished attempt a shared link addresses (scoring or scored), or
    ``PracticeTestNotFound``: an attempt still being played is nobody else's."""
    found = (PracticeTest.objects.select_related("player")
             .filter(share_token=token).exclude(status="playing").first())
    if found is None:
        raise PracticeTestNotFound("There is no such shared test result: check the link.")
    return found


def practice_test_attempts(*, user: Any) -> list[PracticeTest]:
    """The player's attempts, newest first."""
    return list(PracticeTest.objects.filter(player_id=user.pk))


def practice_test_play(attempt: PracticeTest) -> dict[str, Any]:
    """The next hand to set, as the page shows it (JSON-ready): its cards and
    their names, each setting's names and foul, and nothing that compares
    settings (no house way, no figures: the test gives no hints).
    ``finished`` once every hand is locked."""
    urls = {"page": reverse("practice_test:attempt", args=[attempt.pk]),
            "lock": reverse("practice_test:lock", args=[attempt.pk])}
    hand = (PracticeTestHand.objects.filter(test=attempt, locked_at__isnull=True)
            .order_by("position").first())
    if attempt.status != "playing" or hand is None:
        return {"finished": True, "number": attempt.number, "hands": attempt.hands, "urls": urls}
    cards = list(hand.card_list)
    return {
        "finished": False, "locked": False, "number": attempt.number, "hands": attempt.hands,
        "position": hand.position, "cards": cards, "names": {c: card_name(c) for c in cards},
        "settings": [
            {key: row[key] for key in ("front", "front_name", "back_name", "foul_reason")
             if key in row}
            for row in cast("list[dict[str, Any]]", guide_view(cards)["settings"])
        ],
        "urls": urls,
    }


def _words(cards: tuple[str, ...], front: str) -> dict[str, Any]:
    chosen = hand_guide(cards).setting(front)
    return {"front": list(chosen.front), "back": list(chosen.back),
            "front_name": chosen.front_name, "back_name": chosen.back_name,
            "foul_reason": chosen.foul_reason}


def _hand_row(hand: PracticeTestHand) -> dict[str, Any]:
    guide = hand_guide(hand.card_list)
    loss, house_loss = hand.loss or 0.0, hand.house_loss or 0.0
    return {
        "position": hand.position, "cards": list(hand.card_list),
        "yours": _words(hand.card_list, hand.front),
        "best": _words(hand.card_list, hand.best_front),
        "house_way": _words(hand.card_list, hand.house_front) | {
            "row": guide.row, "reason": guide.reason},
        "loss": loss, "loss_text": decimals(loss),
        "house_loss": house_loss, "house_loss_text": decimals(house_loss),
        "at_best": loss == 0, "yours_is_house_way": hand.front == hand.house_front,
        "house_way_is_best": hand.best_front == hand.house_front,
    }


def _in_words(positions: list[int]) -> str:
    """[3] -> "hand 3"; [3, 7, 12] -> "hands 3, 7 and 12"."""
    numbers = [str(p) for p in positions]
    if len(numbers) == 1:
        return f"hand {numbers[0]}"
    return f"hands {', '.join(numbers[:-1])} and {numbers[-1]}"


def practice_test_deck(attempt: PracticeTest, worst: list[dict[str, Any]]) -> dict[str, Any]:
    """Which of the worst hands are in the owner's review deck (the scoring
    added those that gave up at least ``REVIEW_THRESHOLD``): each row gets
    its card's page as ``card_url`` (None when it has no card), and the
    sentence the result page says about them. Only for the owner's page."""
    cards = dict(ReviewCard.objects.filter(test_hand__test=attempt, user_id=attempt.player_id)
                 .values_list("test_hand__position", "pk"))
    for row in worst:
        card = cards.get(row["position"])
        row["card_url"] = reverse("games:review_card", args=[card]) if card else None
    added = [row["position"] for row in worst if row["card_url"]]
    threshold = decimals(float(REVIEW_THRESHOLD))
    if added:
        text = (f"Added to your review deck: {_in_words(added)}, each of which gave up "
                f"{threshold} or more. Review them there: set at the best, a hand comes back "
                "less and less often.")
    elif worst and all(row["loss"] < float(REVIEW_THRESHOLD) for row in worst):
        text = (f"None of these gave up {threshold} or more, so none was added to your "
                "review deck.")
    else:
        text = ""
    return {"added": added, "text": text, "url": reverse("games:review")}


def practice_test_result(attempt: PracticeTest, *, owner: bool = False) -> dict[str, Any]:
    """A finished attempt's result (JSON-ready; ``scored`` False while the
    worker scores it): the totals against the house way's on the same hands,
    every hand, and the hands the player gave up most on
    (``practice_test_worst_hands``: a cost above 0, worst first), and for
    the ``owner`` which of those are in their review deck
    (``practice_test_deck``). Only ``name`` is private, None unless the
    player chose to show it."""
    result: dict[str, Any] = {
        "number": attempt.number, "hands": attempt.hands, "seed": test_seed(attempt.number),
        "scored": attempt.status == "scored",
        "name": attempt.player.get_username() if attempt.show_name else None,
        "share_url": reverse("practice_test:shared", args=[attempt.share_token]),
    }
    if not result["scored"]:
        return result
    rows = [_hand_row(hand) for hand in attempt.test_hands.order_by("position")]
    total, house = attempt.total_loss or 0.0, attempt.house_loss or 0.0
    by_position = {row["position"]: row for row in rows}
    worst = [by_position[hand.position] for hand in practice_test_worst_hands(test_id=attempt.pk)]
    if total < house:
        verdict = f"You gave up {decimals(house - total)} less than the house way on these hands."
    elif total > house:
        verdict = f"You gave up {decimals(total - house)} more than the house way on these hands."
    else:
        verdict = "You gave up exactly as much as the house way on these hands."
    return result | {
        "total_loss": total, "total_text": decimals(total),
        "house_loss": house, "house_text": decimals(house),
        "average_text": decimals(total / attempt.hands), "at_best": attempt.at_best or 0,
        "verdict": verdict, "rows": rows, "worst": worst,
        "deck": practice_test_deck(attempt, worst) if owner else None,
    }
