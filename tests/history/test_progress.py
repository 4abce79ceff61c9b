"""The record's progress (/record/ and GET /api/record/'s ``progress``): the
player's decision cost over time, a rolling mean over the last 50 decisions
in order of reveal, and per house-way row in words, each beside what the
house way itself gives up on the same hands. Exact costs only: the hands
still being costed are counted apart, and nobody else's hands are in."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from statistics import fmean
from typing import Any

import pytest
from django.test import Client

from games import services
from games.engine import exact, house_way
from games.engine.cost import EXACT_OPPONENTS
from games.history import record
from games.history.progress_chart import progress_chart
from games.history.record import decision_progress
from games.models import Deal, Hand
from tests.api.test_permissions import client_for
from tests.background.test_decision_cost import TWO_PAIR
from tests.support import STRONG, WEAK

pytestmark = pytest.mark.django_db

# Low two pair: the house way keeps it together and gives up about 0.097 a
# hand; the best splits it.
HOUSE_GIVES_UP = "6h Ts 5c 2d 6c 2s 3s"
DEALER = "Ah Kd Qc Jh 9d 8c 7s"
NINE = Decimal("0.000000001")


def exact_losses(cards: str, front: list[str]) -> tuple[Decimal, Decimal]:
    """(your loss, the house way's loss) of ``front`` for ``cards``, from the
    engine's exact analysis, as the hand stores them."""
    found = exact(cards, mode="solo")
    chosen = next(r for r in found.settings if set(r.front) == set(front))
    house = next(r for r in found.settings
                 if set(r.front) == set(house_way(cards).setting.front))
    return tuple(  # type: ignore[return-value]
        (Decimal(found.best.expected) - Decimal(r.expected)).quantize(NINE, ROUND_HALF_UP)
        for r in (chosen, house))


def cost(deal: Deal, *, yours: float, house: float) -> None:
    """Record an exact cost for the player's hand of ``deal`` through the
    service, with the best setting's expected score 0.6."""
    hand = Hand.objects.get(deal=deal, seat_number=0)
    services.hand_cost_record(
        hand_id=hand.pk, chosen_expected=0.6 - yours, best_expected=0.6,
        best_front=hand.front.split(), opponents=EXACT_OPPONENTS, exact=True,
        house_expected=0.6 - house)


def shown(value: Decimal | float) -> str:
    return str(Decimal(value).quantize(Decimal("0.001"), ROUND_HALF_UP))


@pytest.fixture
def costed(player: Any, play_solo: Callable[..., Deal],
           django_capture_on_commit_callbacks: Any) -> dict[str, Any]:
    """Ada's exactly costed deals, in order of reveal: the low two pair set by
    the best (she gives up nothing, the house way about 0.097) twice, the
    two-pair lesson set badly (she gives up, the house way nothing); then one
    deal whose cost is still pending."""
    table = services.table_start(user=player, mode="solo")
    best = list(exact(HOUSE_GIVES_UP, mode="solo").best.front)
    with django_capture_on_commit_callbacks(execute=True):
        play_solo(player, table, HOUSE_GIVES_UP, DEALER, front=best)
        play_solo(player, table, HOUSE_GIVES_UP, DEALER, front=best)
        play_solo(player, table, TWO_PAIR, WEAK, front=["Ks", "7h"])
    play_solo(player, table, STRONG, WEAK)  # its cost task never ran
    return {"keep": exact_losses(HOUSE_GIVES_UP, best),
            "split": exact_losses(TWO_PAIR, ["Ks", "7h"])}


def test_the_rows_say_what_you_and_the_house_way_give_up_on_the_same_hands(
    player: Any, costed: dict[str, Any]
) -> None:
    (keep_yours, keep_house), (split_yours, split_house) = costed["keep"], costed["split"]
    assert keep_yours == 0 < keep_house
    assert split_house == 0 < split_yours
    progress = decision_progress(user=player)
    assert (progress["exact"], progress["pending"]) == (3, 1)
    keep, split = progress["by_row"]  # most played first
    assert (keep["row"], keep["words"], keep["hands"]) == ("two-pair-keep",
                                                           "Two pair, kept together", 2)
    assert (keep["loss_mean"], keep["house_loss_mean"]) == (0, keep_house)
    assert keep["house_loss_sum"] == 2 * keep_house
    assert keep["sentence"] == (
        f"Two pair, kept together: you give up 0.000 per hand over 2 hands; "
        f"the house way gives up {shown(keep_house)} on the same hands.")
    assert split["sentence"] == (
        f"Two pair, split: you give up {shown(split_yours)} per hand over 1 hand; "
        "the house way gives up 0.000 on the same hands.")


def test_the_series_is_the_running_mean_in_order_of_reveal(
    player: Any, costed: dict[str, Any]
) -> None:
    keep_house, split_yours = costed["keep"][1], costed["split"][0]
    series = decision_progress(user=player)["series"]
    assert series["decision"] == [1, 2, 3]
    assert series["yours"] == pytest.approx([0, 0, float(split_yours) / 3])
    assert series["house"] == pytest.approx(
        [float(keep_house), float(keep_house), float(2 * keep_house) / 3])


def test_the_window_is_the_last_fifty_decisions(
    player: Any, play_solo: Callable[..., Deal]
) -> None:
    table = services.table_start(user=player, mode="solo")
    yours = [(i % 7) / 100 for i in range(53)]
    house = [(i % 3) / 100 for i in range(53)]
    for mine, theirs in zip(yours, house, strict=True):
        cost(play_solo(player, table, STRONG, WEAK), yours=mine, house=theirs)
    progress = decision_progress(user=player)
    series = progress["series"]
    assert series["decision"] == list(range(1, 54))
    assert series["yours"][49] == pytest.approx(fmean(yours[:50]))
    assert series["yours"][-1] == pytest.approx(fmean(yours[3:]))
    assert series["house"][-1] == pytest.approx(fmean(house[3:]))
    assert progress["latest"] == {"decisions": 50, "yours": shown(fmean(yours[3:])),
                                  "house": shown(fmean(house[3:]))}
    (row,) = progress["by_row"]
    assert (row["words"], row["hands"]) == ("Three pairs", 53)
    client = Client()
    client.force_login(player)
    assert "Over your last 50 decisions you gave up" in client.get("/record/").content.decode()


def test_the_chart_draws_the_latest_decisions_with_the_window_before_them(
    player: Any, play_solo: Callable[..., Deal], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(record, "WINDOW", 3)
    monkeypatch.setattr(record, "SERIES_LIMIT", 4)
    table = services.table_start(user=player, mode="solo")
    losses = [0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08]
    for loss in losses:
        cost(play_solo(player, table, STRONG, WEAK), yours=loss, house=0)
    series = decision_progress(user=player)["series"]
    assert series["decision"] == [5, 6, 7, 8]
    # The first point drawn is the mean of decisions 3 to 5, not of 5 alone.
    assert series["yours"] == pytest.approx([0.04, 0.05, 0.06, 0.07])
    assert series["house"] == [0, 0, 0, 0]


def test_only_exact_costs_with_the_house_ways_loss_count(
    player: Any, play_solo: Callable[..., Deal]
) -> None:
    table = services.table_start(user=player, mode="solo")
    sampled, no_house, _ = (play_solo(player, table, STRONG, WEAK) for _ in range(3))
    hand = Hand.objects.get(deal=sampled, seat_number=0)
    services.hand_cost_record(hand_id=hand.pk, chosen_expected=0.5, best_expected=0.6,
                              best_front=hand.front.split(), opponents=10_000, exact=False)
    cost(no_house, yours=0.1, house=0)
    Hand.objects.filter(deal=no_house).update(cost_house_loss=None)  # costed before it was kept
    progress = decision_progress(user=player)
    assert (progress["exact"], progress["pending"]) == (0, 3)
    assert progress["series"] == {"decision": [], "yours": [], "house": []}
    assert (progress["latest"], progress["by_row"]) == (None, [])
    assert progress_chart(progress) is None


def test_nobody_elses_hands_and_no_unrevealed_deal_are_in(
    player: Any, friend: Any, play_solo: Callable[..., Deal]
) -> None:
    cost(play_solo(friend, services.table_start(user=friend, mode="solo"), STRONG, WEAK),
         yours=0.2, house=0.1)
    table = services.table_start(user=player, mode="solo")
    cost(play_solo(player, table, STRONG, WEAK), yours=0.01, house=0.02)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    services.deal_start(user=player, table_id=table.pk)  # dealt, not revealed
    progress = decision_progress(user=player)
    assert (progress["exact"], progress["pending"]) == (1, 0)
    assert progress["series"]["yours"] == pytest.approx([0.01])


def test_the_record_page_draws_the_chart_and_says_the_rows(
    player: Any, costed: dict[str, Any]
) -> None:
    client = Client()
    client.force_login(player)
    text = client.get("/record/").content.decode()
    assert "lower is better" in text
    svg = re.search(r"<svg class=\"progress-svg\".*?</svg>", text, re.DOTALL)
    assert svg is not None
    for part in ('role="img"', "<title", "<desc"):
        assert part in svg[0]
    assert svg[0].count("<polyline") == 2
    assert svg[0].count('<circle cx="') == 2
    assert 'cx=""' not in svg[0]
    assert re.search(r'class="line-yours" points="(\S+,\S+ ){2}\S+,\S+"', svg[0])
    split_yours = costed["split"][0]
    assert f"Two pair, split: you give up {shown(split_yours)} per hand over 1 hand" in text
    assert "Two pair, kept together: you give up 0.000 per hand over 2 hands" in text
    assert "1 deal still being costed exactly" in text
    assert f"Over your 3 decisions so far you gave up <strong>{shown(split_yours / 3)}</strong>" \
        in text
    # The figures for screen readers: the latest decision's row.
    assert re.search(r"<th scope=\"row\">3</th><td class=\"num\">"
                     + re.escape(shown(split_yours / 3)), text)


def test_the_record_page_before_any_exact_cost(player: Any, play_solo: Callable[..., Deal]
                                               ) -> None:
    play_solo(player, services.table_start(user=player, mode="solo"), STRONG, WEAK)
    client = Client()
    client.force_login(player)
    text = client.get("/record/").content.decode()
    assert "No decision costed exactly yet" in text
    assert '<svg class="progress-svg"' not in text
    assert "1 deal still being costed exactly" in text


def test_the_api_gives_the_same_progress(player: Any, costed: dict[str, Any]) -> None:
    answer = client_for(player).get("/api/record/")
    assert answer.status_code == 200
    progress = answer.json()["progress"]
    assert {k: progress[k] for k in ("window", "exact", "pending")} == {
        "window": 50, "exact": 3, "pending": 1}
    assert progress["series"]["decision"] == [1, 2, 3]
    keep = progress["by_row"][0]
    assert (keep["row"], keep["hands"]) == ("two-pair-keep", 2)
    assert Decimal(keep["house_loss_mean"]) == costed["keep"][1]
    assert keep["sentence"].startswith("Two pair, kept together: you give up 0.000")
    assert progress["latest"]["decisions"] == 3


def test_the_api_progress_of_a_new_player_is_empty(player: Any) -> None:
    progress = client_for(player).get("/api/record/").json()["progress"]
    assert progress == {"window": 50, "exact": 0, "pending": 0,
                        "series": {"decision": [], "yours": [], "house": []},
                        "latest": None, "by_row": []}
