"""The admin never shows an open deal's deck, secret or cards, not even to a
superuser, and edits no deal or hand; after the reveal it shows them (as the
verify page does to the players)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.models import Deal, Hand
from tests.support import SPLIT_A, SPLIT_B, STRONG, WEAK, deck_with, house_front

pytestmark = pytest.mark.django_db


@pytest.fixture
def deals(player: User, rig: Callable[..., None]) -> tuple[Deal, Deal]:
    """A solo table: deal 1 revealed, deal 2 dealt and open."""
    rig(deck_with(STRONG, WEAK), deck_with(SPLIT_A, SPLIT_B))
    table = services.table_start(user=player, mode="solo")
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    services.deal_start(user=player, table_id=table.pk)
    services.setting_lock(user=player, table_id=table.pk, front=house_front(STRONG))
    services.stake_propose(user=player, table_id=table.pk, amount=10)
    services.deal_start(user=player, table_id=table.pk)
    revealed, open_deal = Deal.objects.filter(table=table).order_by("number")
    assert revealed.revealed
    assert not open_deal.revealed
    return revealed, open_deal


def secrets_of(deal: Deal) -> list[str]:
    """What must not show while ``deal`` is open: its secret, its deck (as
    stored and its first cards as a page would print them) and both hands."""
    hands = Hand.objects.filter(deal=deal)
    return [deal.secret, deal.deck_order, " ".join(deal.deck[:3]), ", ".join(deal.deck[:3])] + [
        text for hand in hands for text in (hand.cards, " ".join(hand.card_list[:3]))
    ]


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_no_admin_page_shows_an_open_deal_s_deck_secret_or_cards(
    admin_client: Client, deals: tuple[Deal, Deal]
) -> None:
    _, open_deal = deals
    urls = ["/admin/games/deal/", f"/admin/games/deal/{open_deal.pk}/change/",
            "/admin/games/hand/", "/admin/games/ledgerentry/", "/admin/games/luckaudit/"]
    urls += [f"/admin/games/hand/{hand.pk}/change/" for hand in open_deal.hands.all()]
    for url in urls:
        text = page(admin_client, url)
        for secret in secrets_of(open_deal):
            assert secret not in text, (url, secret)
        for field in ("deck_order", "secret", "cards", "front", "back"):
            assert f'name="{field}"' not in text, (url, field)
    # The commitment is public from the deal on.
    assert open_deal.commitment in page(admin_client, f"/admin/games/deal/{open_deal.pk}/change/")


def test_after_the_reveal_the_admin_shows_the_deck_secret_and_cards(
    admin_client: Client, deals: tuple[Deal, Deal]
) -> None:
    revealed, _ = deals
    text = page(admin_client, f"/admin/games/deal/{revealed.pk}/change/")
    assert revealed.secret in text
    assert revealed.deck_order in text
    assert 'name="deck_order"' not in text
    assert 'name="secret"' not in text
    for hand in revealed.hands.all():
        assert hand.cards in page(admin_client, f"/admin/games/hand/{hand.pk}/change/")


def test_the_admin_edits_no_deal_or_hand(admin_client: Client, deals: tuple[Deal, Deal]) -> None:
    revealed, open_deal = deals
    for deal in (revealed, open_deal):
        response = admin_client.post(
            f"/admin/games/deal/{deal.pk}/change/",
            {"status": "revealed", "stake": 1, "deck_order": "x", "secret": "y"},
        )
        assert response.status_code == 403
        hand = deal.hands.first()
        assert hand is not None
        assert admin_client.post(
            f"/admin/games/hand/{hand.pk}/change/", {"cards": "As Ah"}
        ).status_code == 403
    assert admin_client.get("/admin/games/deal/add/").status_code == 403
    assert admin_client.get("/admin/games/hand/add/").status_code == 403
    open_deal.refresh_from_db()
    assert not open_deal.revealed
    assert open_deal.secret != "y"


@pytest.mark.parametrize(
    "url",
    [
        "/admin/games/deal/?deck_order__startswith={deck}",
        "/admin/games/deal/?secret__startswith={secret}",
        "/admin/games/hand/?cards__contains={card}",
        "/admin/games/hand/?deal__deck_order__startswith={deck}",
        "/admin/games/ledgerentry/?deal__secret__startswith={secret}",
        "/admin/games/luckaudit/?hand__cards__contains={card}",
    ],
)
def test_no_admin_filter_probes_an_open_deal(
    admin_client: Client, deals: tuple[Deal, Deal], url: str
) -> None:
    """Filtering the list on the deck or the secret would count an open deal
    in or out, a card or a character at a time."""
    _, open_deal = deals
    probe = url.format(deck=open_deal.deck[0], secret=open_deal.secret[:2],
                       card=open_deal.deck[0])
    assert admin_client.get(probe).status_code == 400, probe
