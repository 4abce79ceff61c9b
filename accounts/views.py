"""Sign up, sign in, sign out and password change, on Django's own auth views."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.views import LoginView
from django.forms import BaseForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from . import limits
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
