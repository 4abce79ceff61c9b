"""/practice/: the practice table and the player's practice record."""

from django.urls import path

from . import views

app_name = "practice"

urlpatterns = [
    path("", views.home, name="home"),
    path("deal/", views.deal, name="deal"),
    path("hands/<int:hand_id>/", views.hand, name="hand"),
    path("hands/<int:hand_id>/lock/", views.lock, name="lock"),
    path("record/", views.record, name="record"),
]
