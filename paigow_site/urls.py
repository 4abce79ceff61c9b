"""The URL root."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from accounts.admin import limit_admin_passwords

from .health import healthz

# The admin's sign-in and password change share the site's password limit.
limit_admin_passwords(admin.site)

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("accounts/", include("accounts.urls")),
    path("admin/", admin.site.urls),
    path("api/", include("games.api.urls")),
    path("history/", include("games.history.urls")),
    path("", include("games.urls")),
]
