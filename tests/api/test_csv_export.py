"""The CSV export is safe to open in a spreadsheet: text that would start a
formula (=, +, -, @, tab, CR) is prefixed with a single quote (OWASP's CSV
injection advice), while the figures, negative ones included, stay numbers.

The user-controlled text in the export is the other player's name (its cards,
results and labels are the server's own); Django's username rules allow "+",
"-" and "@", so a friend can be called "+1+d905-A1"."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.history.export import spreadsheet_cell
from tests.api.test_permissions import body
from tests.support import STRONG, WEAK, deal_friend, house_front

pytestmark = pytest.mark.django_db

NAMES = ["+1+d905-A1", "-2+3+cmd", "@SUM", "=1+1", "\tname", "\rname"]


def export(user: User) -> list[dict[str, str]]:
    client = Client()
    client.force_login(user)
    response = client.get("/history/export.csv")
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(body(response).decode())))


@pytest.mark.parametrize("name", ["+1+d905-A1", "-2+3+cmd", "@SUM"])
def test_a_friend_named_like_a_formula_is_exported_as_text(
    player: User, make_user: Callable[[str], User], rig: Callable[..., None], name: str
) -> None:
    User.username_validator(name)  # a name anyone can sign up with
    friend = make_user(name)
    table = services.table_start(user=player, mode="friend")
    services.table_join(user=friend, table_id=table.pk)
    deal_friend(rig, table, player, friend, STRONG, WEAK, stake=10)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(WEAK))

    [mine] = export(player)
    assert mine["other"] == "'" + name
    assert mine["result"] == "win"
    assert mine["actual_delta"] == "10.00"
    [theirs] = export(friend)
    assert theirs["other"] == "ada"  # an ordinary name is left alone
    # The loser's figures are negative numbers, and stay numbers.
    assert theirs["actual_delta"] == "-10.00"
    assert Decimal(theirs["actual_delta"]) == Decimal("-10.00")
    assert theirs["result"] == "loss"


@pytest.mark.parametrize("text", NAMES)
def test_every_formula_start_is_neutralised(text: str) -> None:
    assert spreadsheet_cell(text) == "'" + text


@pytest.mark.parametrize("value", [Decimal("-1.50"), -10, -0.25, 0, Decimal("2.00")])
def test_numbers_stay_numbers(value: Any) -> None:
    assert spreadsheet_cell(value) is value


@pytest.mark.parametrize("text", ["ada", "", "As Kd", "2026-01-01T10:00:00+00:00", "a=b"])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert spreadsheet_cell(text) == text
