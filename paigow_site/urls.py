"""The URL root."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponseRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import TemplateView

from accounts.admin import limit_admin_passwords
from games.history.views import player_record

from .health import healthz

# The admin's sign-in and password change share the site's password limit.
limit_admin_passwords(admin.site)


def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """/favicon.ico, for pages without the base template's icon link (the admin)."""
    return HttpResponseRedirect(static("img/favicon.svg"))


# A page that raised because the database was busy or down answers 503 with
# Retry-After, not 500 (paigow_site.unavailable).
handler500 = "paigow_site.unavailable.server_error"

urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("accounts/", include("accounts.urls")),
    path("admin/", admin.site.urls),
    path("api/", include("games.api.urls")),
    path("history/", include("games.history.urls")),
    path("record/", player_record, name="record"),
    path("practice/test/", include("games.practice_test.urls")),
    path("practice/", include("games.practice.urls")),
    path("", include("games.urls")),
]
