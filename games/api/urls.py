"""/api/: the history, sessions, the skill report, the schema and its docs."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import SimpleRouter

from . import docs, views

app_name = "api"

router = SimpleRouter()
router.register("hands", views.HandViewSet, basename="hand")
router.register("tables", views.SessionViewSet, basename="table")

urlpatterns = [
    *router.urls,
    path("reports/skill/", views.SkillReportView.as_view(), name="skill-report"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", docs.api_docs, name="docs"),
]
