"""The authorization matrix: every URL pattern the resolver knows × the table's
owner, its opponent, a stranger, an anonymous visitor and a staff member, and
the table socket for the same five.

The URL list comes from the resolver itself, so a new page or endpoint fails
here until it is given its row. Every answer is also checked for the deal in
progress: no body shows its secret or its deck, and no one's body shows the
other seat's cards before the reveal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import User
from games import services
from games.models import Deal, Hand, Invite, ReviewCard, Table
from games.services.practice_test import practice_test_start
from games.services.review import review_deck_sync
from tests.api.test_permissions import body
from tests.review import with_cost
from tests.sockets import open_seat
from tests.support import (
    SPLIT_A,
    SPLIT_B,
    STRONG,
    WEAK,
    accept_seen,
    deck_with,
    friend_table,
    house_front,
)

ACTORS = ("anonymous", "owner", "opponent", "stranger", "staff")
REQUESTS = {"made": 0}

# name -> expected status per actor, in ACTORS order (anonymous first).
EVERYONE_200 = (200, 200, 200, 200, 200)
SIGNED_IN = (302, 200, 200, 200, 200)  # anonymous goes to sign-in
SEATED = (302, 200, 200, 404, 404)  # a table's or deal's own pages
API_SIGNED_IN = (401, 200, 200, 200, 200)  # 401: WWW-Authenticate: Token
API_SEATED = (401, 200, 200, 404, 404)
MATRIX: dict[str, tuple[int, ...]] = {
    "home": EVERYONE_200,
    "favicon": (302, 302, 302, 302, 302),  # to the static icon
    "healthz": EVERYONE_200,
    "accounts:sign_up": EVERYONE_200,
    "accounts:sign_in": (200, 302, 302, 302, 302),
    "accounts:sign_out": (405, 405, 405, 405, 405),  # POST only
    "accounts:password_change": SIGNED_IN,
    "accounts:password_changed": SIGNED_IN,
    "accounts:account": SIGNED_IN,  # the password link and the API tokens
    "accounts:password_reset": EVERYONE_200,  # the forgotten password: asks for an e-mail
    "accounts:password_reset_sent": EVERYONE_200,
    "accounts:password_reset_confirm": EVERYONE_200,  # a bad link: a page that says so
    "accounts:password_reset_complete": EVERYONE_200,
    "accounts:email_change": (302, 405, 405, 405, 405),  # POST only
    "accounts:email_resend": (302, 405, 405, 405, 405),  # POST only
    "accounts:email_remove": (302, 405, 405, 405, 405),  # POST only
    "accounts:email_verify": EVERYONE_200,  # a bad link: a page that says so
    "accounts:token_create": (302, 405, 405, 405, 405),  # POST only
    "accounts:token_revoke": (302, 405, 405, 405, 405),  # POST only
    "accounts:walkthrough": (405, 405, 405, 405, 405),  # POST only (signed out: 401 JSON)
    "api:root": EVERYONE_200,  # public, like the schema: the endpoints' URLs, no data
    "api:not-found": (404, 404, 404, 404, 404),  # any other path under /api/
    "api:hand-list": API_SIGNED_IN,
    "api:hand-detail": API_SEATED,
    "api:hand-export": API_SIGNED_IN,
    "api:table-list": API_SIGNED_IN,
    "api:table-detail": API_SEATED,
    "api:skill-report": API_SIGNED_IN,
    "api:record": API_SIGNED_IN,
    # Deal 2's exact figures: only for the seat that locked (the owner: 202,
    # the analysis queued for after the test's transaction; the opponent has
    # not locked, so it is no deal of theirs to analyse yet).
    "api:deal-exact": (401, 202, 404, 404, 404),
    "api:schema": EVERYONE_200,  # public: the shape of the API, no data
    "api:docs": EVERYONE_200,
    "api:docs-css": EVERYONE_200,  # Swagger UI's stylesheet, its data: icons moved
    "api:docs-image": (404, 404, 404, 404, 404),  # "As.png" is none of those icons
    "history:hands": SIGNED_IN,
    "history:export": SIGNED_IN,
    "history:export_hand_history": SIGNED_IN,  # the player's own hand history (JSON lines)
    "history:deal": SEATED,
    "history:sessions": SIGNED_IN,
    "history:session": SEATED,
    "history:skill": SIGNED_IN,
    "record": SIGNED_IN,  # the player's whole record, only their own
    "games:lobby": SIGNED_IN,
    "games:table_new": (302, 405, 405, 405, 405),  # POST only
    "games:table": SEATED,
    "games:table_close": SEATED,  # the page that asks first; its button POSTs
    "games:deal_verify": SEATED,
    # The used link: its two players go to the table, anyone else finds it full.
    "games:invite": (302, 302, 302, 409, 409),
    "games:join": EVERYONE_200,  # the page an invite link opens; its token stays after "#"
    "games:rules": EVERYONE_200,
    "games:face": (404, 404, 404, 404, 404),  # no picture pack configured in tests
    "practice:home": SIGNED_IN,
    "practice:record": SIGNED_IN,
    "practice:deal": (302, 405, 405, 405, 405),  # POST only
    "practice:hand": (302, 200, 404, 404, 404),  # the owner's practice hand, no one else's
    "practice:lock": (302, 405, 405, 405, 405),  # POST only
    "games:review": SIGNED_IN,  # the player's own review deck
    "games:review_card": (302, 200, 404, 404, 404),  # the owner's card, no one else's
    "games:review_answer": (302, 405, 405, 405, 405),  # POST only
    "api:review": API_SIGNED_IN,
    "practice_test:home": SIGNED_IN,
    "practice_test:start": (302, 405, 405, 405, 405),  # POST only
    "practice_test:attempt": (302, 200, 404, 404, 404),  # the owner's attempt, no one else's
    "practice_test:lock": (302, 405, 405, 405, 405),  # POST only
    "practice_test:share": (302, 405, 405, 405, 405),  # POST only
    # The owner's attempt is being played: its shared link shows nothing yet.
    "practice_test:shared": (404, 404, 404, 404, 404),
}


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Iterator[None]:
    yield
    print(f"\nauthorization matrix: {REQUESTS['made']} requests")


def walk(patterns: list[Any], prefix: str = "", namespace: str = "") -> Iterator[tuple[str, str]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = namespace + (f"{pattern.namespace}:" if pattern.namespace else "")
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
        elif isinstance(pattern, URLPattern):
            yield namespace + (pattern.name or ""), prefix + str(pattern.pattern)


def concrete(route: str, values: dict[str, str]) -> str:
    """A path for a route (a ``path()`` or a ``re_path()``) with these values."""
    path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: values[m.group(1)], route)
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[m.group(1)], path)
    return "/" + path.lstrip("^").rstrip("$").replace("^", "")


@pytest.fixture
def world(
    player: User, friend: User, make_user: Callable[[str], User], rig: Callable[..., None]
) -> dict[str, Any]:
    """A friend table: deal 1 revealed, deal 2 in progress (the owner locked)."""
    rig(deck_with(STRONG, WEAK), deck_with(SPLIT_A, SPLIT_B))
    table = friend_table(player, friend)
    t = table.pk
    for mine, theirs in ((STRONG, WEAK), (SPLIT_A, SPLIT_B)):
        services.stake_propose(user=player, table_id=t, amount=10)
        accept_seen(friend, t)
        services.deal_start(user=player, table_id=t)
        services.setting_lock(user=player, table_id=t, front=house_front(mine))
        if mine == STRONG:
            services.setting_lock(user=friend, table_id=t, front=house_front(theirs))
    stranger = make_user("mallory")
    staff = make_user("sam")
    staff.is_staff = True
    staff.save()
    first = Deal.objects.get(table=table, number=1)
    open_deal = Deal.objects.get(table=table, number=2)
    assert not open_deal.revealed
    invite = Invite.objects.get(table=table, used_at__isnull=False)
    practice = services.practice_deal(user=player, drill="any")
    # Deal 1's setting as a costly one: the owner's review deck holds it.
    with_cost(Hand.objects.get(deal=first, seat_number=0), "0.01")
    review_deck_sync(user=player)
    attempt = practice_test_start(user=player, number=1, hands=3)
    values = {
        "hand_id": str(practice.pk), "card_id": str(ReviewCard.objects.get(user=player).pk),
        "test_id": str(attempt.pk), "share_token": attempt.share_token,
        "table_id": str(t), "number": "2", "deal_id": str(first.pk), "pk": str(first.pk),
        "token": invite.token, "mode": "solo", "name": "As.png", "object_id": str(t),
        "content_type_id": "1", "id": str(player.pk), "app_label": "games", "url": "nothing/",
        "rest": "no-such-endpoint/", "uidb64": "MQ",
    }
    return {
        "table": table, "values": values, "open_deal": open_deal,
        "users": {"anonymous": None, "owner": player, "opponent": friend,
                  "stranger": stranger, "staff": staff},
    }


def client_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _body(response: Any) -> str:
    return body(response).decode("utf-8", "replace")


def assert_nothing_hidden(text: str, deal: Deal, actor: str, where: str) -> None:
    assert deal.secret not in text, (actor, where)
    assert deal.deck_order not in text, (actor, where)
    hands = {h.seat_number: h for h in Hand.objects.filter(deal=deal)}
    hidden: list[str] = []
    if actor == "owner":
        hidden = list(hands[1].card_list)
    elif actor == "opponent":
        hidden = list(hands[0].card_list)
    elif actor != "anonymous":
        hidden = list(hands[0].card_list) + list(hands[1].card_list)
    if "/tables/" in where:  # these pages show deal 2 only: no hidden card at all
        for card in hidden:
            assert f'"{card}"' not in text, (actor, where, card)
            assert f">{card}<" not in text, (actor, where, card)


@pytest.mark.django_db
def test_every_url_for_every_kind_of_visitor(world: dict[str, Any]) -> None:
    routes = list(walk(get_resolver().url_patterns))
    unlisted = sorted({name for name, _ in routes if not name.startswith("admin:")} - set(MATRIX))
    assert not unlisted, f"give these URLs a row in the authorization matrix: {unlisted}"
    clients = {actor: client_for(user) for actor, user in world["users"].items()}
    deal: Deal = world["open_deal"]
    failures = []
    for name, route in routes:
        values = world["values"]
        if name == "api:table-detail":  # a table's id; the hands' ids are their deals'
            values = {**values, "pk": values["table_id"]}
        if name == "api:deal-exact":  # the table's id and the deal's number
            values = {**values, "id": values["table_id"]}
        path = concrete(route, values)
        for index, actor in enumerate(ACTORS):
            response = clients[actor].get(path)
            REQUESTS["made"] += 1
            status = response.status_code
            if name.startswith("admin:"):
                expected = _admin_expectation(name, actor)
                ok = status in expected
            else:
                expected = (MATRIX[name][index],)
                ok = status == expected[0]
            if not ok:
                failures.append(f"{actor} GET {path} ({name}): {status}, expected {expected}")
            if status < 300:
                assert_nothing_hidden(_body(response), deal, actor, path)
    assert not failures, "\n".join(failures)
    # Nothing above changed the table: a stranger's tries seat no one.
    table: Table = world["table"]
    assert table.seats.filter(user__isnull=False).count() == 2


def _admin_expectation(name: str, actor: str) -> tuple[int, ...]:
    """Only staff get into the admin; staff without permissions see no model."""
    if name == "admin:login":
        return (302,) if actor == "staff" else (200,)
    if actor != "staff":
        return (302,)  # to the admin's sign-in
    if name == "admin:logout":
        return (405,)  # POST only
    if name in {"admin:index", "admin:password_change", "admin:password_change_done",
                "admin:jsi18n"}:
        return (200,)
    return (302, 403, 404)  # no permission on any model


@pytest.mark.django_db
def test_writes_need_a_signed_in_user_and_a_seat(world: dict[str, Any]) -> None:
    anonymous = Client()
    assert anonymous.post("/tables/new/solo/").status_code == 302
    assert Table.objects.count() == 1
    for actor in ("stranger", "staff"):
        client = client_for(world["users"][actor])
        assert client.post(f"/invite/{world['values']['token']}/").status_code == 409
        REQUESTS["made"] += 1
    # Token and session auth on the API only read: no write method is allowed.
    owner = client_for(world["users"]["owner"])
    for method in ("post", "put", "patch", "delete"):
        response = getattr(owner, method)(f"/api/tables/{world['table'].pk}/")
        REQUESTS["made"] += 1
        assert response.status_code == 405, method


@pytest.mark.django_db(transaction=True)
async def test_the_socket_for_every_kind_of_visitor(
    player: User, friend: User, make_user: Callable[[str], User]
) -> None:
    table = await database_sync_to_async(friend_table)(player, friend)
    stranger = await database_sync_to_async(make_user)("mallory")

    def make_staff() -> User:
        user = make_user("sam")
        user.is_staff = True
        user.is_superuser = True  # even a superuser has no seat, so no socket
        user.save()
        return user

    staff = await database_sync_to_async(make_staff)()
    expected = {None: 4401, stranger: 4403, staff: 4403}
    for user, code in expected.items():
        comm = await open_seat(user, table.pk)
        await comm.connect()
        assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": code}
    for user in (player, friend):
        comm = await open_seat(user, table.pk)
        connected, _ = await comm.connect()
        assert connected
        assert (await comm.receive_json_from(timeout=5))["type"] == "state"
        await comm.disconnect()
