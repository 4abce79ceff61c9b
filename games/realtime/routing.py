"""WebSocket routes."""

from django.urls import URLPattern, path

from .consumer import TableConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
]
