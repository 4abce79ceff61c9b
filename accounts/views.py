"""Sign up, sign in, sign out, password change and reset, on Django's own
auth views; the account page with the e-mail address and the personal API
tokens."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, redirect_to_login
from django.core.exceptions import ValidationError
from django.forms import BaseForm
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme, urlsafe_base64_decode
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import emails, limits, tasks, tokens, walkthrough
from .forms import (
    EmailForm,
    NewPasswordForm,
    SignUpForm,
    ThrottledAuthenticationForm,
    ThrottledPasswordChangeForm,
    VerifiedEmailPasswordResetForm,
    client_address,
    is_throttled,
)
from .models import User

log = logging.getLogger(__name__)


class _TooManyIs429:
    """A form refused by the password limit answers 429, not 200."""

    def form_invalid(self, form: BaseForm) -> HttpResponse:
        response: HttpResponse = super().form_invalid(form)  # type: ignore[misc]
        if is_throttled(form):
            response.status_code = 429
        return response


class SignInView(_TooManyIs429, LoginView):
    """Django's sign-in view on the shared password limit (accounts.limits)."""

    template_name = "accounts/sign_in.html"
    authentication_form = ThrottledAuthenticationForm
    redirect_authenticated_user = True


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _tokens_revoked(request: HttpRequest, count: int) -> None:
    if count:
        messages.info(
            request,
            f"Your {_plural(count, 'API token')} {'was' if count == 1 else 'were'} revoked "
            "with the old password: make a new one on your account page for your scripts.",
        )


class PasswordChangeView(_TooManyIs429, auth_views.PasswordChangeView):
    """Django's password change; the old password is on the shared password
    limit. The change revokes the player's API tokens (accounts.signals)."""

    form_class = ThrottledPasswordChangeForm

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = super().get_form_kwargs()
        kwargs["request"] = self.request
        return kwargs

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context_data(**kwargs)
        context["token_count"] = len(tokens.tokens_of(user=self.request.user))
        return context

    def form_valid(self, form: Any) -> HttpResponse:
        count = len(tokens.tokens_of(user=form.user))
        response: HttpResponse = super().form_valid(form)
        _tokens_revoked(self.request, count)
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset request: a link to a verified address only. Every
    request counts per client address and per e-mail asked for
    (``limits.PASSWORD_RESETS``); the answer is the same whether or not an
    account has the address. Without mail (``EMAIL_ENABLED`` off) the page
    says a reset by e-mail is not offered here."""

    form_class = VerifiedEmailPasswordResetForm
    template_name = "accounts/password_reset.html"
    success_url = reverse_lazy("accounts:password_reset_sent")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context_data(**kwargs)
        context["email_enabled"] = settings.EMAIL_ENABLED
        return context

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.EMAIL_ENABLED:
            return self.get(request, *args, **kwargs)
        response: HttpResponse = super().post(request, *args, **kwargs)
        return response

    def form_valid(self, form: Any) -> HttpResponse:
        pairs = (
            ("ip", client_address(self.request) or "unknown"),
            ("email", form.cleaned_data["email"]),
        )
        wait = limits.PASSWORD_RESETS.minutes_left(*pairs)
        if wait:
            form.add_error(
                None,
                f"Too many reset requests: try again in {_plural(wait, 'minute')}. "
                "If a link was sent, it still works.",
            )
            response: HttpResponse = self.form_invalid(form)
            response.status_code = 429
            return response
        limits.PASSWORD_RESETS.record_failure(*pairs)
        # Made and sent by a worker (accounts.tasks): the answer takes as long
        # whether or not an account has the address.
        try:
            tasks.password_reset_mail.delay(
                form.cleaned_data["email"], self.request.get_host(), self.request.is_secure()
            )
        except Exception:  # the broker's errors (kombu, redis-py, sockets) alike
            log.exception("could not queue a password-reset mail")
            form.add_error(None, "The link could not be sent just now: try again in a minute.")
            response = self.form_invalid(form)
            response.status_code = 503
            return response
        return HttpResponseRedirect(self.get_success_url())


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's reset link: a new password, which revokes the API tokens and
    clears the account's own count of wrong passwords (whoever guessed at it
    cannot lock the owner out of the password they just set)."""

    form_class = NewPasswordForm
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")

    def form_valid(self, form: Any) -> HttpResponse:
        count = len(tokens.tokens_of(user=form.user))
        response: HttpResponse = super().form_valid(form)
        limits.password_reset(self.request, form.user.get_username())
        _tokens_revoked(self.request, count)
        return response


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


@require_http_methods(["GET", "POST"])
def sign_up(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    status = 200
    if request.method == "POST":
        address = ("ip", client_address(request) or "unknown")
        wait = limits.SIGN_UP.minutes_left(address)
        if wait:
            form.is_valid()  # bound, so the page shows the sentence with the fields kept
            form.errors.clear()
            form.add_error(
                None,
                f"Too many sign-ups from your address. Try again in {wait} "
                f"minute{'' if wait == 1 else 's'}.",
            )
            status = 429
        else:
            limits.SIGN_UP.record_failure(address)  # every attempt counts
            if form.is_valid():
                user = form.save()
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                return redirect(_safe_next(request) or "games:lobby")
    return render(
        request, "accounts/sign_up.html", {"form": form, "next": _safe_next(request)},
        status=status,
    )


def _account(
    request: HttpRequest, *, new_token: str = "", email_form: EmailForm | None = None,
    status: int = 200,
) -> HttpResponse:
    return render(request, "accounts/account.html", {
        "tokens": tokens.tokens_of(user=request.user),
        "new_token": new_token,
        "tokens_per_user": tokens.TOKENS_PER_USER,
        "email_enabled": settings.EMAIL_ENABLED,
        "email_form": email_form or EmailForm(user=request.user, request=request),
        "link_days": emails.link_days(),
    }, status=status)


@login_required
@never_cache
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    """The account page: the password, the e-mail address and the API tokens."""
    return _account(request)


def _send_verification(request: HttpRequest) -> None:
    user: Any = request.user
    wait = emails.verification_wait(user=user)
    if wait:
        messages.error(
            request,
            f"Several links went to {user.email} already: look for them (and in the spam "
            f"folder), or send another in {_plural(wait, 'minute')}.",
        )
        return
    try:
        emails.verification_send(request=request, user=user)
    except emails.MailNotSent:
        messages.error(
            request,
            "The mail could not be sent just now: press \u201cSend the link again\u201d in a "
            "few minutes. If it keeps failing, tell the site's operator.",
        )
        return
    messages.success(
        request,
        f"A link is on its way to {user.email}: open it within "
        f"{_plural(emails.link_days(), 'day')} to verify the address. Until then it cannot "
        "reset your password.",
    )


@login_required
@never_cache
@require_POST
def email_change(request: HttpRequest) -> HttpResponse:
    """Give or change the e-mail address (with the password); a link to verify it is sent."""
    if not settings.EMAIL_ENABLED:
        messages.error(request, "This site sends no e-mail, so it keeps no address.")
        return redirect("accounts:account")
    form = EmailForm(request.POST, user=request.user, request=request)
    if not form.is_valid():
        return _account(request, email_form=form, status=429 if is_throttled(form) else 200)
    emails.email_set(user=request.user, email=form.cleaned_data["email"])
    _send_verification(request)
    return redirect("accounts:account")


@login_required
@require_POST
def email_resend(request: HttpRequest) -> HttpResponse:
    user: Any = request.user
    if not settings.EMAIL_ENABLED or not user.email:
        messages.error(request, "There is no e-mail address to verify: add one first.")
    elif user.email_verified:
        messages.info(request, f"{user.email} is verified already.")
    else:
        _send_verification(request)
    return redirect("accounts:account")


@login_required
@require_POST
def email_remove(request: HttpRequest) -> HttpResponse:
    emails.email_remove(user=request.user)
    messages.success(
        request,
        "Your e-mail address is removed: a forgotten password can no longer be reset by e-mail.",
    )
    return redirect("accounts:account")


def _user_of(uidb64: str) -> Any:
    try:
        return User.objects.get(pk=urlsafe_base64_decode(uidb64).decode())
    except (TypeError, ValueError, OverflowError, ValidationError, User.DoesNotExist):
        return None


@never_cache
@require_http_methods(["GET", "POST"])
def email_verify(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """The link mailed to a new address: a page with one button that verifies
    it (a POST, so a mail scanner that opens links verifies nothing). It works
    in any browser, signed in or not: the signed link is the proof."""
    user = _user_of(uidb64)
    valid = user is not None and emails.verification_tokens.check_token(user, token)
    verified = valid and request.method == "POST" and emails.email_verify(user=user, token=token)
    return render(request, "accounts/email_verify.html", {
        "valid": valid, "verified": verified, "owner": user if valid else None,
        "link_days": emails.link_days(),
    })


@login_required
@never_cache
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    """Make a token and show it on this answer only (never stored, never again)."""
    try:
        _, token = tokens.token_create(user=request.user)
    except tokens.TooManyTokens:
        messages.error(
            request,
            f"You already have {tokens.TOKENS_PER_USER} tokens: revoke one you no longer "
            "use, then create a new one.",
        )
        return redirect("accounts:account")
    return _account(request, new_token=token)


@login_required
@require_POST
def token_revoke(request: HttpRequest) -> HttpResponse:
    key = request.POST.get("token", "")
    if tokens.token_revoke(user=request.user, token_key=key):
        messages.success(request, f"Token {key}… revoked: it no longer opens the API.")
    else:
        messages.error(request, "That token was already revoked or has expired.")
    return redirect("accounts:account")


def _wants_json(request: HttpRequest) -> bool:
    return request.headers.get("Accept", "").startswith("application/json")


@never_cache
@require_POST
def walkthrough_end(request: HttpRequest) -> HttpResponse:
    """The first-table walkthrough done or skipped (field ``outcome``), kept
    for the account so no table page shows it again, on any device. The
    table page posts it with ``Accept: application/json`` (the answer is
    ``{"walkthrough": outcome}``, errors as ``{"error", "detail"}``); a form
    posted without script is sent back to ``next``. CSRF-checked like every
    form."""
    json = _wants_json(request)
    if not request.user.is_authenticated:
        if json:
            return JsonResponse({
                "error": "not_authenticated",
                "detail": "You are signed out: sign in again, and the walkthrough will wait.",
            }, status=401)
        return redirect_to_login(_safe_next(request) or request.path)
    outcome = request.POST.get("outcome", "")
    if outcome not in walkthrough.OUTCOMES:
        detail = "The walkthrough ends as done or skipped: send outcome=done or outcome=skipped."
        if json:
            return JsonResponse({"error": "invalid", "detail": detail}, status=400)
        return HttpResponse(detail, status=400, content_type="text/plain; charset=utf-8")
    stored = walkthrough.walkthrough_end(user=request.user, outcome=outcome)
    if json:
        return JsonResponse({"walkthrough": stored})
    return redirect(_safe_next(request) or "games:lobby")
