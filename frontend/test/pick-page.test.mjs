// The pure helpers the practice, review and 100-hand test pages share (pick-page.mjs).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as pick from "../src/js/pick-page.mjs";

describe("the faces to draw with", () => {
  test("the pack when the site has one and the player chose it", () => {
    assert.equal(pick.facesBase("/faces/", "pack"), "/faces/");
  });
  test("the built-in faces when the player chose them or never chose", () => {
    assert.equal(pick.facesBase("/faces/", "svg"), "");
    assert.equal(pick.facesBase("/faces/", null), "");
  });
  test("the built-in faces when the site has no pack, whatever was chosen", () => {
    assert.equal(pick.facesBase("", "pack"), "");
  });
});

describe("a card button's class", () => {
  test("hearts and diamonds are red, spades and clubs are not", () => {
    assert.equal(pick.cardClass("Ah"), "card red");
    assert.equal(pick.cardClass("Td"), "card red");
    assert.equal(pick.cardClass("Ks"), "card");
    assert.equal(pick.cardClass("2c"), "card");
  });
  test("the joker is marked as such", () => {
    assert.equal(pick.cardClass("JK"), "card joker");
  });
});

describe("a refused post", () => {
  test("carries the server's sentence and error code", () => {
    const error = pick.refusal({ error: "practice_analysing", detail: "The hand is being analysed: lock again in a moment." });
    assert.ok(error instanceof Error);
    assert.equal(error.message, "The hand is being analysed: lock again in a moment.");
    assert.equal(error.code, "practice_analysing");
  });
  test("without a sentence says to try again", () => {
    const error = pick.refusal({ detail: "" });
    assert.equal(error.message, "That did not work: try again.");
    assert.equal(error.code, undefined);
  });
});
