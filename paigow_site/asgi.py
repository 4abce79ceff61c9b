"""The ASGI application: Django for HTTP, Channels for the table WebSockets."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")

# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter

from games.realtime.routing import websocket_urlpatterns
from paigow_site.bodycap import BodyCap
from paigow_site.websocket_origin import SameOriginValidator

application = ProtocolTypeRouter(
    {
        # A request body past REQUEST_BODY_MAX_BYTES is answered 413 unread
        # (paigow_site.bodycap; daphne refuses it sooner, paigow_site.server).
        "http": BodyCap(django_asgi_app),
        # Only this site's own pages may open a table socket: the Origin must
        # match the scheme, host and port exactly (paigow_site.websocket_origin).
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
