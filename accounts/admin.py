from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest, HttpResponseBase
from django.urls import reverse

from .forms import ThrottledAdminAuthenticationForm, ThrottledAdminPasswordChangeForm
from .models import User
from .views import PasswordChangeView


class PlayerAdmin(UserAdmin):
    """Django's user admin, with whether the e-mail address is verified (only
    a verified address can reset the password: tick it only for an address
    you know is the player's)."""

    # Django's own rows and columns, and this one.
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        ("E-mail", {"fields": ("email_verified",)}),
    )
    list_display = (*UserAdmin.list_display, "email_verified")  # type: ignore[misc]


admin.site.register(User, PlayerAdmin)


def admin_password_change(request: HttpRequest, extra_context: Any = None) -> HttpResponseBase:
    """AdminSite.password_change with the shared password limit on the old
    password (the admin has no setting for that form, unlike ``login_form``)."""
    site = admin.site
    request.current_app = site.name
    return PasswordChangeView.as_view(
        form_class=ThrottledAdminPasswordChangeForm,
        success_url=reverse("admin:password_change_done", current_app=site.name),
        extra_context={**site.each_context(request), **(extra_context or {})},
    )(request)


def limit_admin_passwords(site: admin.AdminSite) -> None:
    """Put the admin's sign-in and password change on the shared password limit.
    Call before ``site.urls`` is read (the URLs bind the views then)."""
    site.login_form = ThrottledAdminAuthenticationForm
    # The stubs promise a TemplateResponse, but Django's own password_change
    # answers a successful change with the view's redirect, as this one does.
    site.password_change = admin_password_change  # type: ignore[method-assign, assignment]
