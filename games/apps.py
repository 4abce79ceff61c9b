from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from django.core import checks

        from paigow_site.checks import channels_redis_private_names

        # The Celery tasks, registered in every process (``games.enqueue`` names
        # them; embedded, they run in this one).
        from . import (
            folds,
            reads,
            tasks,  # noqa: F401
        )

        # Signal receivers that close a user's table sockets when a session ends.
        from .realtime import session  # noqa: F401
        from .services import updates

        # paigow_site has no app of its own: its checks are registered here.
        checks.register(channels_redis_private_names)
        # The columns games.reads's statements name by hand still exist.
        checks.register(reads.named_columns_exist)
        # What games.services.updates's UPDATEs would skip of Model.save.
        checks.register(updates.save_hooks_absent)
        # Several statements in one execute, each result read: psycopg 3.
        checks.register(folds.psycopg_3_in_use)
