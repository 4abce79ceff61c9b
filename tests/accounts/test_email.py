"""The optional, verified e-mail address on the account page: given with the
password, verified by a signed link mailed to it (a page with one button, in
any browser), changed or removed; and the account page says so."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db
PASSWORD = "a long pass phrase 1"
LINK = re.compile(r"http://testserver(/accounts/email/verify/[^/\s]+/[^/\s]+/)")


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def give(client: Client, email: str, password: str = PASSWORD) -> Any:
    return client.post("/accounts/email/", {"email": email, "password": password}, follow=True)


def link_in(message: Any) -> str:
    found = LINK.search(message.body)
    assert found, message.body
    return found.group(1)


def test_a_new_address_is_unverified_until_its_link_is_opened(player: Any) -> None:
    client = signed_in(player)
    page = give(client, "Ada@Example.ORG").content.decode()
    assert "A link is on its way to Ada@example.org" in page
    assert "not verified yet" in page
    player.refresh_from_db()
    assert (player.email, player.email_verified) == ("Ada@example.org", False)
    [message] = mail.outbox
    assert message.to == ["Ada@example.org"]
    assert "ada" in message.body

    # Opened in another browser, signed out: a page with one button; the GET alone verifies nothing.
    other = Client()
    path = link_in(message)
    shown = other.get(path)
    assert shown.status_code == 200
    assert "Verify this address" in shown.content.decode()
    player.refresh_from_db()
    assert not player.email_verified
    done = other.post(path).content.decode()
    assert "E-mail verified" in done
    player.refresh_from_db()
    assert player.email_verified
    # A used link is dead.
    assert "This link no longer works" in other.get(path).content.decode()
    account = client.get("/accounts/").content.decode()
    assert "is <strong>Ada@example.org</strong>, verified" in account


def test_changing_the_address_kills_the_old_link_and_unverifies(player: Any) -> None:
    client = signed_in(player)
    give(client, "one@example.org")
    first = link_in(mail.outbox[0])
    give(client, "two@example.org")
    second = link_in(mail.outbox[1])
    assert "This link no longer works" in client.post(first).content.decode()
    player.refresh_from_db()
    assert (player.email, player.email_verified) == ("two@example.org", False)
    client.post(second)
    player.refresh_from_db()
    assert player.email_verified
    give(client, "three@example.org")
    player.refresh_from_db()
    assert (player.email, player.email_verified) == ("three@example.org", False)


def test_the_address_needs_the_password_on_the_password_limit(player: Any) -> None:
    client = signed_in(player)
    page = give(client, "ada@example.org", password="not it")
    assert page.status_code == 200
    assert "That is not your password" in page.content.decode()
    player.refresh_from_db()
    assert player.email == ""
    assert mail.outbox == []
    for _ in range(6):
        page = give(client, "ada@example.org", password="not it")
    assert page.status_code == 429
    assert "Too many wrong passwords" in page.content.decode()
    assert give(client, "ada@example.org").status_code == 429  # even the right one, for now


def test_verification_mails_are_limited_per_player(player: Any) -> None:
    client = signed_in(player)
    give(client, "ada@example.org")
    for _ in range(10):
        page = client.post("/accounts/email/resend/", follow=True).content.decode()
    assert len(mail.outbox) == 5
    assert "send another in" in page


def test_a_link_for_another_account_or_a_forged_one_verifies_nothing(
    player: Any, friend: Any
) -> None:
    give(signed_in(player), "ada@example.org")
    path = link_in(mail.outbox[0])
    uid = path.split("/")[4]
    forged = path.replace(uid, "Mg" if uid != "Mg" else "MQ")  # another id, same token
    assert "This link no longer works" in Client().post(forged).content.decode()
    garbled = Client().get("/accounts/email/verify/%%%/x/").content.decode()
    assert "This link no longer works" in garbled
    assert not User.objects.filter(email_verified=True).exists()


def test_removing_the_address(player: Any) -> None:
    client = signed_in(player)
    give(client, "ada@example.org")
    Client().post(link_in(mail.outbox[0]))
    page = client.post("/accounts/email/remove/", follow=True).content.decode()
    assert "can no longer be reset by e-mail" in page
    player.refresh_from_db()
    assert (player.email, player.email_verified) == ("", False)


def test_the_account_page_says_what_an_address_is_for(player: Any) -> None:
    page = signed_in(player).get("/accounts/").content.decode()
    assert "You have not given an e-mail address" in page
    assert "Without one, a forgotten password cannot be reset" in page
    assert 'name="email"' in page


def test_a_failing_mail_server_is_said_not_hidden(player: Any, settings: Any) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    page = give(signed_in(player), "ada@example.org").content.decode()
    assert "The mail could not be sent just now" in page


def test_without_mail_the_account_page_asks_for_no_address(player: Any, settings: Any) -> None:
    settings.EMAIL_ENABLED = False
    client = signed_in(player)
    page = client.get("/accounts/").content.decode()
    assert "This site sends no e-mail" in page
    assert 'name="email"' not in page
    give(client, "ada@example.org")
    player.refresh_from_db()
    assert player.email == ""
