"""The browsable API as the site serves it."""

from __future__ import annotations

from typing import Any

from rest_framework import renderers


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    """DRF's browsable API without its "Extra Actions" menu: DRF writes that
    menu with an inline ``style`` attribute, which the site's
    Content-Security-Policy refuses (tests/security/test_csp.py). The API
    root lists every endpoint, the extra ones included."""

    def get_extra_actions(self, view: Any, status_code: int) -> None:
        return None
