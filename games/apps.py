from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # Signal receivers that close a user's table sockets when a session ends.
        from .realtime import session  # noqa: F401
