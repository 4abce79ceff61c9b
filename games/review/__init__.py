"""The review deck (/review/): a player's costly decisions dealt again, in
Leitner boxes. Reads here (``selectors``), pages in ``views``; its writes are
``games.services.review``."""
