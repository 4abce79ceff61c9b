"""Closing and leaving a table from the lobby and the table page: each link
leads to a page that says what becomes of the chips before anything happens;
its button finishes the table and goes back to the lobby, where the table is
no longer listed; a deal in progress is not cut off."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.models import Table
from tests.support import STRONG, WEAK, deck_with, friend_table, house_front

pytestmark = pytest.mark.django_db

Rig = Callable[..., None]


def browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_lobby_offers_to_close_a_waiting_table_and_says_first_that_nothing_is_lost(
    player: User,
) -> None:
    table = services.table_start(user=player, mode="friend")
    client = browser(player)
    lobby = client.get("/lobby/").content.decode()
    close = f"/tables/{table.pk}/close/"
    assert f'href="{close}"' in lobby
    assert f'Close<span class="visually-hidden"> friend table {table.pk}</span>' in lobby
    page = client.get(close)
    assert page.status_code == 200
    text = page.content.decode()
    assert f"Close friend table {table.pk}?" in text
    assert ("No deal was played, so nothing is lost: no chips move and the invite link "
            "stops working.") in text
    assert Table.objects.get(pk=table.pk).status == Table.Status.WAITING  # asking changes nothing

    done = client.post(close, follow=True)
    assert done.redirect_chain == [("/lobby/", 302)]
    text = done.content.decode()
    assert f"Friend table {table.pk} is closed.</li>" in text
    assert f'href="/tables/{table.pk}/"' not in text
    assert "No open tables yet" in text
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED


def test_leaving_after_deals_names_both_stacks_and_says_chips_do_not_carry_over(
    player: User, friend: User, play_solo: Callable[..., object]
) -> None:
    table = friend_table(player, friend)
    solo = services.table_start(user=player, mode="solo")
    play_solo(player, solo, STRONG, WEAK, stake=50)
    stack = solo.seats.get(number=0).stack
    text = browser(player).get(f"/tables/{solo.pk}/").content.decode()
    assert f'<a href="/tables/{solo.pk}/close/" id="table-close">Leave table</a>' in text
    text = browser(player).get(f"/tables/{solo.pk}/close/").content.decode()
    assert f"Leave solo table {solo.pk}?" in text
    assert (f"No chips move: your stack of {stack:,} chips stays with this table&#x27;s 1 deal "
            "in your history. Play chips do not carry over: a new table starts again "
            "with 1,000.") in text
    assert ">Leave the table</button>" in text

    # With a friend, the page says the table finishes for them too.
    text = browser(friend).get(f"/tables/{table.pk}/close/").content.decode()
    assert "The table finishes for ada too: their page says it is finished." in text


def test_a_deal_in_progress_is_finished_before_leaving(
    player: User, rig: Rig
) -> None:
    table = services.table_start(user=player, mode="solo")
    rig(deck_with(STRONG, WEAK))
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    services.deal_start(user=player, table_id=table.pk)
    client = browser(player)
    page = client.get(f"/tables/{table.pk}/close/").content.decode()
    assert ("Deal 1 is in progress: finish it first (lock your setting; the reveal "
            "settles it)") in page
    assert "<button" not in page.split("<main", 1)[1]
    refused = client.post(f"/tables/{table.pk}/close/")
    assert refused.status_code == 409
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    assert client.post(f"/tables/{table.pk}/close/").status_code == 302
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED


def test_a_stranger_can_neither_see_nor_close_a_table(
    player: User, friend: User
) -> None:
    table = services.table_start(user=player, mode="friend")
    client = browser(friend)
    assert client.get(f"/tables/{table.pk}/close/").status_code == 404
    assert client.post(f"/tables/{table.pk}/close/").status_code == 404
    assert Client().post(f"/tables/{table.pk}/close/").status_code == 302  # to sign in
    assert Table.objects.get(pk=table.pk).status == Table.Status.WAITING
