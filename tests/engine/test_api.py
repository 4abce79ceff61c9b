"""Behaviour of the public API beyond the golden vectors."""

from __future__ import annotations

import doctest
import importlib
import json
import pkgutil
import random
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

import games.engine
from games.engine import (
    DECK,
    CardError,
    DealSnapshot,
    SeatState,
    all_settings,
    back_name,
    best_five,
    card_name,
    deal_hands,
    deck_commitment,
    foul_reason,
    front_name,
    house_way,
    is_foul,
    ledger_delta,
    luck,
    luck_from_counts,
    parse_cards,
    seat_view,
    settle,
    shuffle_deck,
    skill,
    sort_cards,
    verify_shuffle,
)

REPO = Path(__file__).resolve().parents[2]


def test_deck_is_in_rules_order() -> None:
    assert len(DECK) == 53 == len(set(DECK))
    assert DECK[:3] == ("As", "Ks", "Qs")
    assert DECK[12] == "2s"
    assert DECK[13] == "Ah"
    assert DECK[-2:] == ("2c", "JK")


def test_parse_cards_accepts_text_or_lists_and_returns_deck_order() -> None:
    assert parse_cards("Kd as, JK") == ("As", "Kd", "JK")
    assert parse_cards(["JK", "2c", "10h"]) == ("Th", "2c", "JK")
    assert sort_cards(["2c", "As"]) == ("As", "2c")


@pytest.mark.parametrize(
    ("text", "count", "message"),
    [
        ("Xz", None, (
            "“Xz” is not a card: write a rank (2-9, T, J, Q, K, A)"
            " and a suit (s, h, d, c), or JK for the joker."
        )),
        ("7c 7c", None, "You listed the seven of clubs twice."),
        ("JK jk", None, "You listed the joker twice."),
        ("As Ks Qs Js Ts 9s", 7, "A hand needs seven cards; you gave six."),
        ("", 2, "A front needs two cards; you gave none."),
    ],
)
def test_parse_errors_read_as_sentences(text: str, count: int | None, message: str) -> None:
    with pytest.raises(CardError) as caught:
        parse_cards(text, count=count)
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError)


def test_card_and_hand_names() -> None:
    assert card_name("As") == "Ace of spades"
    assert card_name("JK") == "Joker"
    assert back_name("Kh Qh Jh Th JK") == "Royal flush"
    assert back_name("9s 9h 9d 4c 4h") == "Full house, nines over fours"
    assert back_name("As 2d 3c 4h JK") == "Straight, ace to five"
    assert front_name("Ah Kh") == "Ace-king"


def test_foul_reason_explains_or_is_none() -> None:
    assert foul_reason("9s 9h", "Ks Qd 7c 4h 2s") == (
        "Your front, a pair of nines, beats your back, king high."
    )
    assert foul_reason("9s 9h", "Ts Td 7c 4h 2s") is None
    assert is_foul("Ts Th", "9s 9d 7c 4h 2s")


def test_all_settings_are_the_21_partitions() -> None:
    settings = all_settings("As Ah 8d 8c Ks 7h 4d")
    assert len(settings) == 21 == len({s.front for s in settings})
    assert best_five("Ah Kh 9h 3h JK 2c 2d") == ("Ah", "Kh", "9h", "3h", "JK")


def test_house_way_worked_examples_from_the_rules() -> None:
    examples = {
        "As Ah 8d 8c Ks 7h 4d": ("8d 8c", "two-pair-split"),
        "2s 2h 3d 3c 7h 6d 5c": ("7h 6d", "two-pair-keep"),
        "JK Ah 9s 9d Kc Qh Jd": ("9s 9d", "straight-or-flush"),
        "Ah JK As Ac Jh 2h Kh": ("As Ac", "straight-or-flush"),
        "As 3s 2s JK 4s 4d 2c": ("As JK", "straight-flush-as-pairs-three-pair"),
        "9s 9h 9d 2c 2s Ah Kd": ("Ah Kd", "full-house-deuces-ak"),
        "7s 7h 7d 7c Ah Jd 3c": ("Ah Jd", "quads-mid-keep"),
    }
    for cards, (front, row) in examples.items():
        hw = house_way(cards)
        assert (" ".join(hw.setting.front), hw.row) == (front, row), cards


def test_settle_reports_parts_fouls_and_scores() -> None:
    s = settle(mode="solo", front="9s 9h", back="Ks Qd 7c 4h 2s",
               other_front="2c 3d", other_back="As Kh 8c 6h 5s")
    assert (s.result, s.foul, s.other_foul, s.score) == ("loss", True, False, 0.0)
    both = settle(mode="friend", front="9s 9h", back="Ks Qd 7c 4h 2s",
                  other_front="Tc Td", other_back="Ac Kc 8c 6h 5s")
    assert both.result == "push"
    assert both.foul
    assert both.other_foul
    with pytest.raises(ValueError, match="is not a table mode"):
        settle(mode="casino", front="9s 9h", back="Ks Qd 7c 4h 2s",
               other_front="Tc Td", other_back="Ac Kc 8c 6h 5s")


def test_ledger_uses_decimal_hundredths_rounded_half_up() -> None:
    assert ledger_delta("win", 20) == (ledger_delta("win", 20).__class__)(20, Decimal("19.00"))
    assert ledger_delta("loss", 20).with_commission == Decimal("-20.00")
    assert ledger_delta("win", 1).with_commission == Decimal("0.95")
    assert ledger_delta("win", 333).with_commission == Decimal("316.35")
    with pytest.raises(ValueError, match="at least 1"):
        ledger_delta("win", 0)


def test_playing_the_house_way_has_zero_skill() -> None:
    rng = random.Random(3)
    for _ in range(200):
        deck = shuffle_deck(rng)
        mine, theirs = deal_hands(deck)
        hw, other = house_way(mine), house_way(theirs)
        for mode in ("solo", "friend"):
            assert skill(mode=mode, cards=mine, front=hw.setting.front, back=hw.setting.back,
                         other_front=other.setting.front, other_back=other.setting.back) == 0.0


def test_luck_from_counts_matches_luck() -> None:
    e = luck("Kh Qh 9d 3d Kc 6c 4c", mode="friend", side="player")
    assert luck_from_counts(wins=e.wins, pushes=e.pushes, losses=e.losses) == e
    assert e.label() == "Luck 5.1 (4.6–5.6)"
    # Exact ties round half up: 5.05 shows 5.1 and 5.35 shows 5.4.
    assert luck_from_counts(wins=3, pushes=102, losses=15).shown == "5.1"
    assert luck_from_counts(wins=1, pushes=114, losses=5).shown == "5.4"
    with pytest.raises(ValueError, match="is not a side at a friend table"):
        luck("Kh Qh 9d 3d Kc 6c 4c", mode="friend", side="dealer")


def test_shuffle_commitment_and_deal() -> None:
    deck = shuffle_deck(random.Random(11))
    assert sorted(deck) == sorted(DECK)
    commitment = deck_commitment(deck, "secret")
    assert verify_shuffle(deck, "secret", commitment)
    assert not verify_shuffle(deck, "other", commitment)
    doubled = (*deck[:-1], deck[0])
    assert not verify_shuffle(doubled, "secret", deck_commitment(doubled, "secret"))
    first, second = deal_hands(deck)
    assert set(first) == set(deck[:7])
    assert set(second) == set(deck[7:14])
    assert first == sort_cards(first)


def _snapshot(revealed: bool) -> DealSnapshot:
    deck = shuffle_deck(random.Random(5))
    a, b = deal_hands(deck)
    hw = house_way(b)
    return DealSnapshot(
        seats=(SeatState(a), SeatState(b, hw.setting.front, hw.setting.back)),
        revealed=revealed, commitment=deck_commitment(deck, "s3cr3t-value"),
        deck_order=deck, secret="s3cr3t-value",
    )


def test_seat_view_hides_everything_secret_before_the_reveal() -> None:
    snap = _snapshot(revealed=False)
    for viewer in (0, 1, None):
        view = seat_view(snap, viewer)
        dumped = json.dumps(view)
        hidden_seats = [1 - viewer] if viewer is not None else [0, 1]
        for seat in hidden_seats:
            for card in snap.seats[seat].cards:
                assert f'"{card}"' not in dumped, (viewer, card)
        assert "s3cr3t-value" not in dumped
        assert "deck" not in view
        assert "secret" not in view
        assert view["revealed"] is False
        assert view["commitment"] == snap.commitment
    mine = seat_view(snap, 0)["you"]
    assert isinstance(mine, dict)
    assert mine["cards"] == list(snap.seats[0].cards)
    assert seat_view(snap, 0)["other"] == {"locked": True}


def test_seat_view_shows_all_after_the_reveal() -> None:
    snap = _snapshot(revealed=True)
    view = seat_view(snap, 0)
    other = view["other"]
    assert isinstance(other, dict)
    assert other["cards"] == list(snap.seats[1].cards)
    assert view["deck"] == list(snap.deck_order or ())
    assert view["secret"] == "s3cr3t-value"
    json.dumps(seat_view(snap, None))


def test_doctests_pass_in_every_engine_module() -> None:
    names = [m.name for m in pkgutil.iter_modules(games.engine.__path__)]
    assert "cards" in names
    for name in ["games.engine"] + [f"games.engine.{n}" for n in names]:
        result = doctest.testmod(importlib.import_module(name))
        assert result.failed == 0, name


def test_cli_house_way_luck_and_batch_errors() -> None:
    def run(*args: str, stdin: str = "") -> str:
        done = subprocess.run([sys.executable, "-m", "games.engine", *args], input=stdin,
                              capture_output=True, text=True, cwd=REPO, timeout=60, check=True)
        return done.stdout

    out = run("house-way", "As", "Ah", "8d", "8c", "Ks", "7h", "4d")
    assert "8d 8c" in out
    assert "two-pair-split" in out
    assert "Pair of eights" in out
    cards = ["9s", "2s", "Th", "5h", "2h", "Kd", "Kc"]
    assert run("luck", "--mode", "solo", "--side", "player", *cards).startswith(
        "Luck 7.2 (6.6–7.7)")
    lines = run("batch", stdin='{"op":"nope"}\nnot json\n{"op":"back","cards":"As As"}\n'
                '{"op":"back","cards":"Kh Qh Jh Th JK"}\n').splitlines()
    answers = [json.loads(line) for line in lines]
    assert [sorted(a) for a in answers[:3]] == [["error"]] * 3
    assert answers[3] == {"category": "royal flush"}
