// What the practice page shows while a hand is set (practice-state.mjs).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as shows from "../src/js/practice-state.mjs";

// A practice view as games.practice.selectors.practice_view makes it (two settings of 21 kept).
const VIEW = {
  locked: false,
  cards: ["As", "Ah", "8d", "8c", "Ks", "7h", "4d"],
  names: { As: "Ace of spades", Ah: "Ace of hearts", Ks: "King of spades", JK: "Joker", Td: "Ten of diamonds" },
  settings: [
    { front: ["As", "Ah"], front_name: "Pair of aces", back_name: "Pair of eights", foul_reason: "Your front, a pair of aces, beats your back, a pair of eights." },
    { front: ["8d", "8c"], front_name: "Pair of eights", back_name: "Pair of aces" },
  ],
};

describe("the selection", () => {
  test("a card toggles on and off", () => {
    assert.deepEqual(shows.toggled(shows.toggled([], "As"), "As"), []);
  });
  test("a third card replaces the older of two", () => {
    assert.deepEqual(shows.toggled(["As", "Ah"], "Ks"), ["Ah", "Ks"]);
  });
});

describe("labels and the foul warning", () => {
  test("with one card picked the label asks for one more", () => {
    assert.equal(shows.labels(VIEW, ["As"]).front, "Front: pick 1 more card");
  });
  test("two cards are named by the guide's setting, in either order", () => {
    assert.deepEqual(shows.labels(VIEW, ["8c", "8d"]), { front: "Front: pair of eights", back: "Back: pair of aces" });
  });
  test("a foul says why and that it may still be locked", () => {
    assert.match(shows.foulWarning(VIEW, ["Ah", "As"]), /^A foul: Your front, a pair of aces, beats .* you may still lock it/);
  });
  test("a fouled back has the warning's name, as at the table (issue #45)", () => {
    const view = { ...VIEW, settings: [{ front: ["As", "Ks"], front_name: "Ace-king", back_name: "Ten high",
      foul_reason: "Your front, ace-king, beats your back, ten-eight high." }] };
    assert.deepEqual(shows.labels(view, ["As", "Ks"]), { front: "Front: ace-king", back: "Back: ten-eight high" });
    assert.equal(shows.labels(VIEW, ["As", "Ah"]).back, "Back: pair of eights", "the article dropped");
  });
  test("a legal setting has no warning", () => {
    assert.equal(shows.foulWarning(VIEW, ["8d", "8c"]), "");
  });
});

describe("lock and the card names", () => {
  test("lock needs two cards and nothing on its way", () => {
    assert.deepEqual([shows.canLock(VIEW, ["As"], false), shows.canLock(VIEW, ["As", "Ah"], true), shows.canLock(VIEW, ["As", "Ah"], false)], [false, false, true]);
  });
  test("a locked hand cannot be locked", () => {
    assert.equal(shows.canLock({ ...VIEW, locked: true }, ["As", "Ah"], false), false);
  });
  test("a card button's name starts with the index it shows", () => {
    assert.deepEqual(["Ks", "Td", "JK"].map((c) => shows.cardLabel(VIEW, c)), ["K, King of spades", "10, Ten of diamonds", "Joker"]);
  });
});
