from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from . import views

app_name = "accounts"

urlpatterns = [
    path("", views.account, name="account"),
    path("email/", views.email_change, name="email_change"),
    path("email/resend/", views.email_resend, name="email_resend"),
    path("email/remove/", views.email_remove, name="email_remove"),
    path("email/verify/<uidb64>/<token>/", views.email_verify, name="email_verify"),
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
    # The forgotten password: Django's reset views, to a verified address only.
    path("password/reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            template_name="accounts/password_reset_sent.html"
        ),
        name="password_reset_sent",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="accounts/password_reset_complete.html"
        ),
        name="password_reset_complete",
    ),
]
