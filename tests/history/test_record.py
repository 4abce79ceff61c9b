"""The player's whole record (/record/ and GET /api/record/): every revealed
deal at their tables, solo and friend, added up as the services' ledgers
and reveals stored them; the luck average exact and half up; nobody else's
deals, and nothing before the reveal."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from accounts.tokens import token_create
from games import services
from games.engine import house_way
from games.history.record import player_record
from games.models import Deal, Hand, LedgerEntry, Seat, Table
from tests.api.test_permissions import body, client_for
from tests.support import (
    COPY_A,
    COPY_B,
    SPLIT_A,
    SPLIT_B,
    STRONG,
    WEAK,
    deal_friend,
    deck_with,
    friend_table,
    house_front,
)

pytestmark = pytest.mark.django_db

FOUL_FRONT = ["Ks", "Qd"]  # with SPLIT_A: king high in front, nine high behind
HYPHEN_NUMBER = re.compile(r">\s*[-+]?-\d")  # a displayed number written with ASCII's "-"
# Two estimates of 108 points each (2 × wins + pushes): luck 1 + 9 × 216 / 480 = 5.05
# exactly, which one decimal shows as 5.1 (a binary float of 5.05 would round to 5.0).
LUCK_A = (50, 8, 62)
LUCK_B = (54, 0, 66)


@pytest.fixture
def seeded(
    play_solo: Callable[..., Deal], rig: Callable[..., None], player: Any, friend: Any
) -> dict[str, Any]:
    """Ada: four solo deals (a win, a loss on copies, a foul locked anyway, a
    push) and a friend deal won against Grace; then a friend deal she has
    locked and Grace has not (not revealed: in nobody's record)."""
    solo = services.table_start(user=player, mode="solo")
    play_solo(player, solo, STRONG, WEAK, stake=20, luck=LUCK_A)
    play_solo(player, solo, COPY_A, COPY_B, stake=10, luck=LUCK_B)
    rig(deck_with(SPLIT_A, SPLIT_B))
    services.stake_propose(user=player, table_id=solo.pk, amount=10)
    services.deal_start(user=player, table_id=solo.pk)
    services.setting_lock(user=player, table_id=solo.pk, front=FOUL_FRONT, confirm_foul=True)
    play_solo(player, solo, SPLIT_A, SPLIT_B, stake=10)
    shared = friend_table(player, friend)
    deal_friend(rig, shared, player, friend, STRONG, WEAK, stake=15)
    services.setting_lock(user=player, table_id=shared.pk, front=house_front(STRONG))
    services.setting_lock(user=friend, table_id=shared.pk, front=house_front(WEAK))
    open_table = friend_table(player, friend)
    deal_friend(rig, open_table, player, friend, STRONG, WEAK, stake=30)
    services.setting_lock(user=player, table_id=open_table.pk, front=house_front(STRONG))
    return {"solo": solo, "shared": shared, "open": open_table}


def api_record(user: Any) -> dict[str, Any]:
    answer = client_for(user).get("/api/record/")
    assert answer.status_code == 200
    record: dict[str, Any] = answer.json()
    return record


def ledger_net(user: Any, ledger: str, mode: str | None = None) -> Decimal:
    """What the services' ledger entries of the user's revealed deals add up to."""
    entries = LedgerEntry.objects.filter(seat__user=user, ledger=ledger)
    if mode:
        entries = entries.filter(deal__table__mode=mode)
    return sum(entries.values_list("amount", flat=True), Decimal(0))


def test_the_record_adds_up_every_revealed_deal(seeded: dict[str, Any], player: Any) -> None:
    total = api_record(player)["total"]
    assert {k: total[k] for k in ("deals", "tables", "wins", "pushes", "losses")} == {
        "deals": 5, "tables": 2, "wins": 2, "pushes": 1, "losses": 2,
    }
    assert (total["net_actual"], total["net_with_5"]) == ("15.00", "13.25")
    assert (total["skill_total"], total["skill_mean"], total["departures"]) == (
        "-0.50", "-0.1000", 1)
    assert (total["luck_completed"], total["luck_pending"]) == (2, 3)


def test_the_nets_are_the_services_ledgers_and_the_stacks(
    seeded: dict[str, Any], player: Any, friend: Any
) -> None:
    for user in (player, friend):
        record = api_record(user)
        total = record["total"]
        assert Decimal(total["net_actual"]) == ledger_net(user, "actual")
        assert Decimal(total["net_with_5"]) == ledger_net(user, "with_5")
        # The ledger identity: every stack is its start plus its entries.
        seats = Seat.objects.filter(user=user).select_related("table")
        assert Decimal(total["net_actual"]) == sum(
            Decimal(s.stack - s.table.starting_stack) for s in seats)
        for line in record["by_mode"]:
            assert Decimal(line["net_actual"]) == ledger_net(user, "actual", line["mode"])
            assert Decimal(line["net_with_5"]) == ledger_net(user, "with_5", line["mode"])


def test_each_kind_of_table_has_its_line(seeded: dict[str, Any], player: Any) -> None:
    solo, friend_line = api_record(player)["by_mode"]
    assert (solo["mode"], solo["deals"], solo["wins"], solo["pushes"], solo["losses"]) == (
        "solo", 4, 1, 1, 2)
    assert (solo["net_actual"], solo["net_with_5"]) == ("0.00", "-1.00")
    assert (friend_line["mode"], friend_line["deals"], friend_line["wins"]) == ("friend", 1, 1)
    assert (friend_line["net_actual"], friend_line["net_with_5"]) == ("15.00", "14.25")
    assert friend_line["luck_average"] is None


def test_the_luck_average_is_exact_and_rounded_half_up(
    seeded: dict[str, Any], player: Any
) -> None:
    total = api_record(player)["total"]
    assert (total["luck_average"], total["luck_shown"]) == ("5.050", "5.1")
    page = body(client_for(player).get("/record/")).decode()
    assert "<dd>5.1</dd>" in page


def test_the_skill_is_the_skill_reports(seeded: dict[str, Any], player: Any) -> None:
    report = client_for(player).get("/api/reports/skill/").json()["total"]
    total = api_record(player)["total"]
    assert (total["skill_total"], total["skill_mean"], total["departures"]) == (
        report["skill_sum"], report["skill_mean"], report["departures"])


def test_nobody_elses_deals_are_in_a_record(
    seeded: dict[str, Any], friend: Any, make_user: Callable[[str], Any]
) -> None:
    grace = api_record(friend)
    assert grace["total"]["deals"] == 1
    assert (grace["total"]["losses"], grace["total"]["net_actual"]) == (1, "-15.00")
    assert [line["mode"] for line in grace["by_mode"]] == ["friend"]
    stranger = make_user("mallory")
    nobody = api_record(stranger)
    assert nobody["total"]["deals"] == 0
    assert nobody["total"]["net_actual"] == "0.00"
    assert nobody["by_mode"] == []
    page = body(client_for(stranger).get("/record/")).decode()
    assert "No revealed deals yet" in page
    assert "13.25" not in page


def test_a_deal_not_revealed_is_in_no_record(seeded: dict[str, Any], player: Any) -> None:
    assert not seeded["open"].deals.filter(status=Deal.Status.REVEALED).exists()
    lines = api_record(player)["by_mode"]
    assert sum(line["deals"] for line in lines if line["mode"] == Table.Mode.FRIEND) == 1
    assert player_record(user=player)["total"]["deals"] == 5


def test_the_page_shows_the_figures_with_the_minus_sign(
    seeded: dict[str, Any], player: Any
) -> None:
    page = body(client_for(player).get("/record/")).decode()
    for figure in ("<dd>5</dd>", "<dd>+15.00</dd>", "<dd>+13.25</dd>", "<dd>\u22120.50</dd>",
                   "\u22120.100", "\u22121.00"):
        assert figure in page, figure
    assert HYPHEN_NUMBER.search(page) is None, HYPHEN_NUMBER.search(page)


def test_the_record_is_linked_from_the_history_and_the_account(player: Any) -> None:
    client = client_for(player)
    for path in ("/history/", "/history/sessions/", "/accounts/"):
        assert 'href="/record/"' in body(client.get(path)).decode(), path


def test_the_record_needs_a_sign_in_or_a_token(seeded: dict[str, Any], player: Any) -> None:
    refused = Client().get("/api/record/")
    assert refused.status_code in (401, 403)
    assert refused.json()["error"] == "not_authenticated"
    page = Client().get("/record/")
    assert page.status_code == 302
    assert "/accounts/sign-in/" in page["Location"]
    _, token = token_create(user=player)
    answer = Client(HTTP_AUTHORIZATION=f"Token {token}").get("/api/record/")
    assert answer.json()["total"]["deals"] == 5


def test_the_api_refuses_to_write_a_record(player: Any) -> None:
    answer = client_for(player).post("/api/record/")
    assert answer.status_code == 405
    assert set(answer.json()) == {"error", "detail"}



def test_practice_is_in_the_record_apart_from_the_tables(player: Any, settings: Any) -> None:
    settings.PRACTICE_OPPONENTS = 500
    for seed in (1, 2):
        hand = services.practice_deal(user=player, drill="two-pair", rng=random.Random(seed))
        services.practice_analyse(hand_id=hand.pk)  # what the deal's task does
        services.practice_lock(user=player, hand_id=hand.pk,
                               front=list(house_way(hand.cards).setting.front))
    practice = client_for(player).get("/api/record/").json()["practice"]
    assert (practice["hands"], practice["accuracy"] is not None) == (2, True)
    assert player_record(user=player)["total"]["deals"] == 0  # no chips, no deal
    page = body(client_for(player).get("/record/")).decode()
    assert re.search(r"<dt>Hands practised</dt><dd>2</dd>", page)



def test_the_record_has_the_average_decision_cost(seeded: dict[str, Any], player: Any) -> None:
    hands = list(Hand.objects.filter(seat__user=player, deal__status="revealed"))
    for number, hand in enumerate(hands):  # two of the five costed, one at the best
        if number < 2:
            services.hand_cost_record(hand_id=hand.pk, chosen_expected=0.5 - number / 10,
                                      best_expected=0.5, best_front=list(hand.card_list[:2]),
                                      opponents=10_000, exact=False, at_best=number == 0)
    cost = client_for(player).get("/api/record/").json()["total"]["cost"]
    assert (cost["hands"], cost["pending"], cost["at_best"]) == (2, 3, 1)
    assert Decimal(cost["loss_mean"]) == Decimal("0.05")
    page = body(client_for(player).get("/record/")).decode()
    assert re.search(r"<dt>Average loss per deal</dt><dd>0\.050 ", page)
