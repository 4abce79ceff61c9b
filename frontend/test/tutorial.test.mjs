// The first-table walkthrough's steps, from state frames shaped as docs/protocol.md says.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import * as walk from "../src/js/tutorial.mjs";

const SEVEN = ["As", "Ah", "8d", "8c", "Ks", "7h", "4d"];
const FIXTURE = JSON.parse(readFileSync(new URL("./guide-fixture.json", import.meta.url)));
const [GUIDE] = FIXTURE.hands;

function frame({ table = {}, deal = {}, you = {}, noDeal = false, mode = "solo" } = {}) {
  return {
    table: { id: 12, version: 14, mode, status: "playing", stake: null, proposal: null, last_stake: 20, max_stake: 980, deals: 1, invite: null, ...table },
    seats: {
      you: { seat: 0, name: "ada", dealer: false, stack: 1000, with_5: "1000.00" },
      other: mode === "solo"
        ? { seat: 1, name: "Dealer", dealer: true, stack: 1000, with_5: "1000.00", connected: true }
        : { seat: 1, name: "grace", dealer: false, stack: 1000, with_5: "1000.00", connected: true },
    },
    deal: noDeal ? null : {
      number: 1, stake: 20, revealed: false, commitment: "c0ffee", other: { locked: mode === "solo" },
      you: { cards: SEVEN, locked: false, front: null, back: null, foul_confirmed: false, guide: GUIDE.guide, ...you },
      ...deal,
    },
    session: null,
  };
}

const betting = (over = {}) => frame({ noDeal: true, table: { status: "betting", deals: 0, last_stake: null }, ...over });

function revealed({ mine = {}, theirs = {}, mode = "solo", number = 1 } = {}) {
  const result = (over) => ({
    front_name: "Pair of eights", back_name: "Pair of aces", front_result: "win", back_result: "win",
    result: "win", foul: false, score: 1, skill: 0, luck: null, ...over,
  });
  return frame({
    mode,
    table: { status: "betting" },
    you: { locked: true, front: ["8d", "8c"], back: ["As", "Ks", "Ah", "7h", "4d"] },
    deal: {
      number,
      revealed: true,
      other: { locked: true, cards: SEVEN, front: ["Ks", "7h"], back: ["As", "Ah", "8d", "8c", "4d"] },
      results: {
        you: result(mine),
        other: result({ result: "loss", front_name: "King-seven", back_name: "Ace high", front_result: "loss", back_result: "loss", ...theirs }),
      },
    },
  });
}

/** The walkthrough through these frames, in order (as the page observes them). */
const through = (...frames) => frames.reduce((p, f) => walk.observe(p, f), walk.freshProgress());

const text = (shown) => shown.lines.join(" ");

describe("before the deal", () => {
  test("the first step says what the stake is and points at it", () => {
    const state = betting();
    const shown = walk.step(state, through(state));
    assert.equal(shown.id, "stake");
    assert.equal(shown.target, "stake");
    assert.equal(shown.next, null); // Deal moves it on
    assert.match(text(shown), /win adds the stake/);
    assert.match(text(shown), /press Deal/);
  });

  test("a friend table waiting for the friend points at the invite first", () => {
    const state = frame({ mode: "friend", noDeal: true, table: { status: "waiting" } });
    assert.equal(walk.step(state, through(state)).id, "invite");
  });

  test("at a friend table the stake is proposed and accepted", () => {
    const state = betting({ mode: "friend" });
    const words = text(walk.step(state, through(state)));
    assert.match(words, /Propose a stake/);
    // Accepting deals at once (table.mjs, dealsAfter): no Deal to press after it.
    assert.match(words, /dealt as soon as a stake is accepted/);
    assert.doesNotMatch(words, /presses Deal/);
  });

  test("a deal revealed before the walkthrough began waits for the next deal", () => {
    const old = revealed({ number: 4 });
    const shown = walk.step(old, through(old));
    assert.equal(shown.id, "stake");
  });
});

describe("while the cards are set", () => {
  const state = frame();

  test("the steps follow with Next: front and back, the foul, the house way, then Lock", () => {
    let progress = through(betting(), state);
    const ids = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(walk.step(state, progress).id);
      progress = walk.advanced(progress, state);
    }
    assert.deepEqual(ids, ["cards", "foul", "house", "lock", "lock"]);
    assert.equal(walk.step(state, progress).next, null); // Lock itself moves it on
    assert.equal(walk.step(state, progress).target, "lock");
  });

  test("the foul step uses the guide's own reason for these cards", () => {
    const progress = walk.advanced(through(state), state);
    const shown = walk.step(state, progress);
    assert.equal(shown.id, "foul");
    assert.match(text(shown), /back must rank at least as high as your front/);
    assert.ok(text(shown).includes("Your front, a pair of aces, beats your back, a pair of eights."));
  });

  test("the house way step names the guide's house way and its reason", () => {
    let progress = through(state);
    progress = walk.advanced(walk.advanced(progress, state), state);
    const shown = walk.step(state, progress);
    assert.equal(shown.id, "house");
    assert.equal(shown.target, "house-way");
    assert.match(text(shown), /House way sets pair of eights in front and pair of aces behind/);
    // The row in words, as the rules page names it; the id stays in the API.
    assert.ok(text(shown).includes("(Two pair, split): Split the two pairs"));
    assert.ok(!text(shown).includes("two-pair-split"));
  });

  test("cards that cannot foul say so", () => {
    const safe = { ...GUIDE.guide, settings: GUIDE.guide.settings.map(({ foul_reason: _, ...row }) => row) };
    const noFoul = frame({ you: { guide: safe } });
    assert.equal(walk.foulExample(noFoul), null);
    const shown = walk.step(noFoul, walk.advanced(through(noFoul), noFoul));
    assert.match(text(shown), /None of the ways/);
  });

  test("a reload mid-deal starts the deal's steps again, and a lock skips the rest", () => {
    const progress = through(state);
    assert.equal(walk.step(state, progress).id, "cards");
    const locked = frame({ mode: "friend", you: { locked: true, front: ["8d", "8c"], back: SEVEN.slice(2) } });
    assert.equal(walk.step(locked, walk.observe(progress, locked)).id, "locked");
  });
});

describe("after the reveal", () => {
  test("it says front against front, back against back and the result, then finishes", () => {
    const shown = walk.step(revealed(), through(betting(), frame(), revealed()));
    assert.equal(shown.id, "reveal");
    assert.equal(shown.finish, true);
    assert.equal(shown.next, "Finish the walkthrough");
    assert.deepEqual(shown.lines.slice(0, 2), [
      "Front: your pair of eights against the dealer's king-seven: win.",
      "Back: your pair of aces against the dealer's ace high: win.",
    ]);
    assert.match(text(shown), /Win: you won both parts, \+20 chips\./);
    assert.match(text(shown), /Decision skill 0/);
  });

  test("a copy goes to the dealer in solo and ties with a friend", () => {
    const copy = { back_result: "copy", result: "push" };
    const soloShown = walk.step(revealed({ mine: copy }), through(frame(), revealed({ mine: copy })));
    assert.match(text(soloShown), /back: .*copy \(to the dealer\)/i);
    assert.match(text(soloShown), /in solo it goes to the dealer/);
    assert.match(text(soloShown), /Push: the parts were split, no chips change hands/);
    const friendReveal = revealed({ mine: copy, mode: "friend" });
    const friendShown = walk.step(friendReveal, through(frame({ mode: "friend" }), friendReveal));
    assert.match(text(friendShown), /against grace's/);
    assert.match(text(friendShown), /with a friend it ties/);
  });

  test("a foul is named as what decided it", () => {
    const foul = { foul: true, result: "loss", front_result: "win", back_result: "loss" };
    const state = revealed({ mine: foul });
    const shown = walk.step(state, through(frame(), state));
    assert.match(text(shown), /Your setting fouled/);
    assert.match(text(shown), /Loss: a foul decided it, −20 chips\./);
    // The fouled setting's front "won" its comparison, but no part is called a win.
    assert.doesNotMatch(text(shown), /: win\./);
    assert.match(text(shown), /Front: .*: not played, a foul decides the deal\./);
  });

  test("the next deal after the explained reveal ends it as done", () => {
    const progress = through(frame(), revealed(), frame({ deal: { number: 2 } }));
    assert.equal(progress.ended, "done");
    assert.equal(walk.step(frame({ deal: { number: 2 } }), progress), null);
  });

  test("the reveal is still explained while the next stake is chosen", () => {
    const progress = through(frame(), revealed(), revealed());
    assert.equal(walk.step(revealed(), progress).id, "reveal");
    assert.equal(progress.ended, null);
  });
});

describe("the end", () => {
  test("skipped or done, it shows nothing more", () => {
    const state = frame();
    for (const outcome of ["skipped", "done"]) {
      const progress = walk.ended(through(state), outcome);
      assert.equal(walk.step(state, progress), null);
      assert.equal(walk.observe(progress, revealed()).ended, outcome);
    }
  });

  test("a finished table with nothing followed shows nothing", () => {
    const state = betting({ table: { status: "finished" } });
    assert.equal(walk.step(state, through(state)), null);
  });
});
