"""The practice table: hands with no stake and no ledger, the best setting
after each lock, and the player's practice record (``selectors``, ``views``,
``urls``). Its writes are ``games.services.practice``."""
