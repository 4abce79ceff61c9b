"""Invite links: made with a friend table, shown to the host only, seating the
second signed-in player once; used, withdrawn and expired links seat no one;
a third person finds the table full; guessing is throttled."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import invite_limits, selectors, services
from games.engine import errors as exceptions
from games.models import Invite, Seat, Table

pytestmark = pytest.mark.django_db


def open_invite(table: Table) -> Invite:
    invite = selectors.open_invite(table=table)
    assert invite is not None
    return invite


def seat_1(table: Table) -> Seat:
    return Seat.objects.get(table=table, number=1)


def browser(user: User, address: str = "10.0.0.1") -> Client:
    client = Client(REMOTE_ADDR=address)
    client.force_login(user)
    return client


# --- services ---------------------------------------------------------------------------


def test_a_friend_table_opens_with_an_unguessable_invite_that_expires(
    player: User, settings: Any
) -> None:
    settings.INVITE_TTL_HOURS = 2
    table = services.table_start(user=player, mode="friend")
    invite = open_invite(table)
    assert len(invite.token) >= 43  # token_urlsafe(32): 256 random bits
    assert invite.created_by == player
    left = invite.expires_at - timezone.now()
    assert timedelta(hours=1, minutes=59) < left <= timedelta(hours=2)
    assert not Invite.objects.filter(table__mode="solo").exists()
    solo = services.table_start(user=player, mode="solo")
    assert selectors.open_invite(table=solo) is None


def test_the_default_lifetime_is_24_hours() -> None:
    from django.conf import settings

    assert settings.INVITE_TTL_HOURS == 24


def test_the_link_seats_the_friend_once(
    player: User, friend: User, make_user: Callable[[str], User]
) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = open_invite(table)
    joined = services.invite_accept(user=friend, token=invite.token)
    assert joined.pk == table.pk
    assert joined.status == Table.Status.BETTING
    assert seat_1(table).user == friend
    invite.refresh_from_db()
    assert invite.used_by == friend
    assert invite.used_at is not None
    # The friend and the host get the table back; nothing changes.
    assert services.invite_accept(user=friend, token=invite.token).pk == table.pk
    assert services.invite_accept(user=player, token=invite.token).pk == table.pk
    # A third person finds it full.
    with pytest.raises(exceptions.TableFull, match="This table is full"):
        services.invite_accept(user=make_user("eve"), token=invite.token)
    assert seat_1(table).user == friend
    assert selectors.open_invite(table=table) is None


def test_a_withdrawn_link_seats_no_one(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = open_invite(table)
    services.invite_revoke(user=player, table_id=table.pk)
    with pytest.raises(exceptions.InviteRevoked):
        services.invite_accept(user=friend, token=invite.token)
    assert seat_1(table).user is None
    with pytest.raises(exceptions.NoOpenInvite):
        services.invite_revoke(user=player, table_id=table.pk)


def test_a_new_link_replaces_the_old_one(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    old = open_invite(table)
    new = services.invite_create(user=player, table_id=table.pk)
    assert new.token != old.token
    assert open_invite(table) == new
    with pytest.raises(exceptions.InviteRevoked):
        services.invite_accept(user=friend, token=old.token)
    services.invite_accept(user=friend, token=new.token)
    assert seat_1(table).user == friend


def test_an_expired_link_seats_no_one(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = open_invite(table)
    Invite.objects.filter(pk=invite.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(exceptions.InviteExpired):
        services.invite_accept(user=friend, token=invite.token)
    assert seat_1(table).user is None
    assert selectors.open_invite(table=table) is None
    with pytest.raises(exceptions.NoOpenInvite):
        services.invite_revoke(user=player, table_id=table.pk)
    # The host makes a new one.
    fresh = services.invite_create(user=player, table_id=table.pk)
    services.invite_accept(user=friend, token=fresh.token)


@pytest.mark.parametrize("token", ["", "x", "A" * 43, "A" * 500, None, 7])
def test_an_unknown_token_seats_no_one(player: User, friend: User, token: Any) -> None:
    table = services.table_start(user=player, mode="friend")
    with pytest.raises(exceptions.InviteNotFound):
        services.invite_accept(user=friend, token=token)
    assert seat_1(table).user is None


def test_only_the_host_of_a_waiting_friend_table_makes_or_withdraws_links(
    player: User, friend: User, make_user: Callable[[str], User]
) -> None:
    table = services.table_start(user=player, mode="friend")
    stranger = make_user("eve")
    with pytest.raises(exceptions.NotSeated):
        services.invite_create(user=stranger, table_id=table.pk)
    services.invite_accept(user=friend, token=open_invite(table).token)
    with pytest.raises(exceptions.NotHost):
        services.invite_create(user=friend, table_id=table.pk)
    with pytest.raises(exceptions.NotHost):
        services.invite_revoke(user=friend, table_id=table.pk)
    with pytest.raises(exceptions.TableFull):
        services.invite_create(user=player, table_id=table.pk)
    solo = services.table_start(user=player, mode="solo")
    with pytest.raises(exceptions.TableFull):
        services.invite_create(user=player, table_id=solo.pk)


def test_the_state_shows_the_link_to_the_host_only(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = open_invite(table)
    host = selectors.table_state(table_id=table.pk, seat_number=0, base_url="https://x.test")
    assert host["table"]["invite"] == {
        "url": f"https://x.test/invite/#{invite.token}",
        "expires_at": invite.expires_at.isoformat(),
    }
    services.invite_accept(user=friend, token=invite.token)
    for seat in (0, 1):
        state = selectors.table_state(table_id=table.pk, seat_number=seat)
        assert state["table"]["invite"] is None
        assert invite.token not in str(state)


# --- the page ---------------------------------------------------------------------------------


def test_a_signed_out_visitor_signs_up_and_lands_at_the_table(player: User) -> None:
    table = services.table_start(user=player, mode="friend")
    token = open_invite(table).token
    client = Client()
    page = client.get("/invite/")  # what the browser asks for: the "#" part stays behind
    assert page.status_code == 200
    assert b'id="join-form"' in page.content
    response = client.post("/invite/", {"token": token})  # the page's script posts it
    assert response.status_code == 302
    assert response["Location"] == "/accounts/sign-in/?next=/invite/"
    sign_in = client.get(response["Location"]).content.decode()
    assert "/accounts/sign-up/?next=/invite/" in sign_in.replace("%2F", "/")
    response = client.post(
        "/accounts/sign-up/?next=/invite/",
        {"username": "grace", "password1": "a long pass phrase 1",
         "password2": "a long pass phrase 1", "next": "/invite/"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/invite/"
    response = client.get("/invite/")
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{table.pk}/"
    assert seat_1(table).user.username == "grace"  # type: ignore[union-attr]
    assert client.get(f"/tables/{table.pk}/").status_code == 200
    # The token was used once: the page no longer holds it.
    assert client.get("/invite/").status_code == 200


def test_a_signed_out_visitor_signs_in_and_lands_at_the_table(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    client = Client()
    client.post("/invite/", {"token": open_invite(table).token})
    response = client.post(
        "/accounts/sign-in/?next=/invite/",
        {"username": "grace", "password": "a long pass phrase 1", "next": "/invite/"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/invite/"
    assert client.get("/invite/")["Location"] == f"/tables/{table.pk}/"
    assert seat_1(table).user == friend


def test_a_link_of_the_older_form_still_seats_a_signed_out_friend(
    player: User, friend: User
) -> None:
    table = services.table_start(user=player, mode="friend")
    token = open_invite(table).token
    client = Client()
    response = client.get(f"/invite/{token}/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/sign-in/?next=/invite/"  # no token in the URL
    client.post(
        "/accounts/sign-in/?next=/invite/",
        {"username": "grace", "password": "a long pass phrase 1", "next": "/invite/"},
    )
    assert client.get("/invite/")["Location"] == f"/tables/{table.pk}/"
    assert seat_1(table).user == friend


@pytest.mark.parametrize(
    "paste",
    ["https://x.test/invite/#{token}", "https://x.test/invite/{token}/", " {token} "],
)
def test_a_pasted_link_of_either_form_seats_the_friend(
    player: User, friend: User, paste: str
) -> None:
    table = services.table_start(user=player, mode="friend")
    text = paste.format(token=open_invite(table).token)
    response = browser(friend).post("/invite/", {"token": text})
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{table.pk}/"
    assert seat_1(table).user == friend


MALFORMED = {
    "nul": "\x00" + "A" * 42,
    "non_ascii": "é" * 43,
    "too_long": "A" * 65,
    "too_long_a_lot": "A" * 5000,
    "spaces": "A" * 20 + " " + "A" * 20,
}


@pytest.mark.parametrize("token", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_token_is_a_clear_404_never_a_server_error(
    player: User, friend: User, token: str
) -> None:
    """PostgreSQL refuses a NUL in text: such a token must never reach a query."""
    table = services.table_start(user=player, mode="friend")
    with pytest.raises(exceptions.InviteNotFound):
        services.invite_accept(user=friend, token=token)
    quoted = quote(token, safe="")
    answers = [
        browser(friend).get(f"/invite/{quoted}/"),
        browser(friend).post("/invite/", {"token": token}),
        Client(raise_request_exception=False).get(f"/invite/{quoted}/"),
        Client(raise_request_exception=False).post("/invite/", {"token": token}),
    ]
    for response in answers:
        assert response.status_code == 404
        assert b'data-error="invite_not_found"' in response.content
    assert seat_1(table).user is None


def test_a_third_person_sees_this_table_is_full(
    player: User, friend: User, make_user: Callable[[str], User]
) -> None:
    table = services.table_start(user=player, mode="friend")
    url = f"/invite/{open_invite(table).token}/"
    assert browser(friend).get(url).status_code == 302
    response = browser(make_user("eve"), "10.0.0.2").get(url)
    assert response.status_code == 409
    page = response.content.decode()
    assert "This table is full" in page
    assert browser(player).get(url)["Location"] == f"/tables/{table.pk}/"


@pytest.mark.parametrize(
    ("spoil", "status", "code"),
    [
        ("revoke", 410, "invite_revoked"),
        ("expire", 410, "invite_expired"),
        ("unknown", 404, "invite_not_found"),
    ],
)
def test_a_dead_link_explains_itself(
    player: User, friend: User, spoil: str, status: int, code: str
) -> None:
    table = services.table_start(user=player, mode="friend")
    invite = open_invite(table)
    token = invite.token
    if spoil == "revoke":
        services.invite_revoke(user=player, table_id=table.pk)
    elif spoil == "expire":
        Invite.objects.filter(pk=invite.pk).update(expires_at=timezone.now())
    else:
        token = token[::-1]
    response = browser(friend).get(f"/invite/{token}/")
    assert response.status_code == status
    page = response.content.decode()
    assert f'data-error="{code}"' in page
    assert "Ask your friend for a new one." in page or "not valid" in page
    assert seat_1(table).user is None


def test_the_table_page_gives_the_host_the_invite_link(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    token = open_invite(table).token
    response = browser(player).get(f"/tables/{table.pk}/")
    assert response.context["invite_url"] == f"http://testserver/invite/#{token}"
    services.invite_accept(user=friend, token=token)
    for user in (player, friend):
        response = browser(user).get(f"/tables/{table.pk}/")
        assert response.context["invite_url"] is None
        assert token not in response.content.decode()


def test_guessing_tokens_is_throttled_per_user(
    player: User, friend: User, make_user: Callable[[str], User]
) -> None:
    table = services.table_start(user=player, mode="friend")
    good = f"/invite/{open_invite(table).token}/"
    guesser = browser(friend, "10.0.0.3")
    for i in range(invite_limits.LIMIT_PER_USER):
        assert guesser.get(f"/invite/guess-{i:040d}/").status_code == 404
    response = guesser.get(good)
    assert response.status_code == 429
    assert "Too many invite links tried. Try again in 15 minutes." in response.content.decode()
    # Even from another address, the user stays throttled, and the good link seats no one.
    assert browser(friend, "10.0.0.4").get(good).status_code == 429
    assert seat_1(table).user is None
    # Someone else is not.
    assert browser(make_user("eve"), "10.0.0.5").get(good).status_code == 302


def test_guessing_tokens_is_throttled_per_address(
    player: User, make_user: Callable[[str], User]
) -> None:
    table = services.table_start(user=player, mode="friend")
    good = f"/invite/{open_invite(table).token}/"
    users = [make_user(f"guesser{i}") for i in range(invite_limits.LIMIT_PER_ADDRESS // 5 + 1)]
    tries = 0
    for user in users:
        client = browser(user, "10.9.9.9")
        for _ in range(5):
            if tries == invite_limits.LIMIT_PER_ADDRESS:
                break
            assert client.get(f"/invite/guess-{tries:040d}/").status_code == 404
            tries += 1
    late = browser(make_user("late"), "10.9.9.9").get(good)
    assert late.status_code == 429
    assert browser(make_user("elsewhere"), "10.9.9.8").get(good).status_code == 302
