"""Sign-up, and every form that checks a password: Django's own forms with one
shared limit on password tries (``accounts.limits.PASSWORDS``).

A wrong password in a sign-in form is counted by the ``user_login_failed``
signal (``accounts.signals``), so any ``authenticate()`` counts; the
password-change forms check the old password themselves and count here."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.admin.forms import AdminPasswordChangeForm as DjangoAdminPasswordChangeForm
from django.contrib.auth.forms import (
    AuthenticationForm,
    PasswordChangeForm,
    PasswordResetForm,
    SetPasswordForm,
    UserCreationForm,
)

from . import limits
from .limits import client_address
from .models import User

__all__ = [
    "EmailForm",
    "NewPasswordForm",
    "SignUpForm",
    "ThrottledAdminAuthenticationForm",
    "ThrottledAdminPasswordChangeForm",
    "ThrottledAuthenticationForm",
    "ThrottledPasswordChangeForm",
    "VerifiedEmailPasswordResetForm",
    "client_address",
    "is_throttled",
]


class SignUpForm(UserCreationForm):
    """Django's sign-up form; labels exactly "Username", "Password" and
    "Password confirmation" (no trailing colon)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


def _refuse_when_limited(request: Any, username: str, sentence: str) -> None:
    wait = limits.password_wait(request, username)
    if wait:
        raise forms.ValidationError(
            sentence + " Try again in %(n)s minute%(s)s.",
            code="throttled",
            params={"n": wait, "s": "" if wait == 1 else "s"},
        )


def is_throttled(form: forms.BaseForm) -> bool:
    return any(form.has_error(field, "throttled") for field in form.errors)


class _LimitedSignIn:
    """For AuthenticationForm subclasses: past the limit, refuse with a
    sentence instead of checking the password."""

    request: Any
    cleaned_data: dict[str, Any]
    user_cache: Any

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        if not username or not self.cleaned_data.get("password"):
            return super().clean()  # type: ignore[misc, no-any-return]  # nothing is checked
        _refuse_when_limited(self.request, username, "Too many sign-in attempts.")
        cleaned: dict[str, Any] = super().clean()  # type: ignore[misc]
        limits.password_right(self.request, username)
        return cleaned


class ThrottledAuthenticationForm(_LimitedSignIn, AuthenticationForm):
    """The site's sign-in form."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class ThrottledAdminAuthenticationForm(_LimitedSignIn, AdminAuthenticationForm):
    """The admin's sign-in form (``admin.site.login_form``), on the same limit."""


class _LimitedOldPassword:
    """For PasswordChangeForm subclasses: the old password is a password check
    like any sign-in, on the same limit. Takes the ``request`` keyword."""

    user: Any
    request: Any

    def __init__(self, *args: Any, request: Any = None, **kwargs: Any) -> None:
        self.request = request
        super().__init__(*args, **kwargs)

    def clean_old_password(self) -> str:
        username = self.user.get_username()
        _refuse_when_limited(self.request, username, "Too many wrong passwords.")
        try:
            old: str = super().clean_old_password()  # type: ignore[misc]
        except forms.ValidationError:
            limits.password_failed(self.request, username)
            raise
        limits.password_right(self.request, username)
        return old


class ThrottledPasswordChangeForm(_LimitedOldPassword, PasswordChangeForm):
    """The site's password change (/accounts/password/)."""


class ThrottledAdminPasswordChangeForm(_LimitedOldPassword, DjangoAdminPasswordChangeForm):
    """The admin's password change (/admin/password_change/)."""


class EmailForm(forms.Form):
    """The account page's e-mail address, with the player's password: an
    address here can reset the password, so a borrowed session must not set
    one. The password is checked on the shared password limit."""

    email = forms.EmailField(
        label="E-mail address", max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        label="Your password", strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text="To be sure it is you: this address will be able to reset your password.",
    )

    def __init__(self, *args: Any, user: Any, request: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.user = user
        self.request = request

    def clean_email(self) -> str:
        return User.objects.normalize_email(self.cleaned_data["email"])

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        username = self.user.get_username()
        _refuse_when_limited(self.request, username, "Too many wrong passwords.")
        if not self.user.check_password(password):
            limits.password_failed(self.request, username)
            raise forms.ValidationError(
                "That is not your password: type the one you sign in with.",
                code="password_incorrect",
            )
        limits.password_right(self.request, username)
        return password


class VerifiedEmailPasswordResetForm(PasswordResetForm):
    """Django's reset request, sent only to an address its owner verified."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["email"].label = "Your verified e-mail address"

    def get_users(self, email: str) -> Any:
        return (user for user in super().get_users(email) if user.email_verified)


class NewPasswordForm(SetPasswordForm):
    """Django's new-password form of the reset link, without label colons."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
