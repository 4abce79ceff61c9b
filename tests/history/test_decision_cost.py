"""The decision cost on the history: each deal's (list, replay, CSV, API), a
session's and the skill report's average loss and share at the best, and the
worst decisions to review by house-way row, linked to their replays."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from django.test import Client

from games import engine, reports, services
from games.engine.cost import EXACT_OPPONENTS, decision_cost
from games.models import Deal, Hand, Table
from games.services import upkeep
from tests.api.test_permissions import body
from tests.support import STRONG, WEAK, house_front

pytestmark = pytest.mark.django_db

TWO_PAIR = "As Ah 8d 8c Ks 7h 4d"  # the two-pair lesson: 8d 8c in front is the best
BAD = ["Ks", "7h"]  # the aces and eights both behind: gives up about 0.2
SAMPLES = 2000


@pytest.fixture(autouse=True)
def fewer_opponents(settings: Any) -> None:
    settings.DECISION_COST_SAMPLES = SAMPLES


def estimate(deal: Deal) -> None:
    """Record the player's cost as an estimate over ``SAMPLES`` opponents, as
    the background task did before it costed every hand exactly: hands costed
    then still show theirs, labelled, until the sweep makes them exact."""
    hand = Hand.objects.get(deal=deal, seat_number=0)
    cost = decision_cost(hand.cards, mode="solo", front=hand.front, samples=SAMPLES)
    services.hand_cost_record(
        hand_id=hand.pk, chosen_expected=cost.chosen_expected, best_expected=cost.best_expected,
        best_front=list(cost.best_front), opponents=cost.opponents, exact=False,
        at_best=cost.at_best,
    )


@pytest.fixture
def session(player: Any, play_solo: Callable[..., Deal]) -> tuple[Table, list[Deal]]:
    """A solo session: the two-pair hand set badly, then by the house way (both
    estimated), then a third deal whose cost is still pending."""
    table = services.table_start(user=player, mode="solo")
    deals = [play_solo(player, table, TWO_PAIR, WEAK, front=BAD),
             play_solo(player, table, TWO_PAIR, WEAK)]
    for deal in deals:
        estimate(deal)
    deals.append(play_solo(player, table, STRONG, WEAK, front=house_front(STRONG)))
    return table, deals


@pytest.fixture
def ada(player: Any) -> Client:
    client = Client()
    client.force_login(player)
    return client


def bad_loss() -> Decimal:
    cost = decision_cost(TWO_PAIR, mode="solo", front=BAD, samples=SAMPLES)
    return Decimal(cost.loss).quantize(Decimal("0.000000001"))


def shown(value: Decimal) -> str:
    """As a page shows a loss: three places, rounded half up."""
    return str(value.quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_the_list_says_what_each_setting_gave_up_and_how_it_was_computed(
    session: tuple[Table, list[Deal]], ada: Client,
) -> None:
    text = page(ada, "/history/")
    assert (f"Gave up {shown(bad_loss())} against the best:" in text,
            "Set at the best" in text, "Decision cost pending" in text,
            f"estimated over {SAMPLES:,} opponents" in text) == (True, True, True, True)


def test_the_replay_shows_the_best_front_and_then_the_exact_figure(
    session: tuple[Table, list[Deal]], ada: Client,
) -> None:
    bad = session[1][0]
    text = page(ada, f"/history/deals/{bad.pk}/")
    assert f"Gave up {shown(bad_loss())} against the best:" in text
    assert 'aria-label="Eight of diamonds"' in text.split("against the best:")[1][:400]
    hand = Hand.objects.get(deal=bad, seat_number=0)
    services.hand_cost_record(hand_id=hand.pk, chosen_expected=0.4, best_expected=0.6,
                              best_front=["8d", "8c"], opponents=EXACT_OPPONENTS, exact=True)
    text = page(ada, f"/history/deals/{bad.pk}/")
    assert ("Gave up 0.200 against the best:" in text, ">exact<" in text) == (True, True)


def test_the_session_page_shows_the_average_loss_the_share_and_what_to_review(
    session: tuple[Table, list[Deal]], ada: Client,
) -> None:
    table, deals = session
    text = page(ada, f"/history/sessions/{table.pk}/")
    mean = (bad_loss() / 2).quantize(Decimal("0.000001"))
    assert f"{shown(mean)}" in text.split("Average loss per deal")[1][:120]
    assert "50%" in text.split("Set at the best")[1][:80]
    review = text.split("Decisions to review")[1]
    assert f'href="/history/deals/{deals[0].pk}/"' in review
    assert f'href="/history/deals/{deals[1].pk}/"' not in review  # set at the best


def test_the_skill_report_shows_the_cost_and_what_to_review_by_row(
    session: tuple[Table, list[Deal]], ada: Client,
) -> None:
    text = page(ada, "/history/skill/")
    row = engine.house_way(TWO_PAIR).row
    review = text.split("Decisions to review")[1]
    words = engine.row_words(row)
    assert (f">{words}</h3>" in review, f'href="/history/deals/{session[1][0].pk}/"' in review) == (
        True, True
    )
    assert "Average loss" in text.split("By house-way row")[1]


def test_the_csv_has_the_cost_columns(session: tuple[Table, list[Deal]], ada: Client) -> None:
    rows = list(csv.DictReader(io.StringIO(body(ada.get("/history/export.csv")).decode())))
    by_deal = {int(r["deal_id"]): r for r in rows}
    bad, best, pending = (by_deal[d.pk] for d in session[1])
    assert [bad[k] for k in ("cost_status", "cost_at_best", "cost_best_front",
                             "cost_opponents")] == ["sampled", "no", "8d 8c", str(SAMPLES)]
    assert Decimal(bad["cost_loss"]) == bad_loss()
    assert (best["cost_loss"], best["cost_at_best"]) == ("0.000000000", "yes")
    assert [pending[k] for k in ("cost_status", "cost_loss", "cost_at_best")] == [
        "pending", "", ""
    ]


def test_the_api_gives_each_deals_cost(session: tuple[Table, list[Deal]], ada: Client) -> None:
    bad = ada.get(f"/api/hands/{session[1][0].pk}/").json()["cost"]
    assert {k: v for k, v in bad.items() if k != "computed_at"} == {
        "status": "sampled", "loss": str(bad_loss()), "at_best": False,
        "best_front": ["8d", "8c"], "best_front_name": "Pair of eights", "opponents": SAMPLES,
    }
    pending = ada.get(f"/api/hands/{session[1][2].pk}/").json()["cost"]
    assert (pending["status"], pending["loss"], pending["at_best"]) == ("pending", None, None)


def test_the_api_session_has_its_cost_and_worst_decisions(
    session: tuple[Table, list[Deal]], ada: Client,
) -> None:
    table, deals = session
    answer = ada.get(f"/api/tables/{table.pk}/").json()
    mean = (bad_loss() / 2).quantize(Decimal("0.000001"))
    assert answer["cost"] == {
        "hands": 2, "pending": 1, "exact": 0, "at_best": 1, "at_best_share": "0.5000",
        "loss_sum": str(bad_loss().quantize(Decimal("0.000001"))), "loss_mean": str(mean),
    }
    assert [[d["id"] for d in r["decisions"]] for r in answer["worst"]] == [[deals[0].pk]]
    assert [p["loss"] for p in answer["series"]] == [str(bad_loss()), "0.000000000", None]


def test_the_skill_report_reads_the_same_costs_from_its_buckets_and_from_the_hands(
    session: tuple[Table, list[Deal]], ada: Client, player: Any,
) -> None:
    summed = ada.get("/api/reports/skill/").json()
    assert reports.report_refresh(user_id=player.pk) is True
    from_buckets = ada.get("/api/reports/skill/").json()
    assert from_buckets == summed
    assert summed["total"]["cost"]["at_best"] == 1


def test_a_new_cost_makes_the_buckets_stale_until_they_are_rebuilt(
    session: tuple[Table, list[Deal]], ada: Client, player: Any,
) -> None:
    reports.report_refresh(user_id=player.pk)
    pending = Hand.objects.get(deal=session[1][2], seat_number=0)
    upkeep.decision_cost_estimate(hand_id=pending.pk)  # its refresh is left on commit
    report = ada.get("/api/reports/skill/").json()
    assert report["total"]["cost"]["hands"] == 3
    assert reports.report_refresh(user_id=player.pk) is True  # behind: rebuilt
    assert ada.get("/api/reports/skill/").json() == report


def test_an_exact_figure_replacing_an_estimate_makes_the_buckets_stale(
    session: tuple[Table, list[Deal]], ada: Client, player: Any,
) -> None:
    reports.report_refresh(user_id=player.pk)
    hand = Hand.objects.get(deal=session[1][0], seat_number=0)
    services.hand_cost_record(hand_id=hand.pk, chosen_expected=0.4, best_expected=0.6,
                              best_front=["8d", "8c"], opponents=EXACT_OPPONENTS, exact=True)
    total = ada.get("/api/reports/skill/").json()["total"]["cost"]
    assert (total["exact"], total["loss_sum"]) == (1, "0.200000")
