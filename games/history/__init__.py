"""The history room: a player's own revealed deals, sessions and their export.

- ``selectors``: the reads (revealed hands, their records, sessions);
- ``filters``: the one FilterSet of the page, the API and the schema;
- ``export``: the CSV;
- ``views`` and ``urls``: the pages under /history/.

The skill report's buckets are built and read in ``games.reports``; the REST
API over the same reads is ``games.api``.
"""
