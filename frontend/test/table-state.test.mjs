// What the table page shows, from state frames shaped as docs/protocol.md says.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { LUCK_SAMPLES } from "../src/js/rules.mjs";
import * as shows from "../src/js/table-state.mjs";

const SEVEN = ["As", "Ah", "8d", "8c", "Ks", "7h", "4d"];

/** A state frame: a solo table, deal 3 being set, with overrides. */
function frame({ table = {}, seats = {}, deal = {}, you = {}, session = null, noDeal = false } = {}) {
  return {
    table: { id: 12, version: 14, mode: "solo", status: "playing", stake: null, proposal: null, last_stake: 20, max_stake: 980, deals: 3, invite: null, ...table },
    seats: {
      you: { seat: 0, name: "ada", dealer: false, stack: 1020, with_5: "1019.00" },
      other: { seat: 1, name: "Dealer", dealer: true, stack: 980, with_5: "980.00", connected: true },
      ...seats,
    },
    deal: noDeal ? null : {
      number: 3, stake: 20, revealed: false, commitment: "c0ffee", other: { locked: true },
      names: { As: "Ace of spades", Ah: "Ace of hearts" },
      you: { cards: SEVEN, locked: false, front: null, back: null, foul_confirmed: false, ...you },
      ...deal,
    },
    session,
  };
}

function revealed({ mine = {}, theirs = {}, mode = "solo" } = {}) {
  const result = (over) => ({
    front_name: "Pair of aces", back_name: "Two pair, kings and queens", front_result: "win", back_result: "copy",
    result: "win", foul: false, score: 1, skill: 0, luck: null, ...over,
  });
  return frame({
    table: { mode, status: "betting" },
    you: { locked: true, front: ["As", "Ah"], back: SEVEN.slice(2) },
    deal: {
      revealed: true,
      other: { locked: true, cards: SEVEN, front: ["Ks", "7h"], back: ["As", "Ah", "8d", "8c", "4d"] },
      results: { you: result(mine), other: result({ result: "loss", front_name: "King high", ...theirs }) },
    },
  });
}

const picked = (state, ...cards) => cards.reduce((c, code) => shows.toggled(c, state, code), shows.forDeal(shows.freshChoices(), state));

describe("choices", () => {
  test("a new deal starts afresh; the same deal keeps the choices", () => {
    const state = frame();
    const choices = picked(state, "As", "Ah");
    assert.equal(shows.forDeal(choices, state), choices);
    const next = shows.forDeal(choices, frame({ deal: { number: 4 } }));
    assert.deepEqual(next, shows.freshChoices(4));
    assert.equal(shows.forDeal(choices, frame({ noDeal: true })), choices);
  });

  test("a third card replaces the first; a picked card unpicks", () => {
    const state = frame();
    assert.deepEqual(picked(state, "As", "Ah").selected, ["As", "Ah"]);
    assert.deepEqual(picked(state, "As", "Ah", "8d").selected, ["Ah", "8d"]);
    assert.deepEqual(picked(state, "As", "Ah", "As").selected, ["Ah"]);
  });

  test("a new selection forgets the foul sentences and the lock attempt", () => {
    const state = frame();
    const tried = { ...picked(state, "As", "Ah"), lockTried: true, foul: "Too strong.", serverFoul: "Too strong." };
    const next = shows.toggled(tried, state, "8d");
    assert.deepEqual([next.lockTried, next.foul, next.serverFoul], [false, null, ""]);
  });

  test("cards do not move once locked", () => {
    const state = frame({ you: { locked: true, front: ["As", "Ah"], back: SEVEN.slice(2) } });
    const choices = shows.freshChoices(3);
    assert.equal(shows.toggled(choices, state, "8d"), choices);
    assert.equal(shows.choosing(state), false);
  });

  test("the house way picks its front and shows its reason", () => {
    const state = frame();
    const detail = { front: "8d 8c", back: "As Ah Ks 7h 4d", row: "two-pair", reason: "Split the pairs." };
    const choices = shows.withHouseWay(picked(state, "Ks"), detail);
    assert.deepEqual(choices.selected, ["8d", "8c"]);
    assert.equal(shows.houseReason(state, choices), "House way (two-pair): Split the pairs.");
    assert.deepEqual(shows.currentSetting(state, choices), { front: ["8d", "8c"], back: ["As", "Ah", "Ks", "7h", "4d"] });
  });

  test("the setting in view is the locked one after the lock", () => {
    const state = frame({ you: { locked: true, front: ["Ks", "7h"], back: ["As", "Ah", "8d", "8c", "4d"] } });
    assert.deepEqual(shows.currentSetting(state, shows.freshChoices(3)).front, ["Ks", "7h"]);
    assert.equal(shows.currentSetting(frame(), picked(frame(), "As")), null);
  });
});

describe("the one guard against stale engine answers", () => {
  test("an answer about the setting is stale once the selection changes", () => {
    const state = frame();
    const choices = picked(state, "As", "Ah");
    const asked = shows.question(state, choices, "setting");
    assert.ok(shows.stillAsked(asked, state, { ...choices, foul: "x" }), "a foul sentence is not a new question");
    assert.ok(!shows.stillAsked(asked, state, shows.toggled(choices, state, "8d")));
    const locked = frame({ you: { locked: true, front: ["As", "Ah"], back: SEVEN.slice(2) } });
    assert.ok(!shows.stillAsked(asked, locked, choices), "the locked setting is another view");
  });

  test("an answer about the deal survives the selection and stops with the deal", () => {
    const state = frame();
    const asked = shows.question(state, picked(state, "As"), "deal");
    assert.ok(shows.stillAsked(asked, state, picked(state, "8d", "8c")));
    assert.ok(shows.stillAsked(asked, revealed(), shows.freshChoices(3)), "the reveal of the same deal");
    assert.ok(!shows.stillAsked(asked, frame({ deal: { number: 4 } }), shows.freshChoices(4)));
    assert.ok(!shows.stillAsked(asked, frame({ noDeal: true }), shows.freshChoices()));
  });

  test("nothing is asked without a deal", () => {
    const state = frame({ noDeal: true });
    assert.equal(shows.question(state, shows.freshChoices()), null);
    assert.ok(!shows.stillAsked(null, state, shows.freshChoices()));
  });
});

describe("what the page shows", () => {
  test("the alert: the error first, then the foul of a full selection; Lock anyway after a try", () => {
    const state = frame();
    const choices = { ...picked(state, "As", "Ah"), foul: "Your front beats your back." };
    assert.deepEqual(shows.alert(state, choices), {
      text: "Foul: Your front beats your back. A foul loses the deal: choose another setting, or lock anyway.",
      shown: true, foul: true, lockAnyway: false,
    });
    assert.equal(shows.alert(state, { ...choices, lockTried: true }).lockAnyway, true);
    const server = { ...picked(state, "As", "Ah"), serverFoul: "From the server.", error: "Oops." };
    assert.equal(shows.alert(state, server).text, "Oops. Foul: From the server. A foul loses the deal: choose another setting, or lock anyway.");
    assert.deepEqual(shows.alert(state, { ...picked(state, "As"), foul: "x" }), { text: "", shown: false, foul: false, lockAnyway: false });
  });

  test("the labels: how many to pick, the card names without the engine, else the engine's", () => {
    const state = frame();
    assert.deepEqual(shows.labels(state, picked(state, "As"), { engineReady: true }),
      { front: "Front: pick 1 more card", back: "Back: the other five cards" });
    assert.equal(shows.labels(state, shows.freshChoices(3), { engineReady: true }).front, "Front: pick 2 more cards");
    assert.equal(shows.labels(state, picked(state, "As", "Ah"), { engineReady: false }).front, "Front: Ace of spades and Ace of hearts");
    assert.equal(shows.labels(state, picked(state, "As", "Ah"), { engineReady: true }), null);
    const described = { front_name: "Pair of aces", back_name: "Pair of eights" };
    assert.deepEqual(shows.labels(state, picked(state, "As", "Ah"), { engineReady: true, described }),
      { front: "Front: pair of aces", back: "Back: pair of eights" });
  });

  test("betting: a proposal by either seat, the deal of an agreed stake, the rebet", () => {
    const friend = (table) => frame({ table: { mode: "friend", status: "betting", ...table }, noDeal: true });
    assert.deepEqual(shows.betting(friend({ proposal: { amount: 30, by: "other", id: 7 } })), {
      shown: true, proposal: "Your friend proposes a stake of 30.", accept: "Accept stake 30", deal: null, rebet: null,
    });
    const mine = shows.betting(friend({ proposal: { amount: 30, by: "you", id: 7 } }));
    assert.equal(mine.proposal, "You proposed a stake of 30. Waiting for your friend to accept.");
    assert.equal(mine.accept, null);
    assert.equal(shows.betting(friend({ stake: 30 })).deal, "Deal (stake 30)");
    assert.equal(shows.betting(revealed()).rebet, "Rebet 20");
    const poorer = revealed();
    poorer.table.max_stake = 10;
    assert.equal(shows.betting(poorer).rebet, null);
    assert.equal(shows.betting(frame()).shown, false);
  });

  test("the other seat's badge", () => {
    assert.deepEqual(shows.otherStatus(frame({ table: { mode: "friend", status: "waiting" }, noDeal: true })), ["waiting", "Waiting to join"]);
    assert.deepEqual(shows.otherStatus(frame({ seats: { other: { name: "bob", connected: false } } })), ["away", "Away"]);
    assert.deepEqual(shows.otherStatus(frame()), ["locked", "Locked"]);
    assert.deepEqual(shows.otherStatus(frame({ deal: { other: { locked: false } } })), ["waiting", "Setting cards…"]);
    assert.deepEqual(shows.otherStatus(frame({ table: { status: "betting" }, noDeal: true })), ["waiting", "Waiting for your stake"]);
    assert.deepEqual(shows.otherStatus(revealed({ mode: "friend" })), ["waiting", "Waiting"]);
  });

  test("the result after the reveal, copies in words of the mode", () => {
    assert.equal(shows.result(frame()), null);
    assert.deepEqual(shows.result(revealed()), {
      result: "win",
      headline: "Win",
      parts: "Front: win, pair of aces against king high. Back: copy (to the dealer), two pair, kings and queens against two pair, kings and queens.",
      money: "Stake 20: +20 chips. Decision skill 0.",
    });
    const lost = shows.result(revealed({ mine: { result: "loss", foul: true, skill: -1.5 }, mode: "friend" }));
    assert.equal(lost.headline, "Loss: your setting fouled");
    assert.match(lost.parts, /copy \(a tie\)/);
    assert.equal(lost.money, "Stake 20: −20 chips. Decision skill −1.5.");
    assert.deepEqual(shows.settingRows(revealed(), "other")[0], { label: "Front", cards: ["Ks", "7h"], extra: "king high (win)" });
  });

  test("luck: stored, asked once, waiting for the engine; the other seat's only once it passed", () => {
    assert.deepEqual(shows.luck(frame(), shows.freshChoices(3), true), { text: "" });
    const state = revealed();
    assert.deepEqual(shows.luck(state, shows.freshChoices(3), true), { ask: true, text: `Luck: simulating ${LUCK_SAMPLES} opponents…` });
    assert.equal(shows.luck(state, { ...shows.freshChoices(3), luckAsked: true }, true), null);
    assert.deepEqual(shows.luck(state, shows.freshChoices(3), false), { text: "Luck: waiting for the engine…" });
    const stored = revealed({ mine: { luck: "Luck 7.4 (6.9–7.9)" }, theirs: { luck: "Luck 5.0 (4.5–5.5)", luck_check: "passed" } });
    assert.deepEqual(shows.luck(stored, shows.freshChoices(3), true), { text: "Your hand: Luck 7.4 (6.9–7.9) · Dealer: Luck 5.0 (4.5–5.5)", mark: "stored" });
    const checking = revealed({ theirs: { luck: null, luck_check: "checking" } });
    assert.deepEqual(shows.computedLuck(checking, { label: "Luck 6.0 (5.1–6.9)" }), { text: "Your hand: Luck 6.0 (5.1–6.9) · Dealer: luck being checked", mark: "computed" });
    assert.equal(shows.otherLuckText(revealed({ theirs: { luck: "Luck 1.0 (0.5–1.5)", luck_check: null } })), "");
  });

  test("the session line", () => {
    assert.equal(shows.sessionText(frame()), "No hands revealed yet.");
    assert.equal(shows.sessionText(frame({ session: { hands: 1, luck_count: 1, luck_average: "6.1", skill_total: 0, skill_mean: 0 } })),
      "Luck average 6.1 (1 estimate) · Skill total 0 over 1 hand (mean 0.00 per hand)");
    assert.equal(shows.sessionText(frame({ session: { hands: 3, luck_count: 0, luck_average: null, skill_total: 0.5, skill_mean: 0.1667 } })),
      "Luck average: none yet · Skill total +0.5 over 3 hands (mean +0.17 per hand)");
  });

  test("the coach against the house way", () => {
    const house = { front: "8d 8c", back: "As Ah Ks 7h 4d", front_name: "Pair of eights", back_name: "Pair of aces", row: "two-pair" };
    assert.deepEqual(shows.coachLines(house, null), [["Your setting is the house way: pair of eights in front, pair of aces behind.", "coach-same"]]);
    const lines = shows.coachLines(house, {
      mine: { front_name: "Pair of aces", back_name: "Pair of eights", foul: true }, front: { cmp: 1 }, back: { cmp: -1 },
    });
    assert.deepEqual(lines.map(([text]) => text), [
      "The house way sets pair of eights in front and pair of aces behind (two-pair).",
      "Your front gains: pair of aces beats the house way's pair of eights.",
      "Your back gives up: pair of eights instead of pair of aces.",
      "This setting is a foul: it loses whatever the other side holds.",
    ]);
    assert.equal(lines.at(-1)[1], "coach-foul");
  });

  test("the explorer opens only after the lock", () => {
    const state = frame({ you: { locked: true, front: ["8d", "8c"], back: ["As", "Ah", "Ks", "7h", "4d"] } });
    assert.equal(shows.explorerOpen(state), true);
    assert.equal(shows.explorerOpen(frame()), false);
  });

  test("connection, controls, commitment and the invite", () => {
    assert.equal(shows.connectionText(frame(), true), "Connected");
    assert.equal(shows.connectionText(frame(), false), null);
    assert.equal(shows.connectionText(frame({ table: { status: "waiting" } }), true), "Waiting for your friend to join this table.");
    const state = frame();
    assert.deepEqual(shows.controls(state, picked(state, "As"), false), { sending: true, lock: true });
    assert.deepEqual(shows.controls(state, picked(state, "As"), true), { sending: false, lock: true });
    assert.deepEqual(shows.controls(state, picked(state, "As", "Ah"), true), { sending: false, lock: false });
    assert.deepEqual(shows.controls(revealed(), shows.freshChoices(3), true), { sending: false, lock: null });
    assert.equal(shows.commitmentText(state), "Deal 3 · stake 20 · deck commitment c0ffee");
    assert.equal(shows.commitmentText(frame({ noDeal: true })), "");
    const waiting = frame({ table: { mode: "friend", status: "waiting", invite: { url: "/invite/#tok", expires_at: "2025-05-02T10:00:00+00:00" } }, noDeal: true });
    assert.deepEqual(shows.invite(waiting, "https://lab.example/tables/12/"), { shown: true, url: "https://lab.example/invite/#tok", expires: "2025-05-02T10:00:00+00:00" });
    assert.equal(shows.invite({ ...waiting, seats: { ...waiting.seats, you: { ...waiting.seats.you, seat: 1 } } }, "https://x/").shown, false);
  });

  test("small words: signed numbers, card shorthand", () => {
    assert.deepEqual([1.5, -2, 0, null, 3].map(shows.signed), ["+1.5", "−2", "0", "–", "+3"]);
    assert.deepEqual(["Ts", "Ah", "2d", "Kc", "JK"].map(shows.shortCard), ["10♠", "A♥", "2♦", "K♣", "Joker"]);
    assert.equal(shows.cardName(frame(), "As"), "Ace of spades");
    assert.equal(shows.cardName(frame(), "8d"), "8d");
  });
});

describe("what the page sends and asks", () => {
  test("the engine's luck request draws LUCK_SAMPLES opponents for this seat's side", () => {
    const state = frame();
    assert.deepEqual(shows.luckRequest(state), { op: "luck_detail", cards: SEVEN, mode: "solo", side: "player", samples: LUCK_SAMPLES });
    const dealer = frame({ seats: { you: { seat: 1, name: "ada", dealer: true, stack: 1, with_5: "1.00" } } });
    assert.equal(shows.luckRequest(dealer).side, "dealer");
    assert.deepEqual(shows.luckMessage(3, { wins: 70, pushes: 10, losses: 40, label: "x" }), { type: "luck", deal: 3, wins: 70, pushes: 10, losses: 40 });
  });

  test("a stake is a whole number of chips, at least 1", () => {
    assert.deepEqual(shows.stakeEntry("20"), { amount: 20 });
    for (const text of ["0", "2.5", "", "ten"]) assert.deepEqual(shows.stakeEntry(text), { error: "A stake is a whole number of chips, at least 1." });
  });

  test("an accept and a rebet name what the page shows", () => {
    const shown = frame({ table: { mode: "friend", status: "betting", proposal: { amount: 30, by: "other", id: 7 } }, noDeal: true });
    assert.deepEqual(shows.acceptMessage(shown), { type: "accept_stake", amount: 30, proposal: 7 });
    assert.equal(shows.acceptMessage(frame()), null);
    assert.deepEqual(shows.rebetMessage(shown), { type: "rebet", amount: 20, proposal: 7 });
    const own = frame({ table: { proposal: { amount: 30, by: "you", id: 8 } } });
    assert.equal(JSON.stringify(shows.rebetMessage(own)), '{"type":"rebet","amount":20}');
  });

  test("a lock sends the chosen front and the deal number; Lock anyway confirms the foul", () => {
    const state = frame();
    assert.equal(shows.lockMessage(state, picked(state, "As")), null);
    assert.deepEqual(shows.lockMessage(state, picked(state, "As", "Ah")), { type: "lock", front: ["As", "Ah"], deal: 3 });
    assert.deepEqual(shows.lockMessage(state, picked(state, "As", "Ah"), { confirmFoul: true }),
      { type: "lock", front: ["As", "Ah"], confirm_foul: true, deal: 3 });
  });

  test("which replies deal next", () => {
    const reply = (table) => ({ table: { mode: "solo", status: "betting", stake: null, proposal: null, ...table } });
    assert.equal(shows.dealsAfter("stake", reply({ stake: 20 }), 20), true);
    assert.equal(shows.dealsAfter("stake", reply({ stake: 10 }), 20), false);
    assert.equal(shows.dealsAfter("stake", reply({ mode: "friend", stake: 20 }), 20), false);
    assert.equal(shows.dealsAfter("accept_stake", reply({ mode: "friend", stake: 30 })), true);
    assert.equal(shows.dealsAfter("accept_stake", reply({ mode: "friend", stake: 30, status: "playing" })), false);
    assert.equal(shows.dealsAfter("rebet", reply({ mode: "friend", stake: 20 })), true);
    assert.equal(shows.dealsAfter("rebet", reply({ mode: "friend", stake: null, proposal: { amount: 20, by: "you", id: 9 } })), false);
    assert.equal(shows.dealsAfter("rebet", reply({ stake: 20 })), false, "a solo rebet deals by itself");
  });
});
