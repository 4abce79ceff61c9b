from django.urls import path
from django.views.generic import TemplateView

app_name = "games"

urlpatterns = [
    path("lobby/", TemplateView.as_view(template_name="games/lobby.html"), name="lobby"),
]
