"""The player's e-mail address: optional, given on the account page, and used
for a password reset only once its owner opened the link sent to it.

The link carries the account's id and a token from Django's own token
machinery (``PasswordResetTokenGenerator`` with a salt of its own): it is
signed with SECRET_KEY, lasts ``PASSWORD_RESET_TIMEOUT``, and dies once the
address is verified, changed or removed, since those are part of its hash.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.mail import send_mail
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from . import limits
from .models import User

log = logging.getLogger(__name__)


class EmailVerificationTokenGenerator(PasswordResetTokenGenerator):
    key_salt = "accounts.emails.EmailVerificationTokenGenerator"

    def _make_hash_value(self, user: Any, timestamp: int) -> str:
        return f"{user.pk}\n{user.email}\n{user.email_verified}\n{timestamp}"


verification_tokens = EmailVerificationTokenGenerator()


class MailNotSent(Exception):
    """The mail server refused or did not answer; nothing was sent."""


def link_days() -> int:
    """How many days a verification or reset link lasts (whole days, at least 1)."""
    return max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)


def email_set(*, user: Any, email: str) -> None:
    """Give the player this address, not verified yet. A queryset update: no
    save signal (a changed e-mail is no changed password)."""
    User.objects.filter(pk=user.pk).update(email=email, email_verified=False)
    user.email, user.email_verified = email, False


def email_remove(*, user: Any) -> None:
    User.objects.filter(pk=user.pk).update(email="", email_verified=False)
    user.email, user.email_verified = "", False


def email_verify(*, user: Any, token: str) -> bool:
    """Mark the player's address verified if ``token`` is a live link for it."""
    if not user.email or not verification_tokens.check_token(user, token):
        return False
    User.objects.filter(pk=user.pk, email=user.email).update(email_verified=True)
    user.email_verified = True
    return True


def verification_send(*, request: HttpRequest, user: Any) -> None:
    """Mail the link that verifies the player's address. Raises
    ``MailNotSent`` when the mail server fails (logged with its cause)."""
    limits.VERIFICATION_MAILS.record_failure(("user", str(user.pk)))
    path = reverse("accounts:email_verify", kwargs={
        "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
        "token": verification_tokens.make_token(user),
    })
    context = {"user": user, "link": request.build_absolute_uri(path), "days": link_days()}
    subject = render_to_string("accounts/email/verify_subject.txt", context).strip()
    body = render_to_string("accounts/email/verify_body.txt", context)
    try:
        send_mail(subject, body, None, [user.email])
    except Exception as error:  # smtplib's and socket errors alike
        log.exception("could not send the e-mail verification to user %s", user.pk)
        raise MailNotSent from error


def verification_wait(*, user: Any) -> int:
    """0 when another verification mail may be sent now; else minutes to wait."""
    return limits.VERIFICATION_MAILS.minutes_left(("user", str(user.pk)))
