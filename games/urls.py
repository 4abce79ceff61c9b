from django.urls import path
from django.views.generic import TemplateView

from . import faces, views
from .review import views as review

app_name = "games"

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("tables/new/<str:mode>/", views.table_new, name="table_new"),
    path("tables/<int:table_id>/", views.table_detail, name="table"),
    path("tables/<int:table_id>/close/", views.table_close, name="table_close"),
    path(
        "tables/<int:table_id>/deals/<int:number>/verify/",
        views.deal_verify,
        name="deal_verify",
    ),
    path("invite/", views.join, name="join"),
    path("invite/<str:token>/", views.invite, name="invite"),
    path("rules/", TemplateView.as_view(template_name="games/rules.html"), name="rules"),
    path("faces/<str:name>", faces.face, name="face"),
    path("review/", review.deck, name="review"),
    path("review/<int:card_id>/", review.card, name="review_card"),
    path("review/<int:card_id>/answer/", review.answer, name="review_answer"),
]
