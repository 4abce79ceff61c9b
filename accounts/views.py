"""Sign up, sign in, sign out and password change, on Django's own auth views."""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from .forms import SignUpForm, ThrottledAuthenticationForm


class SignInView(LoginView):
    """Django's sign-in view with throttling per account and per address."""

    template_name = "accounts/sign_in.html"
    authentication_form = ThrottledAuthenticationForm
    redirect_authenticated_user = True


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
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_safe_next(request) or "games:lobby")
    return render(request, "accounts/sign_up.html", {"form": form, "next": _safe_next(request)})
