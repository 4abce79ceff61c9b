"""/api/: the history, sessions, the skill report, the record, the schema and its docs."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import SimpleRouter

from . import docs_assets, review, views

app_name = "api"

router = SimpleRouter()
router.register("hands", views.HandViewSet, basename="hand")
router.register("tables", views.SessionViewSet, basename="table")

urlpatterns = [
    path("", views.ApiRootView.as_view(), name="root"),
    *router.urls,
    path("reports/skill/", views.SkillReportView.as_view(), name="skill-report"),
    path("record/", views.RecordView.as_view(), name="record"),
    path("review/", review.ReviewDeckView.as_view(), name="review"),
    re_path(r"^tables/(?P<id>[0-9]+)/deals/(?P<number>[0-9]+)/exact/$",
            views.ExactView.as_view(), name="deal-exact"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI from drf-spectacular-sidecar's files (no CDN); its start-up
    # script is this same URL with ?script, a file, as the policy wants.
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api:schema", template_name="games/api/docs.html"
        ),
        name="docs",
    ),
    path("docs/swagger-ui.css", docs_assets.stylesheet, name="docs-css"),
    path("docs/images/<str:name>", docs_assets.image, name="docs-image"),
    # Last: any other path under /api/ is a 404 in the API's error shape.
    re_path(r"^(?P<rest>.*)$", views.not_found, name="not-found"),
]
