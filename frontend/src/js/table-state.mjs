// What the table page shows, as pure functions of the server's state frame
// (docs/protocol.md, "state") and the page's own choices for the deal in view.
// No DOM, no socket, no engine: table-view.mjs draws what these return and
// table.mjs wires them together. Tested by frontend/test/table-state.test.mjs.

import { byRank, SUIT_SYMBOLS } from "./cards.mjs";
import { LUCK_SAMPLES } from "./rules.mjs";

export const WORDS = { win: "Win", push: "Push", loss: "Loss", copy: "Copy", tie: "Tie" };

export const lower = (text) => (text ? text[0].toLowerCase() + text.slice(1) : text);
export const codes = (value) => (Array.isArray(value) ? value : String(value || "").split(/\s+/).filter(Boolean));
export const sameSet = (a, b) => a.length === b.length && a.every((c) => b.includes(c));
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A card's name from the frame ("Ace of spades"), or its code. */
export const cardName = (state, code) => state.deal?.names?.[code] || code;

/** "10♥", "A♠", "Joker": a card in a line of text. */
export function shortCard(code) {
  if (code === "JK") return "Joker";
  return `${code[0] === "T" ? "10" : code[0]}${SUIT_SYMBOLS[code[1]]}`;
}

/** +1.5, −2, 0, or – for none. */
export function signed(value) {
  if (value === null || value === undefined) return "–";
  const text = Number(value).toFixed(Number.isInteger(Number(value)) ? 0 : 1);
  return value > 0 ? `+${text}` : value < 0 ? `−${text.slice(1)}` : text;
}

/** A front or back result in words: a copy goes to the dealer in solo, ties with a friend. */
export function partWord(state, part) {
  if (part === "copy") return state.table.mode === "solo" ? "copy (to the dealer)" : "copy (a tie)";
  return part;
}

// ---------------------------------------------------------------- choices

/** The page's own choices: the cards picked for the front of the deal in
 * view, whether "Lock" was pressed on a foul, the foul sentences (the
 * engine's for the selection, the server's when it refused a lock), the
 * house way shown, whether luck was asked of the engine, and an error sentence. */
export function freshChoices(deal = null) {
  return { deal, selected: [], lockTried: false, foul: null, serverFoul: "", house: null, luckAsked: false, error: "" };
}

/** The choices for the frame's deal: a new deal starts afresh. */
export function forDeal(choices, state) {
  return state.deal && choices.deal !== state.deal.number ? freshChoices(state.deal.number) : choices;
}

/** The seat is setting its cards: a deal not revealed and not locked by it. */
export function choosing(state) {
  const deal = state.deal;
  return Boolean(deal && !deal.revealed && !deal.you.locked);
}

const reselected = (choices, selected) => ({ ...choices, selected, lockTried: false, serverFoul: "", foul: null });

/** A click on a card: in or out of the front; a third card replaces the first. */
export function toggled(choices, state, code) {
  if (!choosing(state)) return choices;
  const { selected } = choices;
  if (selected.includes(code)) return reselected(choices, selected.filter((c) => c !== code));
  if (selected.length < 2) return reselected(choices, [...selected, code]);
  return reselected(choices, [selected[1], code]);
}

/** The house way picked for the front (the engine's house_way_detail). */
export const withHouseWay = (choices, detail) => ({ ...reselected(choices, codes(detail.front)), house: detail });

/** The setting in view: the locked one, or the chosen front and the other five. */
export function currentSetting(state, choices) {
  const deal = state.deal;
  if (!deal) return null;
  if (deal.you.locked || deal.revealed) return deal.you.front ? { front: deal.you.front, back: deal.you.back } : null;
  if (choices.selected.length !== 2) return null;
  return { front: choices.selected, back: deal.you.cards.filter((c) => !choices.selected.includes(c)) };
}

// ---------------------------------------------------------------- stale engine answers

/** What an engine answer is asked for: the deal ("deal"), or the deal and the
 * setting in view ("setting"). The one guard against stale answers: an
 * answer is used only while stillAsked() says its question is the page's. */
export function question(state, choices, about = "deal") {
  const deal = state.deal;
  if (!deal) return null;
  if (about === "deal") return { about, key: String(deal.number) };
  const setting = currentSetting(state, choices);
  return { about, key: `${deal.number}|${choosing(state)}|${setting ? setting.front.join(" ") : ""}` };
}

export function stillAsked(asked, state, choices) {
  if (!asked) return false;
  return question(state, choices, asked.about)?.key === asked.key;
}

// ---------------------------------------------------------------- what the page shows

export const CONNECTION = {
  lost: "Connection lost: reconnecting…",
  reconnecting: "Reconnecting…",
  signed_out: "Signed out: sign in again to play.",
  too_many_sockets: "Too many table pages are open: close one, then reload this page.",
  too_many_messages: "Too many messages too fast: reload this page to play on.",
  no_seat: "You do not have a seat at this table.",
};

/** The connection line once a frame is in (null: leave it as it is). */
export function connectionText(state, live) {
  if (state.table.status === "waiting") return "Waiting for your friend to join this table.";
  return live ? "Connected" : null;
}

/** The buttons that send a message wait for a live socket; Lock also needs two cards. */
export function controls(state, choices, live) {
  const lock = !live ? true : choosing(state) ? choices.selected.length !== 2 : null; // null: unchanged
  return { sending: !live, lock };
}

/** The betting row: each text, or null when hidden. */
export function betting(state) {
  const { table, deal } = state;
  const open = table.status === "betting";
  const proposal = table.proposal;
  let proposalText = null;
  if (proposal) {
    proposalText = proposal.by === "you"
      ? `You proposed a stake of ${proposal.amount}. Waiting for your friend to accept.`
      : `Your friend proposes a stake of ${proposal.amount}.`;
  }
  const rebet = open && deal && deal.revealed && table.last_stake && table.last_stake <= table.max_stake;
  return {
    shown: open,
    proposal: proposalText,
    accept: proposal && proposal.by === "other" && open ? `Accept stake ${proposal.amount}` : null,
    deal: open && table.mode === "friend" && table.stake ? `Deal (stake ${table.stake})` : null,
    rebet: rebet ? `Rebet ${table.last_stake}` : null,
  };
}

/** The host's invite box: shown while the friend's seat is empty. */
export function invite(state, base) {
  const { table, seats } = state;
  const link = table.invite;
  return {
    shown: table.status === "waiting" && seats.you.seat === 0,
    url: link && link.url ? new URL(link.url, base).href : null,
    expires: link && link.url ? link.expires_at || null : null,
  };
}

/** The other seat's badge: [kind, text]. */
export function otherStatus(state) {
  const { table, seats, deal } = state;
  if (table.mode === "friend" && table.status === "waiting") return ["waiting", "Waiting to join"];
  if (seats.other.connected === false) return ["away", "Away"];
  if (deal && !deal.revealed) return deal.other.locked ? ["locked", "Locked"] : ["waiting", "Setting cards…"];
  if (table.status === "betting") {
    if (table.proposal && table.proposal.by === "you") return ["waiting", "Waiting for you… to be accepted"];
    return ["waiting", table.mode === "solo" ? "Waiting for your stake" : "Waiting"];
  }
  return ["", ""];
}

/** A seat's two rows after the lock or the reveal: [{label, cards, extra}]. */
export function settingRows(state, seat) {
  const deal = state.deal;
  const hand = deal[seat];
  const result = deal.revealed ? deal.results[seat] : null;
  const extra = (part) => {
    const handName = lower(hand[`${part}_name`] || result?.[`${part}_name`] || "");
    return `${handName}${result ? ` (${partWord(state, result[`${part}_result`])})` : ""}`;
  };
  return [
    { label: "Front", cards: codes(hand.front), extra: extra("front") },
    { label: "Back", cards: codes(hand.back), extra: extra("back") },
  ];
}

/** The hand labels under the cards while choosing; `described` is the engine's describe answer. */
export function labels(state, choices, { engineReady, described = null }) {
  const setting = currentSetting(state, choices);
  if (!setting) {
    const more = 2 - choices.selected.length;
    return { front: `Front: pick ${plural(more, "more card")}`, back: "Back: the other five cards" };
  }
  if (described) return { front: `Front: ${lower(described.front_name)}`, back: `Back: ${lower(described.back_name)}` };
  if (!engineReady) {
    return { front: `Front: ${setting.front.map((c) => cardName(state, c)).join(" and ")}`, back: "Back: the other five cards" };
  }
  return null; // asked: the answer fills them in
}

/** The house way's reason, once it was picked for this deal. */
export function houseReason(state, choices) {
  return choosing(state) && choices.house ? `House way (${choices.house.row}): ${choices.house.reason}` : null;
}

/** The alert: the error sentence and the foul of the selection. */
export function alert(state, choices) {
  const parts = [];
  if (choices.error) parts.push(choices.error);
  const reason = choosing(state) && choices.selected.length === 2 ? choices.foul || choices.serverFoul || null : null;
  if (reason) parts.push(`Foul: ${reason} A foul loses the deal: choose another setting, or lock anyway.`);
  return { text: parts.join(" "), shown: parts.length > 0, foul: Boolean(reason), lockAnyway: Boolean(reason && choices.lockTried) };
}

/** The result after the reveal, or null. */
export function result(state) {
  const deal = state.deal;
  if (!deal || !deal.revealed) return null;
  const mine = deal.results.you;
  const theirs = deal.results.other;
  const delta = mine.result === "win" ? `+${deal.stake}` : mine.result === "loss" ? `−${deal.stake}` : "±0";
  return {
    result: mine.result,
    headline: `${WORDS[mine.result]}${mine.foul ? ": your setting fouled" : ""}`,
    parts: `Front: ${partWord(state, mine.front_result)}, ${lower(mine.front_name)} against ${lower(theirs.front_name)}. `
      + `Back: ${partWord(state, mine.back_result)}, ${lower(mine.back_name)} against ${lower(theirs.back_name)}.`,
    money: `Stake ${deal.stake}: ${delta} chips. Decision skill ${signed(mine.skill)}.`,
  };
}

/** The other seat's estimate as the server shows it: only once it passed the
 * check against the deterministic draw; while it is checked, just that. */
export function otherLuckText(state) {
  const other = state.deal?.results?.other;
  if (!other) return "";
  if (other.luck && other.luck_check === "passed") return ` · ${state.seats.other.name}: ${other.luck}`;
  if (other.luck_check === "checking") return ` · ${state.seats.other.name}: luck being checked`;
  return "";
}

/** The luck line: {text, mark} to show, {ask: true, text} to ask the engine,
 * or null to leave the line as it is (computing, or sent and awaiting the frame). */
export function luck(state, choices, engineReady) {
  const deal = state.deal;
  if (!deal || !deal.revealed) return { text: "" };
  const mine = deal.results.you;
  if (mine.luck) return { text: `Your hand: ${mine.luck}${otherLuckText(state)}`, mark: "stored" };
  if (choices.luckAsked) return null;
  if (!engineReady) return { text: "Luck: waiting for the engine…" };
  return { ask: true, text: `Luck: simulating ${LUCK_SAMPLES} opponents…` };
}

/** The luck line for the device's own estimate. */
export const computedLuck = (state, estimate) => ({ text: `Your hand: ${estimate.label}${otherLuckText(state)}`, mark: "computed" });

export function sessionText(state) {
  const s = state.session;
  if (!s || !s.hands) return "No hands revealed yet.";
  const luckText = s.luck_average
    ? `Luck average ${s.luck_average} (${plural(s.luck_count, "estimate")})` : "Luck average: none yet";
  return `${luckText} · Skill total ${signed(s.skill_total)} over ${plural(s.hands, "hand")}`
    + ` (mean ${s.skill_mean > 0 ? "+" : ""}${Number(s.skill_mean).toFixed(2)} per hand)`;
}

export function commitmentText(state) {
  const deal = state.deal;
  return deal ? `Deal ${deal.number} · stake ${deal.stake} · deck commitment ${deal.commitment}` : "";
}

/** The coach's comparison of a setting with the house way: [[text, className]].
 * `compared` is null when the setting is the house way, else the engine's
 * {mine: describe, front: compare_front, back: compare_back} answers. */
export function coachLines(house, compared) {
  const hwFront = lower(house.front_name);
  const hwBack = lower(house.back_name);
  if (!compared) return [[`Your setting is the house way: ${hwFront} in front, ${hwBack} behind.`, "coach-same"]];
  const { mine, front, back } = compared;
  const myFront = lower(mine.front_name);
  const myBack = lower(mine.back_name);
  const lines = [[`The house way sets ${hwFront} in front and ${hwBack} behind (${house.row}).`, ""]];
  lines.push([front.cmp > 0
    ? `Your front gains: ${myFront} beats the house way's ${hwFront}.`
    : front.cmp < 0 ? `Your front gives up strength: ${myFront} against the house way's ${hwFront}.`
      : `Your front, ${myFront}, matches the house way's.`, ""]);
  lines.push([back.cmp < 0
    ? `Your back gives up: ${myBack} instead of ${hwBack}.`
    : back.cmp > 0 ? `Your back gains: ${myBack} instead of ${hwBack}.`
      : `Your back, ${myBack}, matches the house way's.`, ""]);
  if (mine.foul) lines.push(["This setting is a foul: it loses whatever the other side holds.", "coach-foul"]);
  return lines;
}

export const COACH_PICK = "Pick two cards for the front to compare your setting with the house way.";

/** The explorer opens only after the lock, so it never plays a live hand for you. */
export const explorerOpen = (state) => Boolean(state.deal && (state.deal.you.locked || state.deal.revealed));

// ---------------------------------------------------------------- what the page sends and asks

/** The side whose luck this seat's hand is: the solo dealer's seat, or a player's. */
export const side = (state) => (state.table.mode === "solo" && state.seats.you.dealer ? "dealer" : "player");

export const luckRequest = (state) => ({ op: "luck_detail", cards: state.deal.you.cards, mode: state.table.mode, side: side(state), samples: LUCK_SAMPLES });
export const luckMessage = (number, estimate) => ({ type: "luck", deal: number, wins: estimate.wins, pushes: estimate.pushes, losses: estimate.losses });

/** A stake typed in: {amount} or {error}. */
export function stakeEntry(text) {
  const amount = Number(text);
  if (!Number.isInteger(amount) || amount < 1) return { error: "A stake is a whole number of chips, at least 1." };
  return { amount };
}

/** An accept names the proposal this page shows (its amount and id): if the
 * other seat changed it meanwhile, the server agrees nothing (stake_changed). */
export function acceptMessage(state) {
  const shown = state.table.proposal;
  return shown ? { type: "accept_stake", amount: shown.amount, proposal: shown.id } : null;
}

/** A rebet names the last stake shown and, when the other seat's proposal is
 * shown, that proposal: only it may be accepted by the rebet. */
export function rebetMessage(state) {
  const { last_stake: amount, proposal: shown } = state.table;
  return { type: "rebet", amount, proposal: shown && shown.by === "other" ? shown.id : undefined };
}

/** The lock of the chosen front; a foul needs confirmFoul (the second, explicit "Lock anyway"). */
export function lockMessage(state, choices, { confirmFoul = false } = {}) {
  if (choices.selected.length !== 2) return null;
  return { type: "lock", front: [...choices.selected], ...(confirmFoul ? { confirm_foul: true } : {}), deal: state.deal.number };
}

/** After the reply to a stake, an accept or a rebet: whether to deal now. */
export function dealsAfter(kind, frame, amount = null) {
  const { table } = frame;
  if (kind === "stake") return table.mode === "solo" && table.stake === amount;
  if (kind === "accept_stake") return Boolean(table.stake && table.status === "betting");
  return Boolean(table.mode === "friend" && table.stake && table.status === "betting" && !table.proposal);
}
