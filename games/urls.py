from django.urls import path

from . import views

app_name = "games"

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("tables/new/<str:mode>/", views.table_new, name="table_new"),
    path("tables/<int:table_id>/", views.table_detail, name="table"),
]
