"""Sign up, sign in, sign out and password change, on Django's own auth views;
the account page with the personal API tokens."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, redirect_to_login
from django.forms import BaseForm
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import limits, tokens, walkthrough
from .forms import (
    SignUpForm,
    ThrottledAuthenticationForm,
    ThrottledPasswordChangeForm,
    client_address,
    is_throttled,
)


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


class PasswordChangeView(_TooManyIs429, auth_views.PasswordChangeView):
    """Django's password change; the old password is on the shared password limit."""

    form_class = ThrottledPasswordChangeForm

    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = super().get_form_kwargs()
        kwargs["request"] = self.request
        return kwargs


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


def _account(request: HttpRequest, *, new_token: str = "", status: int = 200) -> HttpResponse:
    return render(request, "accounts/account.html", {
        "tokens": tokens.tokens_of(user=request.user),
        "new_token": new_token,
        "tokens_per_user": tokens.TOKENS_PER_USER,
    }, status=status)


@login_required
@never_cache
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    """The account page: the password change and the personal API tokens."""
    return _account(request)


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
