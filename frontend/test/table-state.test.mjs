// What the table page shows, from state frames shaped as docs/protocol.md says.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { LUCK_SAMPLES } from "../src/js/rules.mjs";
import * as shows from "../src/js/table-state.mjs";

const SEVEN = ["As", "Ah", "8d", "8c", "Ks", "7h", "4d"];
// Guides as the engine makes them (games.engine.guide_view; tests/engine/test_guide.py keeps them so).
const FIXTURE = JSON.parse(readFileSync(new URL("./guide-fixture.json", import.meta.url)));
const [GUIDE, LOCKED_GUIDE, KICKER, NO_PAIR] = FIXTURE.hands;

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
      you: { cards: SEVEN, locked: false, front: null, back: null, foul_confirmed: false, guide: GUIDE.guide, ...you },
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

  test("a new selection forgets the server's foul sentence and the lock attempt", () => {
    const state = frame();
    const tried = { ...picked(state, "As", "Ah"), lockTried: true, serverFoul: "Too strong." };
    const next = shows.toggled(tried, state, "8d");
    assert.deepEqual([next.lockTried, next.serverFoul], [false, ""]);
  });

  test("cards do not move once locked", () => {
    const state = frame({ you: { locked: true, front: ["As", "Ah"], back: SEVEN.slice(2) } });
    const choices = shows.freshChoices(3);
    assert.equal(shows.toggled(choices, state, "8d"), choices);
    assert.equal(shows.choosing(state), false);
  });

  test("the house way comes with the frame: it picks its front and shows its reason", () => {
    const state = frame();
    const house = shows.houseWay(state);
    assert.equal(house, GUIDE.guide.house_way);
    const choices = shows.withHouseWay(picked(state, "Ks"), house);
    assert.deepEqual(choices.selected, ["8d", "8c"]);
    assert.equal(shows.houseReason(state, choices),
      "House way (two pair, split): Split the two pairs: the higher pair in back, the lower pair in front.");
    assert.deepEqual(shows.currentSetting(state, choices), { front: ["8d", "8c"], back: ["As", "Ah", "Ks", "7h", "4d"] });
    assert.equal(shows.houseWay(frame({ you: { guide: undefined } })), null, "no guide: no House way");
    assert.equal(shows.houseWay(frame({ you: { locked: true, front: ["Ks", "7h"], guide: LOCKED_GUIDE.guide } })), null);
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
  test("the alert: the error first, then the guide's foul of a full selection; Lock anyway after a try", () => {
    const state = frame();
    const choices = picked(state, "As", "Ah");
    assert.deepEqual(shows.alert(state, choices), {
      text: "Foul: Your front, a pair of aces, beats your back, a pair of eights. A foul loses the deal: choose another setting, or lock anyway.",
      shown: true, foul: true, lockAnyway: false,
    });
    assert.equal(shows.alert(state, { ...choices, lockTried: true }).lockAnyway, true);
    assert.equal(shows.alert(state, { ...choices, error: "Oops." }).text.startsWith("Oops. Foul: Your front"), true);
    assert.deepEqual(shows.alert(state, picked(state, "As")), { text: "", shown: false, foul: false, lockAnyway: false });
    assert.equal(shows.alert(state, picked(state, "8d", "8c")).shown, false, "the house way is no foul");
  });

  test("a foul refused by the server is said once (issue #19)", () => {
    const detail = "Your front, a pair of aces, beats your back, a pair of eights. A foul loses: choose another setting, or lock anyway.";
    const choices = { ...picked(frame(), "As", "Ah"), serverFoul: detail, lockTried: true };
    for (const state of [frame(), frame({ you: { guide: undefined } })]) {
      const { text, lockAnyway } = shows.alert(state, choices);
      assert.equal(text.match(/A foul loses/g).length, 1, text);
      assert.equal(text.match(/beats your back/g).length, 1, text);
      assert.equal(lockAnyway, true);
    }
    assert.equal(shows.alert(frame({ you: { guide: undefined } }), choices).text, `Foul: ${detail}`);
  });

  test("the labels: how many to pick, then the guide's names from the first frame", () => {
    const state = frame();
    assert.deepEqual(shows.labels(state, picked(state, "As")),
      { front: "Front: pick 1 more card", back: "Back: the other five cards" });
    assert.equal(shows.labels(state, shows.freshChoices(3)).front, "Front: pick 2 more cards");
    assert.deepEqual(shows.labels(state, picked(state, "As", "Ah")),
      { front: "Front: pair of aces", back: "Back: pair of eights" });
    assert.deepEqual(shows.labels(state, picked(state, "Ks", "4d")),
      { front: "Front: king-four", back: "Back: two pair, aces and eights" });
    const bare = frame({ you: { guide: undefined } });
    assert.equal(shows.labels(bare, picked(bare, "As", "Ah")).front, "Front: Ace of spades and Ace of hearts");
  });

  test("a fouled back has one name: the label says the warning's (issue #45)", () => {
    const state = frame({ you: { cards: NO_PAIR.cards, guide: NO_PAIR.guide } });
    const choices = picked(state, "As", "Kd");
    const { text } = shows.alert(state, choices);
    assert.match(text, /beats your back, ten-eight high\./);
    assert.deepEqual(shows.labels(state, choices), { front: "Front: ace-king", back: "Back: ten-eight high" });
    assert.equal(shows.labels(state, picked(state, "8c", "6s")).back, "Back: ace high", "no foul: the plain name");
  });

  test("every one of the 21 fronts has its names and foul check in the guide", () => {
    const state = frame();
    for (let i = 0; i < 7; i += 1) {
      for (let j = i + 1; j < 7; j += 1) {
        const choices = picked(state, SEVEN[i], SEVEN[j]);
        assert.ok(shows.guidedSetting(state, choices), `${SEVEN[i]} ${SEVEN[j]}`);
        assert.doesNotMatch(shows.labels(state, choices).front, /of (spades|hearts)/);
      }
    }
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
    assert.deepEqual(shows.otherStatus(revealed({ mode: "friend" })), ["waiting", "Waiting for a stake"]);
  });

  test("the friend's badge says who waits for whom between deals", () => {
    const friend = (table) => shows.otherStatus(frame({ table: { mode: "friend", status: "betting", ...table }, noDeal: true }));
    assert.deepEqual(friend({ proposal: { amount: 20, by: "you", id: 7 } }), ["waiting", "Deciding on your stake of 20"]);
    assert.deepEqual(friend({ proposal: { amount: 20, by: "other", id: 7 } }), ["waiting", "Waiting for your answer"]);
    assert.deepEqual(friend({ stake: 20 }), ["waiting", "Stake 20 agreed"]);
    assert.deepEqual(friend({}), ["waiting", "Waiting for a stake"]);
    for (const table of [{ proposal: { amount: 20, by: "you", id: 7 } }, {}]) {
      assert.doesNotMatch(friend(table)[1], /…|Waiting for you\b/);
    }
  });

  test("a proposal of the last stake has one action: Accept, never Rebet as well", () => {
    const after = (proposal) => {
      const state = revealed({ mode: "friend" });
      state.table.proposal = proposal;
      return shows.betting(state);
    };
    const theirs = after({ amount: 20, by: "other", id: 9 });
    assert.equal(theirs.accept, "Accept stake 20");
    assert.equal(theirs.rebet, null);
    assert.equal(after({ amount: 20, by: "you", id: 9 }).rebet, null, "my own proposal of 20 is awaited, not re-proposed");
    const other = after({ amount: 35, by: "other", id: 9 });
    assert.deepEqual([other.accept, other.rebet], ["Accept stake 35", "Rebet 20"]);
    assert.equal(after(null).rebet, "Rebet 20");
  });

  test("the result after the reveal, copies in words of the mode", () => {
    assert.equal(shows.result(frame()), null);
    assert.deepEqual(shows.result(revealed()), {
      result: "win",
      headline: "Win",
      parts: "Front: win, pair of aces against king high. Back: copy (to the dealer), two pair, kings and queens against two pair, kings and queens.",
      money: "Stake 20: +20 chips. Decision skill 0.",
    });
    assert.match(shows.result(revealed({ mode: "friend" })).parts, /copy \(a tie\)/);
    const lost = shows.result(revealed({ mine: { result: "loss", foul: true, skill: -1.5 }, mode: "friend" }));
    assert.equal(lost.headline, "Loss: your setting fouled");
    assert.equal(lost.money, "Stake 20: −20 chips. Decision skill −1.5.");
    assert.deepEqual(shows.settingRows(revealed(), "other")[0], { label: "Front", cards: ["Ks", "7h"], extra: "king high (win)" });
  });

  test("a foul loses the whole bet: no part of a fouled deal is called a win (issue #45)", () => {
    const state = revealed({ mine: { result: "loss", foul: true, skill: -1.5 } });
    const lost = shows.result(state);
    assert.equal(lost.headline, "Loss: your setting fouled");
    assert.match(lost.parts, /A foul loses the whole bet/);
    assert.doesNotMatch(lost.parts, /\b(win|loss|copy)\b/);
    for (const seat of ["you", "other"]) {
      for (const row of shows.settingRows(state, seat)) assert.doesNotMatch(row.extra, /\((win|loss|copy)/, row.extra);
    }
    const won = shows.result(revealed({ theirs: { foul: true } }));
    assert.match(won.parts, /The other side fouled: a foul loses the whole bet/);
    assert.match(shows.result(revealed({ mine: { foul: true, result: "push" }, theirs: { foul: true } })).parts, /Both settings fouled: a push/);
  });

  test("the result names the kicker the server names when both backs have one name", () => {
    const words = shows.result(revealed({
      mine: { back_name: "Pair of nines", back_words: "pair of nines, king kicker", back_result: "win" },
      theirs: { back_name: "Pair of nines", back_words: "pair of nines, seven kicker" },
    }));
    assert.match(words.parts, /Back: win, pair of nines, king kicker against pair of nines, seven kicker\./);
  });

  test("luck: stored, asked once, waiting for the engine; the other seat's only once it passed", () => {
    assert.deepEqual(shows.luck(frame(), shows.freshChoices(3), true), { text: "" });
    const state = revealed();
    assert.deepEqual(shows.luck(state, shows.freshChoices(3), true), { ask: true, text: `Luck: simulating ${LUCK_SAMPLES} opponents…` });
    assert.equal(shows.luck(state, { ...shows.freshChoices(3), luckAsked: true }, true), null);
    assert.deepEqual(shows.luck(state, shows.freshChoices(3), false), { text: "Luck: waiting for the engine…" });
    assert.deepEqual(shows.luck(state, shows.freshChoices(3), "loading"), { text: "Luck: waiting for the engine…" });
    assert.equal(shows.luck(state, shows.freshChoices(3), "ready").ask, true);
    assert.deepEqual(shows.luck(state, shows.freshChoices(3), "failed"), { text: "Luck: not computed yet." },
      "the engine note says why, once");
    const stored = revealed({ mine: { luck: "Luck 7.4 (6.9–7.9)" }, theirs: { luck: "Luck 5.0 (4.5–5.5)", luck_check: "passed" } });
    assert.deepEqual(shows.luck(stored, shows.freshChoices(3), true), { text: "Your hand: Luck 7.4 (6.9–7.9) · Dealer: Luck 5.0 (4.5–5.5)", mark: "stored" });
    const checking = revealed({ theirs: { luck: null, luck_check: "checking" } });
    assert.deepEqual(shows.computedLuck(checking, { label: "Luck 6.0 (5.1–6.9)" }), { text: "Your hand: Luck 6.0 (5.1–6.9) · Dealer: luck being checked", mark: "computed" });
    assert.equal(shows.otherLuckText(revealed({ theirs: { luck: "Luck 1.0 (0.5–1.5)", luck_check: null } })), "");
  });

  test("the session line", () => {
    assert.equal(shows.sessionText(frame()), "No hands revealed yet.");
    assert.equal(shows.sessionText(frame({ session: { hands: 1, luck_count: 1, luck_average: "6.1", skill_total: 0, skill_mean: 0 } })),
      "Luck average 6.1 on the 1–10 scale (1 estimate) · Skill total 0 over 1 hand (mean 0.00 per hand)");
    assert.equal(shows.sessionText(frame({ session: { hands: 3, luck_count: 0, luck_average: null, skill_total: 0.5, skill_mean: 0.1667 } })),
      "Luck average: none yet · Skill total +0.5 over 3 hands (mean +0.17 per hand)");
  });

  test("the coach against the house way, from the frame's guide", () => {
    const state = frame();
    assert.deepEqual(shows.coachLines(state, picked(state, "As")), [[shows.COACH_PICK, ""]]);
    assert.deepEqual(shows.coachLines(state, picked(state, "8c", "8d")),
      [["Your setting is the house way: pair of eights in front, pair of aces behind.", "coach-same"]]);
    const lines = shows.coachLines(state, picked(state, "As", "Ah"));
    assert.deepEqual(lines.map(([text]) => text), [
      "The house way sets pair of eights in front and pair of aces behind (two pair, split).",
      "Your front gains: pair of aces beats the house way's pair of eights.",
      "Your back gives up: pair of eights instead of pair of aces.",
      "This setting is a foul: it loses whatever the other side holds.",
    ]);
    assert.equal(lines.at(-1)[1], "coach-foul");
    assert.deepEqual(shows.coachLines(frame({ you: { guide: undefined } }), picked(state, "As", "Ah")), []);
  });

  test("the coach names the kicker when only a kicker differs (issue #19)", () => {
    const state = frame({ you: { cards: KICKER.cards, guide: KICKER.guide } });
    const lines = shows.coachLines(state, picked(state, "Qd", "7c")).map(([text]) => text);
    assert.equal(lines[2], "Your back gains: pair of nines, king kicker instead of pair of nines, seven kicker.");
    for (let i = 0; i < 7; i += 1) {
      for (let j = i + 1; j < 7; j += 1) {
        const back = shows.coachLines(state, picked(state, KICKER.cards[i], KICKER.cards[j]))[2]?.[0] ?? "";
        const said = back.match(/^Your back (?:gains|gives up): (.+) instead of (.+)\.$/);
        if (said) assert.notEqual(said[1], said[2], back);
      }
    }
  });

  test("after the lock the coach compares the locked setting", () => {
    const state = frame({ you: { locked: true, front: ["Ks", "7h"], back: ["As", "Ah", "8d", "8c", "4d"], guide: LOCKED_GUIDE.guide } });
    const lines = shows.coachLines(state, shows.freshChoices(3)).map(([text]) => text);
    assert.equal(lines[1], "Your front gives up strength: king-seven against the house way's pair of eights.");
    assert.equal(lines[2], "Your back gains: two pair, aces and eights instead of pair of aces.");
  });

  test("the explorer opens only after the lock", () => {
    const state = frame({ you: { locked: true, front: ["8d", "8c"], back: ["As", "Ah", "Ks", "7h", "4d"] } });
    assert.equal(shows.explorerOpen(state), true);
    assert.equal(shows.explorerOpen(frame()), false);
  });

  test("the invite box's sentence: the link's lifetime, a new link, a withdrawn one", () => {
    const when = (iso) => `<${iso}>`;
    const open = { shown: true, url: "https://x/invite/#t", expires: "2025-05-02T10:00:00+00:00" };
    assert.equal(shows.inviteNote(open, {}, when), "The link works once, until <2025-05-02T10:00:00+00:00>.");
    assert.equal(shows.inviteNote(open, { made: true }, when),
      "New link made: the previous one no longer works. The link works once, until <2025-05-02T10:00:00+00:00>.");
    const none = { shown: true, url: null, expires: null };
    assert.equal(shows.inviteNote(none, { withdrawn: true }, when),
      "Link withdrawn: it no longer seats anyone. Make a new link to invite a friend.");
    assert.equal(shows.inviteNote(none, {}, when), "No open link: it expired or was withdrawn. Make a new link to invite a friend.");
  });

  test("focus follows the deal: the cards, the locked setting, the result; never on a reload", () => {
    const dealt = frame({ table: { status: "playing" } });
    const locked = frame({ you: { locked: true, front: ["As", "Ah"], back: SEVEN.slice(2) }, deal: { other: { locked: false } } });
    assert.deepEqual([shows.phase(frame({ noDeal: true })), shows.phase(dealt), shows.phase(locked), shows.phase(revealed())],
      ["", "3 choosing", "3 locked", "3 revealed"]);
    assert.equal(shows.focusAfter("", "3 choosing"), "cards");
    assert.equal(shows.focusAfter("2 revealed", "3 choosing"), "cards");
    assert.equal(shows.focusAfter("3 choosing", "3 locked"), "locked");
    assert.equal(shows.focusAfter("3 choosing", "3 revealed"), "result");
    assert.equal(shows.focusAfter("3 locked", "3 revealed"), "result");
    assert.equal(shows.focusAfter("3 choosing", "3 choosing"), null, "a resent frame moves nothing");
    assert.equal(shows.focusAfter(null, "3 revealed"), null, "a page opened mid-table moves nothing");
    assert.equal(shows.focusAfter("3 revealed", ""), null);
  });

  test("a revealed deal links to its replay and its shuffle proof", () => {
    const state = revealed();
    state.deal.links = { replay: "/history/deals/41/", verify: "/tables/12/deals/3/verify/" };
    assert.deepEqual(shows.dealLinks(state), [
      { href: "/history/deals/41/", text: "Replay deal 3" },
      { href: "/tables/12/deals/3/verify/", text: "Check the shuffle" },
    ]);
    assert.deepEqual(shows.dealLinks(frame()), []);
  });

  test("connection, what waits, controls, commitment and the invite", () => {
    const link = (status, more = {}) => ({ ...shows.freshLink(), status, ...more });
    assert.deepEqual(shows.connectionLine(frame(), link("live")), { text: "Connected", down: false });
    assert.deepEqual(shows.connectionLine(frame(), link("live", { back: true })), { text: "Connected again.", down: false });
    assert.deepEqual(shows.connectionLine(frame(), shows.freshLink()), { text: "Connecting…", down: false });
    assert.deepEqual(shows.connectionLine(frame(), link("lost")), { text: "Connection lost: reconnecting…", down: true });
    assert.match(shows.connectionLine(frame(), link("offline")).text, /^You are offline/);
    assert.deepEqual(shows.connectionLine(frame({ table: { status: "waiting" } }), link("live")), { text: "Waiting for your friend to join this table.", down: false });
    assert.deepEqual(shows.connectionLine(frame({ table: { status: "waiting" } }), link("lost")).down, true, "a drop is said first");
    const state = frame();
    // A press while the table cannot be reached waits for it; then nothing else is pressed.
    assert.deepEqual(shows.controls(state, picked(state, "As"), shows.freshLink()), { sending: false, lock: true });
    assert.deepEqual(shows.controls(state, picked(state, "As", "Ah"), link("lost")), { sending: false, lock: false });
    assert.deepEqual(shows.controls(state, picked(state, "As", "Ah"), link("lost", { waiting: ["Lock"] })), { sending: true, lock: true });
    assert.deepEqual(shows.controls(state, picked(state, "As", "Ah"), link("live", { waiting: ["Lock"] })), { sending: false, lock: false });
    assert.deepEqual(shows.controls(state, picked(state, "As", "Ah"), link("signed_out")), { sending: true, lock: true });
    assert.deepEqual(shows.controls(state, picked(state, "As"), link("live")), { sending: false, lock: true });
    assert.deepEqual(shows.controls(state, picked(state, "As", "Ah"), link("live")), { sending: false, lock: false });
    assert.deepEqual(shows.controls(revealed(), shows.freshChoices(3), link("live")), { sending: false, lock: null });
    assert.equal(shows.waitingText(link("lost", { waiting: ["Lock"] })), "Lock will be sent when you are back.");
    assert.equal(shows.waitingText(link("offline", { waiting: ["Lock", "Lock"] })), "Lock will be sent when you are back.");
    assert.equal(shows.waitingText(link("connecting", { waiting: ["Deal"] })), "Deal will be sent as soon as the table is connected.");
    assert.equal(shows.waitingText(link("live", { waiting: ["Lock"] })), "", "sent: in flight, not waiting");
    assert.equal(shows.waitingText(link("no_seat", { waiting: ["Lock"] })), "");
    assert.equal(shows.commitmentText(state), "Deal 3 · stake 20 · deck commitment c0ffee");
    assert.equal(shows.commitmentText(frame({ noDeal: true })), "");
    const waiting = frame({ table: { mode: "friend", status: "waiting", invite: { url: "/invite/#tok", expires_at: "2025-05-02T10:00:00+00:00" } }, noDeal: true });
    assert.deepEqual(shows.invite(waiting, "https://lab.example/tables/12/"), { shown: true, url: "https://lab.example/invite/#tok", expires: "2025-05-02T10:00:00+00:00" });
    assert.equal(shows.invite({ ...waiting, seats: { ...waiting.seats, you: { ...waiting.seats.you, seat: 1 } } }, "https://x/").shown, false);
  });

  test("small words: signed numbers, card shorthand", () => {
    assert.deepEqual([1.5, -2, 0, null, 3].map(shows.signed), ["+1.5", "−2", "0", "–", "+3"]);
    // Two decimals for a mean, with the same minus sign (U+2212) as the pages.
    assert.deepEqual([-0.09, 0.5, 0, -0.001].map((v) => shows.signed(v, { digits: 2 })), ["−0.09", "+0.50", "0.00", "0.00"]);
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
