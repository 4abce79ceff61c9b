"""The ASGI application as ``load.py --server granian`` serves it.

Granian has no hook before it serves, so its worker process does here, as it
imports the application, what ``paigow_site.server`` does as daphne starts:
the engine's tables filled, the start-up heap frozen and the young
collections spaced (docs/benchmarks.md, sixteenth round). Only for the
comparison: production runs ``paigow_site.server``.
"""

from __future__ import annotations

import gc

from games.engine.hands import warm_tables
from paigow_site.asgi import application
from paigow_site.server import YOUNG_COLLECTION_EVERY

__all__ = ["application"]

warm_tables()
gc.collect()
gc.freeze()
gc.set_threshold(YOUNG_COLLECTION_EVERY, *gc.get_threshold()[1:])
