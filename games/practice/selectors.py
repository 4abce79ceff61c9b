"""Reads of the practice table: one hand as the page shows it, and the
player's practice record (accuracy: the share of hands set at the best
setting; average loss: the best setting's expected score minus the chosen
one's, per hand)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any, cast

from django.db.models import Avg, Count, Q
from django.urls import reverse

from ..engine import DRILL_LESSONS, DRILLS, card_name, explore_settings, guide_view, hand_guide
from ..engine.errors import PracticeHandNotFound
from ..models import PracticeHand


def practice_hand(*, user: Any, hand_id: int) -> PracticeHand:
    """The player's own practice hand, or ``PracticeHandNotFound``."""
    hand = PracticeHand.objects.filter(pk=hand_id, player_id=user.pk).first()
    if hand is None:
        raise PracticeHandNotFound()
    return hand


def practice_open(*, user: Any) -> PracticeHand | None:
    """The player's latest hand still waiting for a lock, if any."""
    return PracticeHand.objects.filter(player_id=user.pk, locked_at__isnull=True).first()


def decimals(value: float, places: int = 3) -> str:
    """A figure with ``places`` decimals, rounded half up from its shortest
    decimal form (the page's only formatting: the script shows these texts)."""
    quantum = Decimal(1).scaleb(-places)
    return str(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def _setting(hand: PracticeHand, front: str, expected: dict[tuple[str, ...], float]
             ) -> dict[str, Any]:
    chosen = hand_guide(hand.card_list).setting(front)
    value = expected[chosen.front]
    return {
        "front": list(chosen.front), "back": list(chosen.back),
        "front_name": chosen.front_name, "back_name": chosen.back_name,
        "foul_reason": chosen.foul_reason, "expected": value, "expected_text": decimals(value),
    }


def _result(hand: PracticeHand) -> dict[str, Any]:
    fronts = [s.front for s in explore_settings(hand.card_list)]
    expected = dict(zip(fronts, hand.expected or (), strict=True))
    guide = hand_guide(hand.card_list)
    loss = hand.loss or 0.0
    opponents = hand.opponents or 0
    yours = _setting(hand, hand.front, expected)
    best = _setting(hand, hand.best_front, expected)
    house = _setting(hand, hand.house_front, expected) | {"row": guide.row,
                                                          "reason": guide.reason}
    if hand.at_best:
        verdict = "Your setting is the best one: it gave up nothing."
    else:
        verdict = (f"Your setting gave up {decimals(loss)} of a point per hand against the best "
                   f"(expected score {yours['expected_text']} against {best['expected_text']}): "
                   f"about {decimals(loss * 100, 1)} points every 100 hands.")
    if hand.exact:
        basis = f"Exact: against every one of the {opponents:,} possible opponent hands."
    else:
        basis = (f"An estimate over {opponents:,} random opponents who set by the house way, the "
                 "same ones for every setting; the dealer wins copies. A win scores 1 point, a "
                 "push half a point.")
    return {
        "yours": yours, "best": best, "house_way": house,
        "loss": loss, "loss_text": decimals(loss), "at_best": bool(hand.at_best),
        "house_way_is_best": hand.best_front == hand.house_front,
        "yours_is_house_way": hand.front == hand.house_front,
        "opponents": opponents, "exact": hand.exact, "analysis_ms": hand.analysis_ms,
        "verdict": verdict, "basis": basis,
    }


def practice_view(hand: PracticeHand) -> dict[str, Any]:
    """A hand as the practice page shows it (JSON-ready): its cards and their
    names; while unlocked each setting's names and foul (the guide without
    the house way: practice asks the player), once locked the result."""
    cards = list(hand.card_list)
    view: dict[str, Any] = {
        "id": hand.pk, "drill": hand.drill, "drill_label": DRILLS[hand.drill],
        "lesson": DRILL_LESSONS[hand.drill],
        "cards": cards, "names": {c: card_name(c) for c in cards},
        "locked": hand.locked,
        "urls": {
            "page": reverse("practice:hand", args=[hand.pk]),
            "lock": reverse("practice:lock", args=[hand.pk]),
            "deal": reverse("practice:deal"),
        },
    }
    if hand.locked:
        view["result"] = _result(hand)
    else:
        # Names and fouls only: nothing that compares with the house way
        # before the player has locked.
        view["settings"] = [
            {key: row[key] for key in ("front", "front_name", "back_name", "foul_reason")
             if key in row}
            for row in cast("list[dict[str, Any]]", guide_view(cards)["settings"])
        ]
    return view


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _texts(row: dict[str, Any]) -> dict[str, Any]:
    """The row's figures as the pages show them ("62.5%", "0.041"; "—" with no hands)."""
    accuracy, loss = row["accuracy"], row["average_loss"]
    return row | {
        "accuracy_text": "—" if accuracy is None else f"{decimals(100 * accuracy, 1)}%",
        "average_loss_text": "—" if loss is None else decimals(loss),
    }


def practice_record(*, user: Any) -> dict[str, Any]:
    """The player's practice record in two aggregate queries: ``hands``
    locked, ``at_best`` (set at the best setting), ``accuracy`` (their
    share, None with no hands), ``average_loss`` (expected score per hand,
    None with no hands), the same as the pages show them (``accuracy_text``,
    ``average_loss_text``) and the same per drill (``by_drill``, drills with
    hands only, in the drills' order)."""
    locked = PracticeHand.objects.filter(player_id=user.pk, locked_at__isnull=False)
    figures: dict[str, Any] = {"hands": Count("id"),
                               "at_best": Count("id", filter=Q(at_best=True)),
                               "average_loss": Avg("loss")}
    total = locked.aggregate(**figures)
    rows: dict[str, dict[str, Any]] = {
        r["drill"]: dict(r) for r in locked.values("drill").annotate(**figures).order_by()
    }
    by_drill = [
        _texts({"drill": drill, "label": label, "hands": rows[drill]["hands"],
         "at_best": rows[drill]["at_best"],
         "accuracy": _rate(rows[drill]["at_best"], rows[drill]["hands"]),
         "average_loss": rows[drill]["average_loss"]})
        for drill, label in DRILLS.items() if drill in rows
    ]
    return _texts({
        "hands": total["hands"], "at_best": total["at_best"],
        "accuracy": _rate(total["at_best"], total["hands"]),
        "average_loss": total["average_loss"], "by_drill": by_drill,
    })


def practice_progress(*, user: Any, drill: str | None = None, points: int = 1000
                      ) -> dict[str, list[Any]]:
    """Accuracy (percent) and average loss after each locked hand, by hand
    number (1, 2, …), for the record's charts: the running figures over all
    hands up to each one; the latest ``points`` hands are plotted."""
    locked = PracticeHand.objects.filter(player_id=user.pk, locked_at__isnull=False)
    if drill:
        locked = locked.filter(drill=drill)
    rows = list(locked.order_by("locked_at", "id").values_list("at_best", "loss"))
    hand, accuracy, average_loss = [], [], []
    best = 0
    lost = 0.0
    for number, (at_best, loss) in enumerate(rows, start=1):
        best += bool(at_best)
        lost += loss or 0.0
        hand.append(number)
        accuracy.append(round(100 * best / number, 2))
        average_loss.append(round(lost / number, 5))
    return {"hand": hand[-points:], "accuracy": accuracy[-points:],
            "average_loss": average_loss[-points:]}
