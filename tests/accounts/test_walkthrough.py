"""The first-table walkthrough's end, kept for the account: POST
/accounts/walkthrough/ (CSRF-checked, signed in) records done or skipped
once, and the table page's flag follows it on every device."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import services

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}
URL = "/accounts/walkthrough/"


def signed_in(user: Any, **options: Any) -> Client:
    client = Client(**options)
    client.force_login(user)
    return client


def shown(client: Client, table_id: int) -> bool:
    page = client.get(f"/tables/{table_id}/").content.decode()
    return 'id="walkthrough"' in page


def test_a_new_player_gets_the_walkthrough_on_the_table_page(player: Any) -> None:
    table = services.table_start(user=player, mode="solo")
    assert shown(signed_in(player), table.pk)


@pytest.mark.parametrize("outcome", ["done", "skipped"])
def test_once_ended_no_table_shows_it_again_on_any_device(player: Any, outcome: str) -> None:
    first = services.table_start(user=player, mode="solo")
    answer = signed_in(player).post(URL, {"outcome": outcome}, **JSON)
    assert answer.status_code == 200
    assert answer.json() == {"walkthrough": outcome}
    other_device = signed_in(player)
    assert not shown(other_device, first.pk)
    later = services.table_start(user=player, mode="friend")
    assert not shown(other_device, later.pk)


def test_the_first_end_is_kept(player: Any) -> None:
    client = signed_in(player)
    client.post(URL, {"outcome": "skipped"}, **JSON)
    again = client.post(URL, {"outcome": "done"}, **JSON)
    assert again.json() == {"walkthrough": "skipped"}
    player.refresh_from_db()
    assert player.walkthrough_at is not None


def test_the_end_needs_the_csrf_token(player: Any) -> None:
    client = signed_in(player, enforce_csrf_checks=True)
    refused = client.post(URL, {"outcome": "skipped"}, **JSON)
    assert refused.status_code == 403
    assert User.objects.get(pk=player.pk).walkthrough == ""


def test_the_table_page_form_carries_the_token_that_is_accepted(player: Any) -> None:
    client = signed_in(player, enforce_csrf_checks=True)
    table = services.table_start(user=player, mode="solo")
    page = client.get(f"/tables/{table.pk}/").content.decode()
    form = re.search(r'<form id="walkthrough-form".*?</form>', page, re.DOTALL)
    assert form is not None
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.group(0))
    assert token is not None
    answer = client.post(URL, {"outcome": "skipped", "csrfmiddlewaretoken": token.group(1)},
                         **JSON)
    assert answer.status_code == 200
    assert User.objects.get(pk=player.pk).walkthrough == "skipped"


def test_a_signed_out_visitor_is_refused_in_the_error_shape() -> None:
    answer = Client().post(URL, {"outcome": "done"}, **JSON)
    assert answer.status_code == 401
    assert answer.json()["error"] == "not_authenticated"


def test_a_form_without_script_goes_back_to_the_table(player: Any) -> None:
    table = services.table_start(user=player, mode="solo")
    answer = signed_in(player).post(URL, {"outcome": "skipped", "next": f"/tables/{table.pk}/"})
    assert answer.status_code == 302
    assert answer["Location"] == f"/tables/{table.pk}/"


def test_a_signed_out_form_goes_to_sign_in() -> None:
    answer = Client().post(URL, {"outcome": "done"})
    assert answer.status_code == 302
    assert answer["Location"].startswith("/accounts/sign-in/")


@pytest.mark.parametrize("outcome", ["", "maybe", "DONE"])
def test_an_unknown_outcome_is_refused_and_changes_nothing(player: Any, outcome: str) -> None:
    answer = signed_in(player).post(URL, {"outcome": outcome}, **JSON)
    assert answer.status_code == 400
    assert set(answer.json()) == {"error", "detail"}
    assert User.objects.get(pk=player.pk).walkthrough == ""


def test_only_a_post_ends_it(player: Any) -> None:
    assert signed_in(player).get(URL).status_code == 405
