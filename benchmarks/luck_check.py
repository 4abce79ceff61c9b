"""Where a luck check's CPU goes in the worker: each part, per hand.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paigow_bench \
    REDIS_URL=redis://127.0.0.1:6379/7 \
        .venv/bin/python benchmarks/luck_check.py [--batch 6] [--hands 240] [--rounds 3] \
        [--own-loop]

Checks the stored luck estimates of up to ``--hands`` hands (the newest; run
``benchmarks/profile_deal.py`` first, which stores two a deal) in batches of
``--batch``, as ``games.upkeep.luck_verify_many`` does, each round after
deleting their audit rows, and prints the CPU milliseconds a hand (the whole
process: ``time.process_time``) of each part: the read of the hands, the
engine's draw, the tables' lock, the read of the audits already there, their
insert, the commit, and the publish that tells the other seats (on the
channel layer of REDIS_URL). ``--own-loop`` publishes as a worker does since
the fifteenth round (``broadcast.publish_from_own_loop``); without it, as
before (``async_to_sync``: a new event loop and Redis connection a call).
The database keeps the audit rows of the last round.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paigow_site.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=6)
    parser.add_argument("--hands", type=int, default=240)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--own-loop", action="store_true")
    args = parser.parse_args()
    import django

    django.setup()
    logging.disable(logging.WARNING)  # profile_deal's estimates are flagged: no log lines
    from django.db import transaction

    from games import upkeep
    from games.engine.hands import warm_tables
    from games.models import Hand, LuckAudit, Table
    from games.realtime import broadcast

    warm_tables()
    if args.own_loop:
        broadcast.publish_from_own_loop()
    ids = list(
        Hand.objects.filter(luck_wins__isnull=False).order_by("-pk").values_list("pk", flat=True)
    )[: args.hands]
    if not ids:
        sys.exit("No hand has a luck estimate: run benchmarks/profile_deal.py first.")
    parts: dict[str, float] = {}

    def tick(name: str, since: float) -> float:
        now = time.process_time()
        parts[name] = parts.get(name, 0.0) + now - since
        return now

    for _ in range(args.rounds):
        parts.clear()
        LuckAudit.objects.filter(hand_id__in=ids).delete()
        for start in range(0, len(ids), args.batch):
            t = time.process_time()
            hands = list(
                Hand.objects.filter(
                    pk__in=ids[start : start + args.batch], luck_audit__isnull=True
                ).select_related("deal__table", "seat")
            )
            t = tick("read", t)
            checked = [(hand, upkeep._audit(hand)) for hand in hands]
            t = tick("engine", t)
            with transaction.atomic():
                table_ids = sorted({hand.deal.table_id for hand, _ in checked})
                locked = Table.objects.select_for_update().filter(pk__in=table_ids)
                tables = {table.pk: table for table in locked.order_by("pk")}
                t = tick("lock", t)
                there = set(
                    LuckAudit.objects.filter(hand_id__in=[h.pk for h, _ in checked])
                    .values_list("hand_id", flat=True)
                )
                t = tick("there", t)
                new = [(hand, result) for hand, result in checked if hand.pk not in there]
                LuckAudit.objects.bulk_create(LuckAudit(hand_id=h.pk, **r) for h, r in new)
                t = tick("insert", t)
            t = tick("commit", t)
            broadcast.seats_changed(
                seats=[(tables[hand.deal.table_id], 1 - hand.seat_number) for hand, _ in new]
            )
            tick("publish", t)
        total = sum(parts.values())
        print(
            f"{len(ids)} hands, batches of {args.batch}: {1000 * total / len(ids):.2f} ms a hand; "
            + ", ".join(f"{name} {1000 * cpu / len(ids):.2f}" for name, cpu in parts.items())
        )


if __name__ == "__main__":
    main()
