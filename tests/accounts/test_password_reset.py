"""A forgotten password: Django's reset flow, to a verified address only, on
a limit, with the same answer whether or not an account has the address."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from accounts import limits, tasks
from accounts.models import User

pytestmark = pytest.mark.django_db
OLD = "a long pass phrase 1"
NEW = "a brand new passphrase 7"
RESET_LINK = re.compile(r"http://testserver(/accounts/password/reset/[^/\s]+/[^/\s]+/)")
SENT = "If an account has this verified e-mail address, a link to set a new password is on its way"


def verified(user: Any, email: str = "ada@example.org") -> Any:
    User.objects.filter(pk=user.pk).update(email=email, email_verified=True)
    return user


def ask(client: Client, email: str, address: str = "127.0.0.1") -> Any:
    return client.post("/accounts/password/reset/", {"email": email}, REMOTE_ADDR=address,
                       follow=True)


def test_request_mail_link_new_password_sign_in(player: Any) -> None:
    verified(player)
    client = Client()
    page = ask(client, "ADA@example.org")
    assert SENT in page.content.decode()
    [message] = mail.outbox
    assert message.to == ["ada@example.org"]
    assert '"ada"' in message.body  # the username too, in case that is forgotten
    path = RESET_LINK.search(message.body).group(1)  # type: ignore[union-attr]
    form = client.get(path, follow=True)
    assert "Set a new password" in form.content.decode()
    assert "revokes your API tokens" in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW},
                       follow=True)
    assert "Password set" in done.content.decode()
    signed = Client().post("/accounts/sign-in/", {"username": "ada", "password": NEW})
    assert signed.status_code == 302
    old = Client().post("/accounts/sign-in/", {"username": "ada", "password": OLD})
    assert old.status_code == 200
    # The link worked once.
    again = Client().get(path, follow=True).content.decode()
    assert "This link no longer works" in again


def test_an_unverified_address_gets_no_mail_and_the_same_answer(player: Any, friend: Any) -> None:
    User.objects.filter(pk=player.pk).update(email="ada@example.org", email_verified=False)
    unverified = ask(Client(), "ada@example.org")
    unknown = ask(Client(), "nobody@example.org")
    assert mail.outbox == []
    assert unverified.status_code == unknown.status_code == 200
    assert unverified.redirect_chain == unknown.redirect_chain
    assert SENT in unverified.content.decode()
    # And the page says what an account without a verified address can do.
    page = Client().get("/accounts/password/reset/").content.decode()
    assert "An account without a verified e-mail address cannot be reset by e-mail" in page
    assert "ask the site's operator" in page


def test_the_sign_in_page_links_the_reset() -> None:
    page = Client().get("/accounts/sign-in/").content.decode()
    assert 'href="/accounts/password/reset/">Forgot your password?</a>' in page


def test_requests_are_limited_per_address_and_per_email(player: Any) -> None:
    verified(player)
    for _ in range(limits.RESET_REQUESTS_PER_EMAIL):
        assert ask(Client(), "ada@example.org", "10.0.0.1").status_code == 200
    refused = ask(Client(), "ada@example.org", "10.0.0.2")
    assert refused.status_code == 429
    assert "Too many reset requests: try again in" in refused.content.decode()
    assert len(mail.outbox) == limits.RESET_REQUESTS_PER_EMAIL
    # One address asking for many e-mails is stopped too.
    for n in range(limits.RESET_REQUESTS_PER_ADDRESS - limits.RESET_REQUESTS_PER_EMAIL):
        assert ask(Client(), f"x{n}@example.org", "10.0.0.1").status_code == 200
    assert ask(Client(), "y@example.org", "10.0.0.1").status_code == 429


def test_a_reset_clears_the_accounts_wrong_password_count(player: Any) -> None:
    verified(player)
    for n in range(limits.LIMIT_PER_ACCOUNT):
        Client().post("/accounts/sign-in/", {"username": "ada", "password": "guess"},
                      REMOTE_ADDR=f"10.1.0.{n}")
    assert limits.password_wait(None, "ada") > 0
    client = Client()
    ask(client, "ada@example.org")
    path = RESET_LINK.search(mail.outbox[0].body).group(1)  # type: ignore[union-attr]
    form = client.get(path, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    signed = Client().post("/accounts/sign-in/", {"username": "ada", "password": NEW},
                           REMOTE_ADDR="10.2.0.1")
    assert signed.status_code == 302


def test_without_mail_the_reset_page_says_to_ask_the_operator(player: Any, settings: Any) -> None:
    settings.EMAIL_ENABLED = False
    verified(player)
    page = Client().get("/accounts/password/reset/").content.decode()
    assert "This site sends no e-mail" in page
    assert 'name="email"' not in page
    ask(Client(), "ada@example.org")
    assert mail.outbox == []


def test_the_request_only_queues_the_address_and_the_worker_makes_the_link(
    player: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer cannot take longer for a known address (no mail is sent in
    the request), and no link passes through the broker."""
    verified(player)
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.password_reset_mail, "delay", lambda *args: queued.append(args))
    known = ask(Client(), "ada@example.org")
    unknown = ask(Client(), "nobody@example.org")
    assert mail.outbox == []
    assert queued == [("ada@example.org", "testserver", False),
                      ("nobody@example.org", "testserver", False)]
    assert known.content == unknown.content
    for args in queued:  # as the worker runs them
        tasks.password_reset_mail(*args)
    [message] = mail.outbox
    assert message.to == ["ada@example.org"]
    assert RESET_LINK.search(message.body)


def test_a_broker_that_does_not_answer_is_said(
    player: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*args: Any) -> None:
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(tasks.password_reset_mail, "delay", down)
    answer = ask(Client(), "ada@example.org")
    assert answer.status_code == 503
    assert "The link could not be sent just now: try again in a minute." in answer.content.decode()
