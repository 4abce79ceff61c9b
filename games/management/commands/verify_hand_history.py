"""``manage.py verify_hand_history FILE``: re-settle an exported hand history.

Reads the JSON lines a player downloaded (docs/hand-history.md) and checks
each with the engine alone (``engine.record_problems``): the shuffle's
commitment, the cards dealt, the settings, the house way, the settlement,
the skill and both ledgers. It reads no database, so anyone can run it on
an export without the site. Exit status 0 when every line holds, 1 otherwise.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import engine


class Command(BaseCommand):
    help = "Re-settle every deal of an exported hand history (JSON lines) with the engine."
    requires_system_checks = ()  # it reads a file, never the site's database
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the .jsonl file, or - for standard input")

    def handle(self, *args: Any, **options: Any) -> None:
        lines = _read(options["file"])
        failed = 0
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            problems = _line_problems(line)
            if problems:
                failed += 1
                for problem in problems:
                    self.stdout.write(f"line {number}: {problem}")
        checked = sum(1 for line in lines if line.strip())
        if failed:
            self.stdout.write(f"{failed} of {checked} deals do not hold.")
            sys.exit(1)
        self.stdout.write(f"All {checked} deals hold: shuffles, cards, settlements and ledgers.")


def _read(name: str) -> list[str]:
    if name == "-":
        return sys.stdin.read().splitlines()
    try:
        return Path(name).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise CommandError(f"Cannot read {name}: {error.strerror}.") from error
    except UnicodeDecodeError as error:
        raise CommandError(f"{name} is not UTF-8 text.") from error


def _line_problems(line: str) -> list[str]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return ["not a JSON object"]
    if not isinstance(record, dict):
        return ["not a JSON object"]
    deal = f"deal {record.get('deal_id', '?')}: "
    return [deal + problem for problem in engine.record_problems(record)]
