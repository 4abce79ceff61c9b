"""/practice/test/: the 100-hand test, its attempts and their shared results."""

from django.urls import path

from . import views

app_name = "practice_test"

urlpatterns = [
    path("", views.home, name="home"),
    path("start/", views.start, name="start"),
    path("<int:test_id>/", views.attempt, name="attempt"),
    path("<int:test_id>/lock/", views.lock, name="lock"),
    path("<int:test_id>/share/", views.share, name="share"),
    path("shared/<str:share_token>/", views.shared, name="shared"),
]
