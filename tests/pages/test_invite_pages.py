"""A signed-out friend with an invite link: the sign-in and sign-up pages say
who invited them, whichever way they reach them (the redirect, or the
header's links, which carry no ``next``), and the invite waits through either
path; a dead link is explained before anyone is asked to sign up; the page
that explains a refused link takes a new one. The token is only ever posted
and kept in the session: no URL on the way names it."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import User
from games import selectors, services
from games.models import Invite, Seat, Table
from tests.support import friend_table

pytestmark = pytest.mark.django_db

NEW = {"username": "grace", "password1": "a long pass phrase 1",
       "password2": "a long pass phrase 1"}
BANNER = "<strong>ada</strong> invited you to a friend table: sign in or sign up to take your seat."


def token_of(table: Table) -> str:
    invite = selectors.open_invite(table=table)
    assert invite is not None
    return invite.token


def opened(token: str) -> tuple[Client, list[str]]:
    """A signed-out browser that opened the link (its script posted the token)."""
    client = Client()
    response = client.post("/invite/", {"token": token})
    assert response.status_code == 302
    return client, [response["Location"]]


def seated(table: Table) -> str | None:
    seat = Seat.objects.select_related("user").get(table=table, number=1)
    return seat.user.username if seat.user else None


def test_the_sign_in_and_sign_up_pages_say_who_invited_the_visitor(player: User) -> None:
    table = services.table_start(user=player, mode="friend")
    client, _ = opened(token_of(table))
    for path in ("/accounts/sign-in/?next=/invite/", "/accounts/sign-in/", "/accounts/sign-up/"):
        assert BANNER in client.get(path).content.decode(), path
    # Anyone else's sign-in page says nothing of it.
    assert "invited you" not in Client().get("/accounts/sign-in/").content.decode()


def test_the_headers_sign_up_keeps_the_invite(player: User) -> None:
    table = services.table_start(user=player, mode="friend")
    token = token_of(table)
    client, urls = opened(token)
    page = client.get("/accounts/sign-in/?next=/invite/").content.decode()
    assert re.search(r'<nav aria-label="Main">.*href="/accounts/sign-up/"', page, re.DOTALL)
    response = client.post("/accounts/sign-up/", NEW)  # the header's link: no next
    urls.append(response["Location"])
    response = client.get(response["Location"], follow=True)
    urls += [url for url, _ in response.redirect_chain]
    assert urls[-2:] == ["/invite/", f"/tables/{table.pk}/"]
    assert response.status_code == 200
    assert seated(table) == "grace"
    assert not [url for url in urls if token in url]
    # The invite was taken up once: the lobby is the lobby again.
    assert client.get("/lobby/").status_code == 200


def test_the_headers_sign_in_keeps_the_invite(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    client, _ = opened(token_of(table))
    response = client.post(
        "/accounts/sign-in/", {"username": "grace", "password": "a long pass phrase 1"},
        follow=True,
    )
    assert [url for url, _ in response.redirect_chain] == [
        "/lobby/", "/invite/", f"/tables/{table.pk}/"]
    assert seated(table) == "grace"


def test_a_dead_link_is_explained_on_the_sign_in_page_and_still_takes_its_player_back(
    player: User, friend: User
) -> None:
    table = friend_table(player, friend)
    invite = Invite.objects.get(table=table)
    client, _ = opened(invite.token)  # used: only its two players get anywhere with it
    page = client.get("/accounts/sign-in/?next=/invite/").content.decode()
    assert ("This table is full: both seats are taken. If you already have a seat at that "
            "table, sign in to go back to it.") in page
    response = client.post(
        "/accounts/sign-in/?next=/invite/",
        {"username": "grace", "password": "a long pass phrase 1", "next": "/invite/"},
        follow=True,
    )
    assert response.redirect_chain[-1] == (f"/tables/{table.pk}/", 302)


def test_an_unknown_link_is_refused_before_anyone_is_asked_to_sign_up() -> None:
    client = Client()
    response = client.post("/invite/", {"token": "A" * 43})
    assert response.status_code == 404
    assert "That invite link is not valid." in response.content.decode()
    assert "invited you" not in client.get("/accounts/sign-in/").content.decode()
    assert client.get("/invite/").status_code == 200  # nothing waits


def test_the_page_that_refuses_a_link_takes_a_new_one(player: User, friend: User) -> None:
    table = services.table_start(user=player, mode="friend")
    token = token_of(table)
    services.invite_revoke(user=player, table_id=table.pk)
    client = Client()
    client.force_login(friend)
    response = client.post("/invite/", {"token": token})
    assert response.status_code == 410
    text = response.content.decode()
    assert "That invite link was withdrawn. Ask your friend for a new one." in text
    # By its form, or (its script) a "#" link pasted into the address bar.
    assert 'id="join-form"' in text
    assert 'action="/invite/"' in text
    assert "js/invite.mjs" in text
    fresh = services.invite_create(user=player, table_id=table.pk).token
    response = client.post("/invite/", {"token": f"http://x.test/invite/#{fresh}"})
    assert response["Location"] == f"/tables/{table.pk}/"
    assert seated(table) == "grace"


def test_a_link_withdrawn_while_the_visitor_signs_up_says_so(player: User) -> None:
    table = services.table_start(user=player, mode="friend")
    client, _ = opened(token_of(table))
    services.invite_revoke(user=player, table_id=table.pk)
    page = client.get("/accounts/sign-up/").content.decode()
    assert ("That invite link was withdrawn. Ask your friend for a new one. If you already "
            "have a seat at that table, sign in to go back to it.") in page
    client.post("/accounts/sign-up/", NEW)
    response = client.get("/lobby/", follow=True)
    assert response.status_code == 410
    assert seated(table) is None
    assert client.get("/lobby/").status_code == 200
