from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from . import throttle
from .models import User


class SignUpForm(UserCreationForm):
    """Django's sign-up form; labels exactly "Username", "Password" and
    "Password confirmation" (no trailing colon)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


def client_address(request: Any) -> str:
    # REMOTE_ADDR only: a forwarded header is the client's to forge.
    return str(getattr(request, "META", {}).get("REMOTE_ADDR", "")) if request else ""


class ThrottledAuthenticationForm(AuthenticationForm):
    """Django's sign-in form, refusing attempts past the per-account and
    per-address limits with a clear sentence instead of checking the password."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        address = client_address(self.request)
        wait = throttle.minutes_left(username, address)
        if wait:
            raise forms.ValidationError(
                "Too many sign-in attempts. Try again in %(n)s minute%(s)s.",
                code="throttled",
                params={"n": wait, "s": "" if wait == 1 else "s"},
            )
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            throttle.record_failure(username, address)
            raise
        throttle.clear_account(username)
        return cleaned
