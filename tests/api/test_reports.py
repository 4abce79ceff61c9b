"""Report arithmetic on hand-built deals: the deck, each setting and each
luck estimate is chosen here, and every expected figure is worked out by hand
(rules §6–8): luck averages skip pending estimates; skill counts every
revealed deal."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from games import engine, services
from games.models import Deal, Table
from tests.support import COPY_A, COPY_B, STRONG, WEAK, deal_friend, house_front

pytestmark = pytest.mark.django_db

# (player's cards, dealer's cards, player's front or None for the house way,
#  luck counts or None for pending, expected result, expected skill)
DEALS = [
    (STRONG, WEAK, None, (100, 10, 10), "win", "0.00"),  # luck 1 + 9 × 210/240 = 8.875
    ("Ad 9c 2h 6h Qc 5h 7s", "2s 9h 3h 6s Ks Th As", "7s 6h", (60, 0, 60), "push", "0.50"),
    ("Kc 7h Kd 3s 3c As 4c", "8c 7d Tc Ac 6h Jh 5d", "3s 7h", None, "push", "-0.50"),
    ("5c 3d Jc Ac Kh Js 9c", "7c 8s Qc 4s 2c 2h Jd", "Js 3d", (0, 0, 120), "loss", "-1.00"),
]


@pytest.fixture
def solo(play_solo: Callable[..., Deal], player: Any) -> tuple[Table, list[Deal]]:
    table = services.table_start(user=player, mode="solo")
    deals = [
        play_solo(
            player, table, mine, dealer, front=front and front.split(), stake=10, luck=luck
        )
        for mine, dealer, front, luck, _, _ in DEALS
    ]
    return table, deals


@pytest.fixture
def api(player: Any) -> Client:
    client = Client()
    client.force_login(player)
    return client


def test_each_hand_record_carries_what_the_reveal_stored(
    solo: tuple[Table, list[Deal]], api: Client
) -> None:
    _, deals = solo
    results = api.get("/api/hands/").json()["results"]
    assert [r["id"] for r in results] == [d.pk for d in reversed(deals)]  # newest first
    by_id = {r["id"]: r for r in results}
    for deal, (mine, _, front, luck, result, skill) in zip(deals, DEALS, strict=True):
        r = by_id[deal.pk]
        assert r["result"] == result
        assert r["skill"] == skill
        assert r["house_way"]["followed"] is (front is None)
        assert set(r["you"]["cards"]) == set(mine.split())
        assert r["luck"]["status"] == ("pending" if luck is None else "completed")
    first = by_id[deals[0].pk]
    assert first["ledgers"] == {
        "actual": {"delta": "10.00", "balance": "1010.00"},
        "with_5": {"delta": "9.50", "balance": "1009.50"},
    }
    assert first["luck"]["value"] == pytest.approx(8.875)
    assert first["luck"]["low"] < 8.875 < first["luck"]["high"]
    assert by_id[deals[2].pk]["luck"] == {
        "status": "pending", "value": None, "low": None, "high": None, "label": "pending",
        "wins": None, "pushes": None, "losses": None,
    }
    last = by_id[deals[3].pk]
    assert last["ledgers"]["actual"] == {"delta": "-10.00", "balance": "1000.00"}
    assert last["ledgers"]["with_5"] == {"delta": "-10.00", "balance": "999.50"}


def test_the_skill_is_spelled_out(solo: tuple[Table, list[Deal]], api: Client) -> None:
    _, deals = solo
    detail = api.get(f"/api/hands/{deals[3].pk}/").json()["skill_detail"]
    # Js-3d in front against the dealer's house way loses; the house way wins.
    assert detail["actual"]["score"] == "0.00"
    assert detail["actual"]["result"] == "loss"
    assert detail["house_way"]["score"] == "1.00"
    assert detail["house_way"]["result"] == "win"
    assert detail["difference"] == "-1.00"
    plus = api.get(f"/api/hands/{deals[1].pk}/").json()["skill_detail"]
    assert (plus["actual"]["score"], plus["house_way"]["score"], plus["difference"]) == (
        "0.50", "0.00", "0.50"
    )
    even = api.get(f"/api/hands/{deals[0].pk}/").json()["skill_detail"]
    assert even["actual"] == even["house_way"]
    assert even["difference"] == "0.00"


def test_the_session_averages_completed_luck_and_counts_every_skill(
    solo: tuple[Table, list[Deal]], api: Client
) -> None:
    table, _ = solo
    session = api.get(f"/api/tables/{table.pk}/").json()
    assert session["deals_played"] == 4
    assert session["luck_completed"] == 3
    assert session["luck_pending"] == 1
    # (8.875 + 5.5 + 1.0) / 3, the pending estimate left out.
    assert session["luck_average"] == "5.125"
    assert session["skill_total"] == "-1.00"  # 0 + 0.5 − 0.5 − 1, over all four
    assert session["skill_mean"] == "-0.2500"
    assert session["stacks"] == {"you": 1000, "other": 1000}
    # Each side lost 10 once and won 10 once: −10 + 9.50 in the "with 5%" ledger.
    assert session["with_5"] == {"you": "999.50", "other": "999.50"}
    assert [p["actual_balance"] for p in session["series"]] == [
        "1010.00", "1010.00", "1010.00", "1000.00"
    ]
    assert [p["with_5_balance"] for p in session["series"]] == [
        "1009.50", "1009.50", "1009.50", "999.50"
    ]
    assert session["started_at"]
    assert session["ended_at"]
    listed = api.get("/api/tables/").json()["results"]
    assert [s["id"] for s in listed] == [table.pk]
    assert listed[0]["luck_average"] == "5.125"


def test_a_session_without_completed_luck_has_no_average(
    play_solo: Callable[..., Deal], player: Any, api: Client
) -> None:
    table = services.table_start(user=player, mode="solo")
    play_solo(player, table, COPY_A, COPY_B)
    session = api.get(f"/api/tables/{table.pk}/").json()
    assert session["luck_average"] is None
    assert session["luck_completed"] == 0
    assert session["deals_played"] == 1
    assert session["skill_mean"] == "0.0000"


def pending(deals: int) -> dict[str, Any]:
    """A report bucket's decision cost while every one of its deals' is pending."""
    return {"hands": 0, "pending": deals, "exact": 0, "at_best": 0, "at_best_share": None,
            "loss_sum": "0.000000", "loss_mean": None}


def test_the_skill_report_by_row_mode_and_day(
    solo: tuple[Table, list[Deal]], api: Client, rig: Callable[..., None],
    joined_table: Table, player: Any, friend: Any,
) -> None:
    deal_friend(rig, joined_table, player, friend, COPY_A, COPY_B)
    for user, cards in ((player, COPY_A), (friend, COPY_B)):
        services.setting_lock(
            user=user, table_id=joined_table.pk, front=house_front(cards)
        )
    report = api.get("/api/reports/skill/").json()
    # No decision cost yet: the background estimate runs once the reveal commits.
    assert report["total"] == {
        "deals": 5, "departures": 3, "skill_sum": "-1.00", "skill_mean": "-0.2000",
        "cost": pending(5),
    }
    assert report["by_mode"] == [
        {"mode": "solo", "deals": 4, "departures": 3, "skill_sum": "-1.00",
         "skill_mean": "-0.2500", "cost": pending(4)},
        {"mode": "friend", "deals": 1, "departures": 0, "skill_sum": "0.00",
         "skill_mean": "0.0000", "cost": pending(1)},
    ]
    rows = {r["row"]: r for r in report["by_row"]}
    strong, copy = engine.house_way(STRONG).row, engine.house_way(COPY_A).row
    expected = {
        strong: (1, 0, "0.00"),
        "no-pair": (1 + (copy == "no-pair"), 1, "0.50"),
        "two-pair-keep": (1, 1, "-0.50"),
        "one-pair": (1, 1, "-1.00"),
    }
    for row, (deals, departures, total) in expected.items():
        assert (rows[row]["deals"], rows[row]["departures"], rows[row]["skill_sum"]) == (
            deals, departures, total
        ), row
    assert sum(r["deals"] for r in report["by_row"]) == 5
    (day,) = report["over_time"]
    assert day["deals"] == 5
    assert day["cumulative"] == "-1.00"
    only_solo = api.get("/api/reports/skill/?mode=solo").json()
    assert only_solo["total"]["deals"] == 4
    losses = api.get("/api/hands/?result=loss").json()
    assert losses["count"] == 1
    assert losses["results"][0]["skill"] == "-1.00"
    assert api.get(f"/api/hands/?table={joined_table.pk}").json()["count"] == 1
    assert api.get("/api/hands/?date_to=2000-01-01").json()["count"] == 0


def test_the_history_paginates_by_25(
    play_solo: Callable[..., Deal], player: Any, api: Client
) -> None:
    table = services.table_start(user=player, mode="solo")
    for _ in range(26):
        play_solo(player, table, COPY_A, COPY_B, stake=1)
    first = api.get("/api/hands/").json()
    assert first["count"] == 26
    assert len(first["results"]) == 25
    assert first["next"]
    assert len(api.get("/api/hands/?page=2").json()["results"]) == 1
    page = api.get("/history/?page=2")
    assert page.status_code == 200
    assert b"Page 2 of 2" in page.content


def test_the_csv_export_has_every_deal(solo: tuple[Table, list[Deal]], api: Client) -> None:
    from tests.api.test_permissions import body

    response = api.get("/history/export.csv?result=push")
    assert response["Content-Type"].startswith("text/csv")
    lines = body(response).decode().splitlines()
    assert lines[0].startswith("deal_id,table,mode")
    assert len(lines) == 3  # the header and the two pushes
    assert all(",push," in line for line in lines[1:])
    skill = lines[0].split(",").index("skill")
    assert Decimal(lines[1].split(",")[skill]) in (Decimal("0.50"), Decimal("-0.50"))


def test_a_session_luck_average_is_exact_before_rounding(
    solo: tuple[Table, list[Deal]], player: Any
) -> None:
    """The history's average is the engine's exact one, rounded half up to
    three places: 75 estimates whose 2w + p add up to 11 are 1 + 9 × 11 / 18000
    = 1.0055 exactly, so 1.006, never 1.005."""
    from games.history import selectors

    seat = selectors.sessions(user=player).get()
    seat.luck_points, seat.luck_completed = 11, 75  # type: ignore[attr-defined]
    assert selectors.session_record(seat)["luck_average"] == Decimal("1.006")
