"""Personal API tokens: made on the account page, shown once, stored as a
digest only, and revoked there; a revoked one no longer opens the API."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from knox.models import AuthToken

from accounts import tokens

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r"pgl_[0-9a-f]{64}")


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def create(client: Client) -> str:
    page = client.post("/accounts/tokens/")
    assert page.status_code == 200
    assert page["Cache-Control"].startswith("max-age=0")  # never_cache: no stored copy
    found = TOKEN.findall(page.content.decode())
    assert found, "the new token is on the page that made it"
    assert len(set(found)) == 1
    return found[0]


def api(token: str) -> Any:
    return Client(HTTP_AUTHORIZATION=f"Token {token}").get("/api/hands/")


def test_a_token_made_on_the_account_page_opens_the_api(player: Any) -> None:
    token = create(signed_in(player))
    answer = api(token)
    assert answer.status_code == 200
    assert answer.json()["results"] == []


def test_the_token_is_shown_once_and_only_its_first_characters_stay(player: Any) -> None:
    client = signed_in(player)
    token = create(client)
    later = client.get("/accounts/").content.decode()
    assert token not in later
    assert TOKEN.search(later) is None
    assert f"{token[:15]}…" in later  # how the player tells the tokens apart
    [row] = AuthToken.objects.filter(user=player)
    stored = [str(getattr(row, f.attname)) for f in AuthToken._meta.concrete_fields]
    assert all(token not in value for value in stored), stored


def test_a_revoked_token_no_longer_opens_the_api(player: Any) -> None:
    client = signed_in(player)
    token = create(client)
    kept = create(client)
    done = client.post("/accounts/tokens/revoke/", {"token": token[:15]}, follow=True)
    assert "revoked: it no longer opens the API" in done.content.decode()
    refused = api(token)
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"] == "Token"
    assert refused.json()["error"] == "authentication_failed"
    assert api(kept).status_code == 200


def test_a_player_cannot_revoke_someone_elses_token(
    player: Any, make_user: Callable[[str], Any]
) -> None:
    token = create(signed_in(player))
    other = signed_in(make_user("mallory"))
    done = other.post("/accounts/tokens/revoke/", {"token": token[:15]}, follow=True)
    assert "already revoked or has expired" in done.content.decode()
    assert api(token).status_code == 200


def test_a_player_holds_at_most_the_limit_and_is_told_what_to_do(player: Any) -> None:
    client = signed_in(player)
    for _ in range(tokens.TOKENS_PER_USER):
        tokens.token_create(user=player)
    page = client.post("/accounts/tokens/", follow=True).content.decode()
    assert "revoke one you no longer use" in page
    assert TOKEN.search(page) is None
    assert AuthToken.objects.filter(user=player).count() == tokens.TOKENS_PER_USER


def test_an_expired_token_is_refused_and_not_listed(player: Any) -> None:
    instance, token = tokens.token_create(user=player)
    AuthToken.objects.filter(pk=instance.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    assert api(token).status_code == 401
    assert tokens.tokens_of(user=player) == []


def test_the_header_links_the_account_page_which_links_the_password_change(
    player: Any,
) -> None:
    client = signed_in(player)
    lobby = client.get("/lobby/").content.decode()
    assert 'href="/accounts/">Account</a>' in lobby
    account = client.get("/accounts/").content.decode()
    assert 'href="/accounts/password/"' in account
    assert client.get("/accounts/password/").status_code == 200
