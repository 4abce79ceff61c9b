"""/history/: the player's own deals, sessions, skill report, CSV and hand-history exports."""

from django.urls import path

from . import views

app_name = "history"

urlpatterns = [
    path("", views.hands, name="hands"),
    path("export.csv", views.export_csv, name="export"),
    path("export.jsonl", views.export_hand_history, name="export_hand_history"),
    path("deals/<int:deal_id>/", views.deal, name="deal"),
    path("sessions/", views.sessions, name="sessions"),
    path("sessions/<int:table_id>/", views.session, name="session"),
    path("skill/", views.skill_report, name="skill"),
]
