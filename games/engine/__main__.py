"""Command line: ``python -m games.engine <command> ...`` (see ``--help``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import batch
from .cards import CardError, card_name, parse_cards
from .choices import MODES, SIDES
from .hands import back_name, foul_reason, front_name
from .house_way import house_way
from .luck import LUCK_SAMPLES, luck
from .settle import settle


def _house_way(args: argparse.Namespace) -> None:
    hw = house_way(args.cards)
    front, back = hw.setting.front, hw.setting.back
    print(f"Front: {' '.join(front)}  ({front_name(front)})")
    print(f"Back:  {' '.join(back)}  ({back_name(back)})")
    print(f"Row:   {hw.row}")
    print(f"Why:   {hw.reason}")


def _luck(args: argparse.Namespace) -> None:
    e = luck(args.cards, mode=args.mode, side=args.side, samples=args.samples)
    print(e.label())
    print(f"{e.wins} wins, {e.pushes} pushes, {e.losses} losses in {e.samples} samples")


def _settle(args: argparse.Namespace) -> None:
    s = settle(mode=args.mode, front=args.front, back=args.back,
               other_front=args.other_front, other_back=args.other_back)
    first = "Player" if args.mode == "solo" else "First side"
    sides = ((first, args.front, args.back), ("Other", args.other_front, args.other_back))
    for label, f, b in sides:
        foul = foul_reason(f, b)
        print(f"{label}: {front_name(f)} | {back_name(b)}" + (f"  FOUL: {foul}" if foul else ""))
    print(f"Front {s.front}, back {s.back}: {first.lower()} result {s.result} (score {s.score})")


def _name(args: argparse.Namespace) -> None:
    cards = parse_cards(args.cards)
    if len(cards) == 5:
        print(back_name(cards))
    elif len(cards) == 2:
        print(front_name(cards))
    else:
        print(", ".join(card_name(c) for c in cards))


def _batch(_: argparse.Namespace) -> None:
    batch.run(sys.stdin, sys.stdout)


def parser() -> argparse.ArgumentParser:
    """The argument parser (for --help and tests)."""
    p = argparse.ArgumentParser(prog="python -m games.engine", description="Pai Gow Lab engine.")
    sub = p.add_subparsers(dest="command", required=True)
    hw = sub.add_parser("house-way", help="set seven cards by the house way")
    hw.add_argument("cards", nargs=7)
    hw.set_defaults(run=_house_way)
    lk = sub.add_parser("luck", help="estimate the luck of seven cards")
    lk.add_argument("--mode", choices=MODES, default="solo")
    lk.add_argument("--side", choices=SIDES, default="player")
    lk.add_argument("--samples", type=int, default=LUCK_SAMPLES)
    lk.add_argument("cards", nargs=7)
    lk.set_defaults(run=_luck)
    st = sub.add_parser("settle", help="settle two settings (cards as quoted groups)")
    st.add_argument("--mode", choices=MODES, default="solo")
    for name in ("front", "back", "other_front", "other_back"):
        st.add_argument(name, help='e.g. "As Kd"')
    st.set_defaults(run=_settle)
    nm = sub.add_parser("name", help="name a front (2 cards), a back (5) or cards")
    nm.add_argument("cards", nargs="+")
    nm.set_defaults(run=_name)
    bt = sub.add_parser("batch", help="JSON Lines requests on stdin, answers on stdout")
    bt.set_defaults(run=_batch)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = parser().parse_args(argv)
    try:
        args.run(args)
    except (CardError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
