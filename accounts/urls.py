from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from . import views

app_name = "accounts"

urlpatterns = [
    path("", views.account, name="account"),
    path("tokens/", views.token_create, name="token_create"),
    path("tokens/revoke/", views.token_revoke, name="token_revoke"),
    path("walkthrough/", views.walkthrough_end, name="walkthrough"),
    path("sign-up/", views.sign_up, name="sign_up"),
    path(
        "sign-in/",
        views.SignInView.as_view(),
        name="sign_in",
    ),
    path("sign-out/", auth_views.LogoutView.as_view(), name="sign_out"),
    path(
        "password/",
        views.PasswordChangeView.as_view(
            template_name="accounts/password_change.html",
            success_url=reverse_lazy("accounts:password_changed"),
        ),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="accounts/password_changed.html"
        ),
        name="password_changed",
    ),
]
