"""The minimal pages: lobby and table, behind sign-in, with nothing hidden."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.models import Deal, Hand, Table
from tests.support import STRONG, WEAK, deck_with, house_front

pytestmark = pytest.mark.django_db

Rig = Callable[..., None]


@pytest.fixture
def browser(client: Client, player: User) -> Client:
    client.force_login(player)
    return client


def test_pages_that_need_an_account_redirect_to_sign_in_and_back(
    client: Client, player: User
) -> None:
    table = services.table_start(user=player, mode="solo")
    for url in ("/lobby/", f"/tables/{table.pk}/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"/accounts/sign-in/?next={url}"
    response = client.post(
        f"/accounts/sign-in/?next=/tables/{table.pk}/",
        {"username": "ada", "password": "a long pass phrase 1", "next": f"/tables/{table.pk}/"},
    )
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{table.pk}/"


def test_the_lobby_offers_play_solo_and_invite_a_friend(browser: Client) -> None:
    page = browser.get("/lobby/").content.decode()
    assert ">Play solo</button>" in page
    assert ">Invite a friend</button>" in page
    assert page.count("csrfmiddlewaretoken") >= 2


def test_play_solo_opens_a_table_and_the_lobby_lists_it_for_resuming(
    browser: Client, player: User
) -> None:
    response = browser.post("/tables/new/solo/")
    table = Table.objects.get(created_by=player)
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{table.pk}/"
    assert table.mode == "solo"
    assert f'href="/tables/{table.pk}/"' in browser.get("/lobby/").content.decode()


def test_invite_a_friend_opens_a_friend_table_waiting_for_them(
    browser: Client, player: User
) -> None:
    browser.post("/tables/new/friend/")
    table = Table.objects.get(created_by=player)
    assert (table.mode, table.status) == ("friend", "waiting")


def test_new_tables_are_made_by_post_only(browser: Client) -> None:
    assert browser.get("/tables/new/solo/").status_code == 405
    assert browser.post("/tables/new/poker/").status_code == 404
    assert not Table.objects.exists()


def test_the_table_page_has_the_controls_and_the_socket_client(
    browser: Client, player: User
) -> None:
    table = services.table_start(user=player, mode="solo")
    page = browser.get(f"/tables/{table.pk}/").content.decode()
    assert '<label for="stake">Stake</label>' in page
    assert ">Deal</button>" in page
    assert ">Lock</button>" in page
    assert "Lock anyway" in page
    assert "Rebet" in page
    assert 'role="status"' in page
    assert 'role="alert"' in page
    assert "With 5%" in page
    assert "/static/js/table.mjs" in page
    state = json.loads(re.search(r'id="table-state"[^>]*>(.*?)</script>', page, re.DOTALL)[1])
    assert state["seats"]["you"]["stack"] == 1000
    assert state["deal"] is None


def test_a_table_page_is_only_for_its_seats(client: Client, player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="solo")
    client.force_login(friend)
    assert client.get(f"/tables/{table.pk}/").status_code == 404
    assert client.get("/tables/999999/").status_code == 404


def test_before_the_reveal_the_page_holds_no_dealer_card_nor_the_deck(
    browser: Client, player: User, rig: Rig
) -> None:
    rig(deck_with(STRONG, WEAK))
    table = services.table_start(user=player, mode="solo")
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    services.deal_start(user=player, table_id=table.pk)
    deal = Deal.objects.get(table=table)
    page = browser.get(f"/tables/{table.pk}/").content.decode()
    own = set(STRONG.split())
    for card in deal.deck:
        if card not in own:
            assert f'"{card}"' not in page, card
            assert f">{card}<" not in page, card
    assert deal.secret not in page
    for card in own:
        assert f'"{card}"' in page  # the player's own cards are there
    # Once revealed, the dealer's hand and the deck are shown.
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    page = browser.get(f"/tables/{table.pk}/").content.decode()
    dealer = Hand.objects.get(deal=deal, seat_number=1)
    assert all(f'"{card}"' in page for card in dealer.card_list)
    assert deal.secret in page


def test_the_rules_page_says_what_the_decision_cost_is_and_how_it_differs_from_skill(
    settings: Any,
) -> None:
    settings.DECISION_COST_SAMPLES = 10_000
    page = Client().get("/rules/").content.decode()
    section = " ".join(page.split('<section id="decision-cost">')[1].split("</section>")[0].split())
    assert ("over the first 10,000 opponents" in section, "53,524,680" in section,
            "not one of the game's rules" in section,
            "How it differs from decision skill" in section) == (True, True, True, True)
    assert '<a href="#decision-cost">Decision cost</a>' in page


ENGINE_START = re.compile(r'<script type="module" async src="/static/js/engine-start\.mjs"([^>]*)>')


def test_the_table_page_starts_the_engine_with_the_builds_urls(
    browser: Client, player: User
) -> None:
    """engine-start.mjs's element names the worker's files (the build manifest's), so
    the worker starts without the manifest being fetched first."""
    from tests.foundation.test_static import manifest

    table = services.table_start(user=player, mode="solo")
    page = browser.get(f"/tables/{table.pk}/").content.decode()
    attributes = dict(re.findall(r'(data-engine-[a-z]+)="([^"]*)"', ENGINE_START.search(page)[1]))
    built = manifest()
    expected = {"data-engine-worker": f"/static/{built['worker']}",
                "data-engine-pyodide": f"/static/{built['pyodide']}",
                "data-engine-archive": f"/static/{built['engine']}"}
    if "snapshot" in built:
        expected["data-engine-snapshot"] = f"/static/{built['snapshot']}"
    assert attributes == expected
    assert '<link rel="modulepreload" href="/static/js/engine-client.mjs">' in page


def test_without_a_client_build_the_table_page_names_no_engine_files(
    browser: Client, player: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No manifest: the early start fetches it itself (and says the engine is unavailable)."""
    from django.contrib.staticfiles import finders

    monkeypatch.setattr(finders, "find", lambda path, **options: None)
    table = services.table_start(user=player, mode="solo")
    page = browser.get(f"/tables/{table.pk}/").content.decode()
    assert ENGINE_START.search(page)[1] == ""
