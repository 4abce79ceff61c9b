"""Pages of a friend table: nothing hidden before the reveal, only seated
players see anything, and "Verify shuffle" checks the deck against the
commitment after the reveal (and shows only the commitment before it)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse, set_script_prefix

from accounts.models import User
from games import engine, selectors, services
from games.models import Deal, Hand, Table
from tests.support import STRONG, WEAK, accept_seen, deck_with, house_front

pytestmark = pytest.mark.django_db

Rig = Callable[..., None]


def dealt(player: User, friend: User, rig: Rig) -> Table:
    rig(deck_with(STRONG, WEAK))
    table = services.table_start(user=player, mode="friend")
    invite = selectors.open_invite(table=table)
    assert invite is not None
    services.invite_accept(user=friend, token=invite.token)
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    accept_seen(friend, table.pk)
    services.deal_start(user=friend, table_id=table.pk)
    return table


def page(user: User, url: str) -> tuple[int, str]:
    client = Client()
    client.force_login(user)
    response = client.get(url)
    return response.status_code, response.content.decode()


def assert_hidden(text: str, deal: Deal, own: str) -> None:
    for card in deal.deck:
        if card not in own.split():
            assert f'"{card}"' not in text, card
            assert f">{card}<" not in text, card
            assert f" {card} " not in text, card
    assert deal.secret not in text
    assert " ".join(deal.deck) not in text


def test_before_the_reveal_no_page_shows_the_other_hand_the_deck_or_the_secret(
    player: User, friend: User, rig: Rig
) -> None:
    table = dealt(player, friend, rig)
    deal = Deal.objects.get(table=table)
    services.setting_lock(user=player, table_id=table.pk, front=["As", "Ah"])
    for user, own in ((player, STRONG), (friend, WEAK)):
        for url in (f"/tables/{table.pk}/", f"/tables/{table.pk}/deals/1/verify/", "/lobby/"):
            status, text = page(user, url)
            assert status == 200, url
            assert_hidden(text, deal, own)
        _, verify = page(user, f"/tables/{table.pk}/deals/1/verify/")
        assert deal.commitment in verify
        assert "not revealed yet" in verify


def test_after_the_reveal_verify_shuffle_checks_the_commitment(
    player: User, friend: User, rig: Rig
) -> None:
    table = dealt(player, friend, rig)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(WEAK))
    deal = Deal.objects.get(table=table)
    for user in (player, friend):
        status, text = page(user, f"/tables/{table.pk}/deals/1/verify/")
        assert status == 200
        assert deal.commitment in text
        assert deal.secret in text
        assert " ".join(deal.deck) + "|" + deal.secret in text
        assert "Checked: the deck is all 53 cards once each" in text
        assert "sha256sum" in text


def test_a_revealed_deal_links_each_seat_to_its_replay_and_its_shuffle_proof(
    player: User, friend: User, rig: Rig
) -> None:
    table = dealt(player, friend, rig)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    before = selectors.table_state(table_id=table.pk, seat_number=0)["deal"]
    assert "links" not in before
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(WEAK))
    deal = Deal.objects.get(table=table)
    for seat, user in ((0, player), (1, friend)):
        links = selectors.table_state(table_id=table.pk, seat_number=seat)["deal"]["links"]
        assert links == {
            "replay": f"/history/deals/{deal.pk}/",
            "verify": f"/tables/{table.pk}/deals/1/verify/",
        }
        replay_status, replay = page(user, links["replay"])
        assert replay_status == 200
        assert f"Friend table {table.pk}, deal 1</h1>" in replay
        verify_status, verify = page(user, links["verify"])
        assert verify_status == 200
        assert deal.secret in verify


def test_verify_shuffle_says_so_when_the_check_fails(
    player: User, friend: User, rig: Rig
) -> None:
    table = dealt(player, friend, rig)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(WEAK))
    Deal.objects.filter(table=table).update(commitment="0" * 64)
    _, text = page(player, f"/tables/{table.pk}/deals/1/verify/")
    assert "The check failed" in text
    deal = Deal.objects.get(table=table)
    assert not engine.verify_shuffle(deal.deck, deal.secret, deal.commitment)


def test_a_stranger_reads_nothing_of_the_table(
    player: User, friend: User, rig: Rig, make_user: Callable[[str], User]
) -> None:
    table = dealt(player, friend, rig)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    services.setting_lock(user=friend, table_id=table.pk, front=house_front(WEAK))
    stranger = make_user("eve")
    for url in (
        f"/tables/{table.pk}/",
        f"/tables/{table.pk}/deals/1/verify/",
        f"/tables/{table.pk}/deals/2/verify/",
    ):
        status, text = page(stranger, url)
        assert status == 404, url
        assert Hand.objects.get(deal__table=table, seat_number=0).cards not in text
    assert page(player, f"/tables/{table.pk}/deals/2/verify/")[0] == 404
    response = Client().get(f"/tables/{table.pk}/deals/1/verify/")
    assert response.status_code == 302
    assert "/accounts/sign-in/" in response["Location"]


def test_before_the_reveal_no_rest_answer_shows_the_other_hand_the_deck_or_the_secret(
    player: User, friend: User, rig: Rig, make_user: Callable[[str], User]
) -> None:
    table = dealt(player, friend, rig)
    services.setting_lock(user=player, table_id=table.pk, front=["As", "Ah"])
    deal = Deal.objects.get(table=table)
    hands = {h.seat_number: h for h in Hand.objects.filter(deal=deal)}
    urls = [
        "/api/hands/", "/api/tables/", f"/api/tables/{table.pk}/", "/api/reports/skill/",
        *(f"/api/hands/{h.pk}/" for h in hands.values()),
    ]
    stranger = make_user("eve")
    for user, own in ((player, STRONG), (friend, WEAK), (stranger, "")):
        client = Client()
        client.force_login(user)
        for url in urls:
            response = client.get(url)
            assert response.status_code in (200, 404), (url, response.status_code)
            assert_hidden(response.content.decode(), deal, own)
    client = Client()
    client.force_login(stranger)
    assert client.get(f"/api/tables/{table.pk}/").status_code == 404


def test_a_deals_links_are_worked_out_once_a_prefix_and_each_view_gets_its_own(
    player: User,
) -> None:
    table = services.table_start(user=player, mode="solo")
    selectors._link_patterns.cache_clear()
    for pk, number in ((10**6, 3), (7, 12), (10**9, 1)):
        deal = Deal(pk=pk, table=table, number=number)
        first = selectors.deal_links(deal)
        first["replay"] = "changed"
        assert selectors.deal_links(deal) == {
            "replay": reverse("history:deal", args=[pk]),
            "verify": reverse("games:deal_verify", args=[table.pk, number]),
        }
    assert selectors._link_patterns.cache_info().misses == 1
    set_script_prefix("/pai gow/")
    try:
        links = selectors.deal_links(deal)
        assert links["replay"] == reverse("history:deal", args=[10**9])
        assert links["replay"].startswith("/pai%20gow/")
    finally:
        set_script_prefix("/")
