"""The page-facing batch ops (describe, house_way_detail, settings, luck_detail)
and the explorer."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from games.engine import (
    DECK,
    all_settings,
    back_name,
    describe_setting,
    explore,
    foul_reason,
    front_name,
    house_way,
    is_foul,
    luck,
    mirror_result,
    settle,
)
from games.engine.batch import OPS, answer, answer_line
from games.engine.cards import codes, parse_indices
from games.engine.luck import SplitMix64, draw_opponents, luck_key, luck_seed
from tests.engine.vector_files import SAMPLE_HANDS as HANDS

MODES_SIDES = (("solo", "player"), ("solo", "dealer"), ("friend", "player"))
DESCRIBE_KEYS = ["front", "back", "front_name", "back_name", "foul", "foul_reason"]
EXPLORE_KEYS = ["front", "back", "front_name", "back_name", "foul", "wins", "pushes", "losses",
                "expected", "house_way"]


def random_hands(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.sample(DECK, 7)) for _ in range(count)]


def test_the_page_ops_are_batch_ops() -> None:
    assert {"describe", "house_way_detail", "settings", "luck_detail", "explore",
            "explore_range"} <= set(OPS)


# describe


@pytest.mark.parametrize(
    ("front", "back", "names", "reason"),
    [
        ("9h 9s", "Ks Qd 7c 4h 2s", ("Pair of nines", "King high"),
         "Your front, a pair of nines, beats your back, king high."),
        ("Ad Kd", "As Qd 7c 4h 2s", ("Ace-king", "Ace high"),
         "Your front, ace-king, beats your back, ace-queen high."),
        ("Kd JK", "As Ac 7c 4h 2s", ("Ace-king", "Pair of aces"), None),
        # An equal pair is legal.
        ("9s 9h", "9d 9c Ah 4h 2s", ("Pair of nines", "Pair of nines"), None),
        ("Ts Th", "9d 9c Ah 4h 2s", ("Pair of tens", "Pair of nines"),
         "Your front, a pair of tens, beats your back, a pair of nines."),
        ("As Kd", "Ah Kc 7c 4h 2s", ("Ace-king", "Ace high"), None),  # equal top two is legal
        ("JK As", "Kh Qh Jh Th 9h", ("Pair of aces", "Straight flush, king high"), None),
    ],
)
def test_describe_names_and_foul_reasons(front: str, back: str, names: tuple[str, str],
                                         reason: str | None) -> None:
    d = describe_setting(front, back)
    assert (d.front_name, d.back_name) == names
    assert d.foul_reason == reason == foul_reason(front, back)
    assert d.foul == (reason is not None) == is_foul(front, back)
    got = answer({"op": "describe", "front": front, "back": back})
    assert list(got) == DESCRIBE_KEYS
    assert got == {"front": " ".join(sorted(front.split(), key=DECK.index)),
                   "back": " ".join(sorted(back.split(), key=DECK.index)),
                   "front_name": names[0], "back_name": names[1],
                   "foul": reason is not None, "foul_reason": reason}


def test_describe_accepts_lists_and_writes_deck_order() -> None:
    got = answer({"op": "describe", "front": ["JK", "Kd"], "back": ["2s", "4h", "7c", "Ac", "As"]})
    # Spades, hearts, diamonds, clubs.
    assert (got["front"], got["back"]) == ("Kd JK", "As 2s 4h Ac 7c")


@pytest.mark.parametrize(
    ("request_", "error"),
    [
        ({"op": "describe", "front": "9s"}, "The request needs a “back” field."),
        ({"op": "describe", "back": "Ks Qd 7c 4h 2s"}, "The request needs a “front” field."),
        ({"op": "describe", "front": 7, "back": "Ks Qd 7c 4h 2s"},
         "The “front” field should be cards written as text, like \"As Kd\"."),
        ({"op": "settings", "cards": "As Ah"}, "A hand needs seven cards; you gave two."),
        ({"op": "house_way_detail", "cards": "As As 8d 8c Ks 7h 4d"},
         "You listed the ace of spades twice."),
        ({"op": "luck_detail", "cards": HANDS[0], "mode": "friend", "side": "dealer"},
         "“dealer” is not a side at a friend table: use player."),
        ({"op": "luck_detail", "cards": HANDS[0]}, "The request needs a “mode” field."),
        ({"op": "luck_detail", "cards": HANDS[0], "mode": "solo", "samples": 1},
         "Luck needs a whole number of samples, at least 2."),
        ({"op": "explore", "cards": HANDS[0]}, "The request needs a “mode” field."),
        ({"op": "explore", "cards": HANDS[0], "mode": "duo"},
         "“duo” is not a table mode: use solo or friend."),
        ({"op": "explore", "cards": HANDS[0], "mode": "friend", "side": "dealer"},
         "“dealer” is not a side at a friend table: use player."),
        ({"op": "explore", "cards": HANDS[0], "mode": "solo", "samples": 0},
         "The explorer needs a whole number of samples, at least 1."),
        ({"op": "explore", "cards": HANDS[0], "mode": "solo", "samples": True},
         "The explorer needs a whole number of samples, at least 1."),
        ({"op": "explore", "cards": HANDS[0], "mode": "solo", "samples": "120"},
         "The explorer needs a whole number of samples, at least 1."),
        ({"op": "explore", "cards": "As Ah 8d", "mode": "solo"},
         "A hand needs seven cards; you gave three."),
    ],
)
def test_page_ops_answer_errors_as_sentences(request_: dict[str, object], error: str) -> None:
    assert answer(request_) == {"error": error}


# house_way_detail and settings


@pytest.mark.parametrize("cards", HANDS)
def test_house_way_detail_names_the_row_and_reason(cards: str) -> None:
    hw = house_way(cards)
    got = answer({"op": "house_way_detail", "cards": cards})
    assert list(got) == [*DESCRIBE_KEYS, "row", "reason"]
    assert (got["front"], got["back"]) == (" ".join(hw.setting.front), " ".join(hw.setting.back))
    assert (got["row"], got["reason"]) == (hw.row, hw.reason)
    assert (got["front_name"], got["back_name"]) == (
        front_name(hw.setting.front), back_name(hw.setting.back)
    )
    assert got["foul"] is False
    assert got["foul_reason"] is None
    # Agrees with the plain house_way op.
    plain = answer({"op": "house_way", "cards": cards})
    assert (plain["front"], plain["back"], plain["row"]) == (got["front"], got["back"], got["row"])


@pytest.mark.parametrize("cards", [*HANDS, *random_hands(40, 3)])
def test_settings_lists_21_with_exactly_one_house_way(cards: str) -> None:
    settings = answer({"op": "settings", "cards": cards})["settings"]
    assert len(settings) == 21
    assert [s["front"] for s in settings] == [" ".join(s.front) for s in all_settings(cards)]
    assert len({s["front"] for s in settings}) == 21
    flagged = [s for s in settings if s["house_way"]]
    assert len(flagged) == 1
    assert flagged[0]["front"] == " ".join(house_way(cards).setting.front)
    for s in settings:
        assert list(s) == [*DESCRIBE_KEYS, "house_way"]
        assert sorted((s["front"] + " " + s["back"]).split()) == sorted(cards.split())
        assert s["front_name"] == front_name(s["front"])
        assert s["back_name"] == back_name(s["back"])
        assert s["foul_reason"] == foul_reason(s["front"], s["back"])
        assert s["foul"] == (s["foul_reason"] is not None)


# luck_detail


@pytest.mark.parametrize(("mode", "side"), MODES_SIDES)
def test_luck_detail_extends_luck(mode: str, side: str) -> None:
    request = {"op": "luck_detail", "cards": HANDS[1], "mode": mode, "side": side}
    got = answer(request)
    plain = answer({**request, "op": "luck"})
    assert list(got) == ["samples", *plain, "label"]
    assert {k: got[k] for k in plain} == plain
    assert got["samples"] == 120 == got["wins"] + got["pushes"] + got["losses"]
    assert got["label"] == luck(HANDS[1], mode=mode, side=side).label()


def test_luck_detail_label_and_samples() -> None:
    got = answer({"op": "luck_detail", "cards": HANDS[1], "mode": "solo"})
    assert got["label"] == "Luck 7.2 (6.6–7.7)"
    detail = answer({"op": "luck_detail", "cards": HANDS[1], "mode": "solo", "samples": 30})
    assert detail["samples"] == 30


# explore


def _record(result: str) -> int:
    return {"win": 2, "push": 1, "loss": 0}[result]


def brute_force(cards: str, mode: str, side: str, samples: int) -> dict[str, tuple[int, int, int]]:
    """Each setting's wins, pushes and losses through public settle(), opponent by opponent."""
    hand = parse_indices(cards, count=7)
    rng = SplitMix64(luck_seed(luck_key(hand, mode, side, samples)))
    opponents = [house_way(codes(o)).setting for o in draw_opponents(hand, samples, rng)]
    out = {}
    for s in all_settings(cards):
        tally = [0, 0, 0]
        for o in opponents:
            if side == "dealer":
                r = mirror_result(settle(mode=mode, front=o.front, back=o.back,
                                         other_front=s.front, other_back=s.back).result)
            else:
                r = settle(mode=mode, front=s.front, back=s.back,
                           other_front=o.front, other_back=o.back).result
            tally[_record(r)] += 1
        out[" ".join(s.front)] = (tally[2], tally[1], tally[0])
    return out


def _check_order(rows: list[dict[str, object]]) -> None:
    def key(row: dict[str, object]) -> tuple[object, ...]:
        front = parse_indices(str(row["front"]), count=2)
        return (-(2 * int(str(row["wins"])) + int(str(row["pushes"]))), not row["house_way"], front)

    assert [key(r) for r in rows] == sorted(key(r) for r in rows)


@pytest.mark.parametrize(("mode", "side"), MODES_SIDES)
@pytest.mark.parametrize("cards", HANDS)
def test_explore_house_way_row_equals_luck(cards: str, mode: str, side: str) -> None:
    x = explore(cards, mode=mode, side=side)
    e = luck(cards, mode=mode, side=side)
    hw = x.house_way
    assert (hw.wins, hw.pushes, hw.losses) == (e.wins, e.pushes, e.losses)
    assert hw.front == house_way(cards).setting.front
    assert sum(s.house_way for s in x.settings) == 1


@pytest.mark.parametrize("cards", random_hands(25, 8))
def test_explore_agrees_with_luck_on_random_hands(cards: str) -> None:
    for mode, side in MODES_SIDES:
        x = answer({"op": "explore", "cards": cards, "mode": mode, "side": side})
        e = answer({"op": "luck", "cards": cards, "mode": mode, "side": side})
        (row,) = [s for s in x["settings"] if s["house_way"]]
        assert (row["wins"], row["pushes"], row["losses"]) == (e["wins"], e["pushes"], e["losses"])
        _check_order(x["settings"])


@pytest.mark.parametrize(("mode", "side"), MODES_SIDES)
@pytest.mark.parametrize("cards", [HANDS[0], HANDS[3], HANDS[6], *random_hands(2, 21)])
def test_explore_equals_settling_every_setting_by_hand(cards: str, mode: str, side: str) -> None:
    samples = 40
    x = explore(cards, mode=mode, side=side, samples=samples)
    want = brute_force(cards, mode, side, samples)
    got = {" ".join(s.front): (s.wins, s.pushes, s.losses) for s in x.settings}
    assert got == want


@pytest.mark.parametrize("cards", HANDS)
def test_explore_answer_shape_order_and_expected(cards: str) -> None:
    got = answer({"op": "explore", "cards": cards, "mode": "solo"})
    assert list(got) == ["samples", "settings"]
    assert got["samples"] == 120
    rows = got["settings"]
    assert len(rows) == 21
    assert {r["front"] for r in rows} == {" ".join(s.front) for s in all_settings(cards)}
    assert sum(r["house_way"] for r in rows) == 1
    _check_order(rows)
    expected = [r["expected"] for r in rows]
    assert expected == sorted(expected, reverse=True)
    for r in rows:
        assert list(r) == EXPLORE_KEYS
        assert r["wins"] + r["pushes"] + r["losses"] == 120
        assert r["expected"] == float(Fraction(2 * r["wins"] + r["pushes"], 240))
        d = describe_setting(r["front"], r["back"])
        assert (r["front_name"], r["back_name"], r["foul"]) == (d.front_name, d.back_name, d.foul)
        if r["foul"]:
            # Opponents are set by the house way, which never fouls: a foul always loses.
            assert (r["wins"], r["pushes"], r["losses"]) == (0, 0, 120)


def test_explore_ties_put_the_house_way_first_then_deck_order() -> None:
    # Find a hand where the house way ties another setting; the house way must lead its tie group.
    seen_tie = False
    for cards in random_hands(300, 13):
        x = explore(cards, mode="friend", samples=8)
        hw_index = next(i for i, s in enumerate(x.settings) if s.house_way)
        hw = x.settings[hw_index]
        tied = [
            i for i, s in enumerate(x.settings)
            if 2 * s.wins + s.pushes == 2 * hw.wins + hw.pushes
        ]
        assert tied[0] == hw_index
        if len(tied) > 1:
            seen_tie = True
    assert seen_tie


def test_explore_is_deterministic_and_the_samples_change_the_draw() -> None:
    a = answer_line(json.dumps({"op": "explore", "cards": HANDS[2], "mode": "solo", "samples": 50}))
    b = answer_line(json.dumps({"op": "explore", "cards": HANDS[2].split()[::-1], "mode": "solo",
                                "samples": 50}))
    assert a == b
    assert explore(HANDS[2], mode="solo", samples=1).samples == 1
    assert explore(HANDS[2], mode="solo", samples=50) != explore(HANDS[2], mode="solo", samples=51)
