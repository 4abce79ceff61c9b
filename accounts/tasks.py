"""Mail that must not make a request's answer time tell anything: the
password-reset link is made and sent by a worker, so a request for an
address with an account answers as fast as one for an address without.

The task gets the address, the site's host and scheme only; the worker looks
the accounts up and makes the link itself, so the link never passes through
the broker. (Eager in the embedded default: then it runs in the request.)
"""

from __future__ import annotations

from celery import shared_task

from . import emails
from .forms import VerifiedEmailPasswordResetForm

RESET_SUBJECT = "accounts/email/password_reset_subject.txt"
RESET_BODY = "accounts/email/password_reset_body.txt"


@shared_task(name="accounts.password_reset_mail", ignore_result=True, acks_late=True)
def password_reset_mail(email: str, domain: str, use_https: bool) -> None:
    """Send the reset link to every active account whose verified address is
    ``email`` (none: nothing is sent). A mail server's failure is logged by
    Django's form, with the account's id."""
    form = VerifiedEmailPasswordResetForm({"email": email})
    if not form.is_valid():
        return
    form.save(
        domain_override=domain,
        use_https=use_https,
        subject_template_name=RESET_SUBJECT,
        email_template_name=RESET_BODY,
        extra_email_context={"days": str(emails.link_days())},
    )
