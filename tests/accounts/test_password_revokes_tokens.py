"""A changed password revokes the player's API tokens, whichever way it was
changed (as it ends their other sessions), and the pages say so before."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.hashers import PBKDF2SHA1PasswordHasher, make_password
from django.core import mail
from django.test import Client
from knox.models import AuthToken

from accounts import tokens
from accounts.models import User

pytestmark = pytest.mark.django_db
OLD = "a long pass phrase 1"
NEW = "a brand new passphrase 7"


class FewRounds(PBKDF2SHA1PasswordHasher):
    iterations = 2


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def with_tokens(user: Any, n: int = 2) -> list[str]:
    return [tokens.token_create(user=user)[1] for _ in range(n)]


def opens_api(token: str) -> bool:
    return bool(Client(HTTP_AUTHORIZATION=f"Token {token}").get("/api/hands/").status_code == 200)


def test_the_account_page_and_the_change_page_say_so_before(player: Any) -> None:
    client = signed_in(player)
    assert "and revokes your" not in client.get("/accounts/").content.decode()
    with_tokens(player, 2)
    text = "signs you out of your other browsers and revokes your 2 API tokens"
    assert text in client.get("/accounts/").content.decode()
    assert text in client.get("/accounts/password/").content.decode()


def test_the_account_pages_change(player: Any, friend: Any) -> None:
    mine = with_tokens(player)
    theirs = with_tokens(friend, 1)
    client = signed_in(player)
    done = client.post("/accounts/password/", {
        "old_password": OLD, "new_password1": NEW, "new_password2": NEW,
    }, follow=True)
    assert "Password changed" in done.content.decode()
    assert "Your 2 API tokens were revoked" in done.content.decode()
    assert not any(opens_api(t) for t in mine)
    assert opens_api(theirs[0])  # someone else's stay
    assert client.get("/accounts/").status_code == 200  # still signed in here


def test_the_reset_link(player: Any) -> None:
    mine = with_tokens(player)
    User.objects.filter(pk=player.pk).update(email="ada@example.org", email_verified=True)
    client = Client()
    client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    path = re.search(r"http://testserver(\S+)", mail.outbox[0].body).group(1)  # type: ignore[union-attr]
    form = client.get(path, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    assert not any(opens_api(t) for t in mine)


def test_the_admin_setting_a_players_password(
    player: Any, make_user: Callable[[str], Any]
) -> None:
    mine = with_tokens(player)
    admin = make_user("root")
    User.objects.filter(pk=admin.pk).update(is_staff=True, is_superuser=True)
    answer = signed_in(admin).post(f"/admin/accounts/user/{player.pk}/password/", {
        "password1": NEW, "password2": NEW,
    })
    assert answer.status_code == 302, answer.content.decode()[:2000]
    player.refresh_from_db()
    assert player.check_password(NEW)
    assert not any(opens_api(t) for t in mine)


def test_the_admins_own_password_change(make_user: Callable[[str], Any]) -> None:
    admin = make_user("root")
    User.objects.filter(pk=admin.pk).update(is_staff=True, is_superuser=True)
    mine = with_tokens(admin)
    answer = signed_in(admin).post("/admin/password_change/", {
        "old_password": OLD, "new_password1": NEW, "new_password2": NEW,
    })
    assert answer.status_code == 302
    assert not any(opens_api(t) for t in mine)


def test_set_password_and_save_in_code(player: Any) -> None:
    mine = with_tokens(player)
    player.set_password(NEW)
    player.save()
    assert AuthToken.objects.filter(user=player).count() == 0
    assert not any(opens_api(t) for t in mine)


def test_other_saves_and_a_hash_upgrade_at_sign_in_keep_the_tokens(
    player: Any, settings: Any
) -> None:
    mine = with_tokens(player)
    player.first_name = "Ada"
    player.save()
    player.set_password(NEW)
    player.save(update_fields=["first_name"])  # the password is not what was saved
    # A hash from an older hasher is rehashed at the next sign-in: no change of password.
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    ]
    User.objects.filter(pk=player.pk).update(password=make_password(OLD, hasher=FewRounds()))
    signed = Client().post("/accounts/sign-in/", {"username": "ada", "password": OLD})
    assert signed.status_code == 302
    assert User.objects.get(pk=player.pk).password.startswith("md5$")  # it was upgraded
    assert all(opens_api(t) for t in mine)


def test_the_admin_shows_whether_the_address_is_verified(
    player: Any, make_user: Callable[[str], Any]
) -> None:
    admin = make_user("root")
    User.objects.filter(pk=admin.pk).update(is_staff=True, is_superuser=True)
    page = signed_in(admin).get(f"/admin/accounts/user/{player.pk}/change/").content.decode()
    assert 'name="email_verified"' in page
