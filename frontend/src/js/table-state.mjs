// What the table page shows, as pure functions of the server's state frame
// (docs/protocol.md, "state") and the page's own choices for the deal in view.
// Hand names, the foul warning, the house way and the coach come from the
// frame's guide (deal.you.guide, computed by the engine on the server), so
// they work from the first frame; the engine worker is only asked for luck
// and the explorer. No DOM, no socket, no engine: table-view.mjs draws what
// these return and table.mjs wires them together. Tested by
// frontend/test/table-state.test.mjs.

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

/** +1.5, −2, 0, or – for none; with `{ digits }`, that many decimals (+0.50, −0.09).
 * The minus is U+2212, as on every page. */
export function signed(value, { digits } = {}) {
  if (value === null || value === undefined) return "–";
  const places = digits ?? (Number.isInteger(Number(value)) ? 0 : 1);
  const text = Math.abs(Number(value)).toFixed(places);
  if (Number(text) === 0) return text;
  return value > 0 ? `+${text}` : `−${text}`;
}

/** A front or back result in words: a copy goes to the dealer in solo, ties with a friend. */
export function partWord(state, part) {
  if (part === "copy") return state.table.mode === "solo" ? "copy (to the dealer)" : "copy (a tie)";
  return part;
}

// ---------------------------------------------------------------- choices

/** The page's own choices: the cards picked for the front of the deal in
 * view, whether "Lock" was pressed on a foul, the server's sentence when it
 * refused a lock as a foul, the house way shown, whether luck was asked of
 * the engine, and an error sentence. */
export function freshChoices(deal = null) {
  return { deal, selected: [], lockTried: false, serverFoul: "", house: null, luckAsked: false, error: "" };
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

const reselected = (choices, selected) => ({ ...choices, selected, lockTried: false, serverFoul: "" });

/** A click on a card: in or out of the front; a third card replaces the first. */
export function toggled(choices, state, code) {
  if (!choosing(state)) return choices;
  const { selected } = choices;
  if (selected.includes(code)) return reselected(choices, selected.filter((c) => c !== code));
  if (selected.length < 2) return reselected(choices, [...selected, code]);
  return reselected(choices, [selected[1], code]);
}

/** The house way picked for the front: the guide's house_way ({front, row, reason, ...}). */
export const withHouseWay = (choices, detail) => ({ ...reselected(choices, codes(detail.front)), house: detail });

/** The frame's guide of this seat's own cards (docs/protocol.md, "guide"), or null. */
export const guide = (state) => state.deal?.you?.guide ?? null;

/** The house way of the deal in view while choosing (for the House way button), or null. */
export const houseWay = (state) => (choosing(state) ? guide(state)?.house_way ?? null : null);

/** The setting in view: the locked one, or the chosen front and the other five. */
export function currentSetting(state, choices) {
  const deal = state.deal;
  if (!deal) return null;
  if (deal.you.locked || deal.revealed) return deal.you.front ? { front: deal.you.front, back: deal.you.back } : null;
  if (choices.selected.length !== 2) return null;
  return { front: choices.selected, back: deal.you.cards.filter((c) => !choices.selected.includes(c)) };
}

/** The guide's row for the setting in view ({front, front_name, back_name,
 * foul_reason, house_way, front_cmp, back_cmp, back_words?}), or null. */
export function guidedSetting(state, choices) {
  const setting = currentSetting(state, choices);
  const rows = guide(state)?.settings;
  if (!setting || !rows) return null;
  return rows.find((row) => sameSet(codes(row.front), codes(setting.front))) ?? null;
}

/** Why the selection being chosen is a foul (the guide's sentence), or null. */
export const foulOf = (state, choices) => (choosing(state) ? guidedSetting(state, choices)?.foul_reason ?? null : null);

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

// The socket as the page tells it (table-transport.mjs statuses): `link` is
// {status, back, waiting}: the transport's last status ("connecting" before
// the first frame, "live" from it), whether it is live again after a drop (said
// for a moment), and the names of the actions pressed and not answered yet.
export const CONNECTION = {
  connecting: "Connecting…",
  lost: "Connection lost: reconnecting…",
  offline: "You are offline: the table reconnects when you are back.",
  reconnecting: "Reconnecting…",
  signed_out: "Signed out: sign in again to play.",
  too_many_sockets: "Too many table pages are open: close one, then reload this page.",
  too_many_messages: "Too many messages too fast: reload this page to play on.",
  no_seat: "You do not have a seat at this table.",
};

/** Statuses after which no socket is opened again: nothing pressed can be sent. */
export const FINAL = new Set(["signed_out", "too_many_sockets", "too_many_messages", "no_seat"]);

/** How long "Connected again." stays before it is just "Connected" (ms). */
export const BACK_MS = 4000;

export const freshLink = () => ({ status: "connecting", back: false, waiting: [] });

/** The connection line: {text, down}; `down` while the page cannot reach the table. */
export function connectionLine(state, link) {
  if (link.status !== "live") return { text: CONNECTION[link.status], down: link.status !== "connecting" };
  if (state.table.status === "waiting") return { text: "Waiting for your friend to join this table.", down: false };
  return { text: link.back ? "Connected again." : "Connected", down: false };
}

/** What was pressed while the table cannot be reached, and when it goes ("" for nothing). */
export function waitingText(link) {
  if (link.status === "live" || FINAL.has(link.status) || !link.waiting.length) return "";
  const names = [...new Set(link.waiting)].join(" and ");
  return link.status === "connecting"
    ? `${names} will be sent as soon as the table is connected.`
    : `${names} will be sent when you are back.`;
}

/** An action pressed while the table cannot be reached waits for it (the
 * transport keeps it); meanwhile nothing else that sends is pressed, and
 * nothing is once the connection closed for good. Lock also needs two cards. */
export function controls(state, choices, link) {
  const held = FINAL.has(link.status) || (link.status !== "live" && link.waiting.length > 0);
  const lock = held ? true : choosing(state) ? choices.selected.length !== 2 : null; // null: unchanged
  return { sending: held, lock };
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
  // One action for one intent: a proposal of the last stake (either seat's)
  // is answered by "Accept" or awaited, never offered again as "Rebet".
  const rebet = open && deal && deal.revealed && table.last_stake && table.last_stake <= table.max_stake
    && !(proposal && proposal.amount === table.last_stake);
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

/** The invite box's sentence: the open link's lifetime (and, just after
 * "New link", that the old one stopped working), or that there is none. */
export function inviteNote(shown, { made = false, withdrawn = false } = {}, when = (iso) => new Date(iso).toLocaleString()) {
  if (shown.url) {
    const lifetime = shown.expires ? `The link works once, until ${when(shown.expires)}.` : "The link works once.";
    return made ? `New link made: the previous one no longer works. ${lifetime}` : lifetime;
  }
  if (withdrawn) return "Link withdrawn: it no longer seats anyone. Make a new link to invite a friend.";
  return "No open link: it expired or was withdrawn. Make a new link to invite a friend.";
}

/** The other seat's badge: [kind, text]. */
export function otherStatus(state) {
  const { table, seats, deal } = state;
  if (table.mode === "friend" && table.status === "waiting") return ["waiting", "Waiting to join"];
  if (seats.other.connected === false) return ["away", "Away"];
  if (deal && !deal.revealed) return deal.other.locked ? ["locked", "Locked"] : ["waiting", "Setting cards…"];
  if (table.status === "betting") return ["waiting", bettingBadge(table)];
  return ["", ""];
}

/** What the other seat is doing between deals, in its badge. */
function bettingBadge(table) {
  if (table.mode === "solo") return "Waiting for your stake";
  const proposal = table.proposal;
  if (proposal && proposal.by === "you") return `Deciding on your stake of ${proposal.amount}`;
  if (proposal) return "Waiting for your answer";
  if (table.stake) return `Stake ${table.stake} agreed`;
  return "Waiting for a stake";
}

/** A seat's two rows after the lock or the reveal: [{label, cards, extra}]. */
export function settingRows(state, seat) {
  const deal = state.deal;
  const hand = deal[seat];
  const result = deal.revealed ? deal.results[seat] : null;
  // A foul settles the whole bet: no part of it is a win or a loss.
  const played = result && !fouled(deal);
  const extra = (part) => {
    const handName = lower(hand[`${part}_name`] || result?.[`${part}_name`] || "");
    return `${handName}${played ? ` (${partWord(state, result[`${part}_result`])})` : ""}`;
  };
  return [
    { label: "Front", cards: codes(hand.front), extra: extra("front") },
    { label: "Back", cards: codes(hand.back), extra: extra("back") },
  ];
}

/** The hand labels under the cards while choosing, named from the frame's guide. */
export function labels(state, choices) {
  const setting = currentSetting(state, choices);
  if (!setting) {
    const more = 2 - choices.selected.length;
    return { front: `Front: pick ${plural(more, "more card")}`, back: "Back: the other five cards" };
  }
  const named = guidedSetting(state, choices);
  if (named) return { front: `Front: ${lower(named.front_name)}`, back: `Back: ${foulBack(named.foul_reason) ?? lower(named.back_name)}` };
  // A frame without a guide (none is sent so): the cards by name.
  return { front: `Front: ${setting.front.map((c) => cardName(state, c)).join(" and ")}`, back: "Back: the other five cards" };
}

// A fouled back as the foul's sentence names it ("…beats your back, ten-eight
// high."), so the label beside the warning says the same ("ten-eight high",
// not "ten high"); undefined for any other sentence.
export const foulBack = (reason) => /beats your back, (?:an? )?(.+)\.$/.exec(reason ?? "")?.[1];

// A house-way row in words ("two pair, split"); the id in a frame without them.
const rowWords = (house) => lower(house.row_words ?? house.row);

/** The house way's reason, once it was picked for this deal. */
export function houseReason(state, choices) {
  return choosing(state) && choices.house ? `House way (${rowWords(choices.house)}): ${choices.house.reason}` : null;
}

export const FOUL_CHOICE = "A foul loses the deal: choose another setting, or lock anyway.";

/** The alert: the error sentence and the foul of the selection: the guide's
 * reason, or else the server's refusal of the lock, which is already a whole
 * sentence with its choice (shown as it is, never twice). */
export function alert(state, choices) {
  const parts = [];
  if (choices.error) parts.push(choices.error);
  const full = choosing(state) && choices.selected.length === 2;
  const reason = full ? foulOf(state, choices) : null;
  const server = full && !reason ? choices.serverFoul || "" : "";
  if (reason) parts.push(`Foul: ${reason} ${FOUL_CHOICE}`);
  else if (server) parts.push(`Foul: ${server}`);
  const foul = Boolean(reason || server);
  return { text: parts.join(" "), shown: parts.length > 0, foul, lockAnyway: foul && choices.lockTried };
}

/** The result after the reveal, or null. */
// A back as the result says it: with the deciding kicker when the names tie.
const backWords = (side) => side.back_words ?? lower(side.back_name);

// Whether a foul settled the revealed deal (rules §4: the side that fouls
// loses the whole bet, both fouling push), so its parts did not count.
const fouled = (deal) => Boolean(deal.results.you.foul || deal.results.other.foul);

function foulWords(mine, theirs) {
  if (mine.foul && theirs.foul) return "Both settings fouled: a push, whatever the parts.";
  if (mine.foul) return "A foul loses the whole bet, whatever the other side holds: neither part counts.";
  return "The other side fouled: a foul loses the whole bet, so you win it whatever you hold.";
}

export function result(state) {
  const deal = state.deal;
  if (!deal || !deal.revealed) return null;
  const mine = deal.results.you;
  const theirs = deal.results.other;
  const delta = mine.result === "win" ? `+${deal.stake}` : mine.result === "loss" ? `−${deal.stake}` : "±0";
  return {
    result: mine.result,
    headline: `${WORDS[mine.result]}${mine.foul ? ": your setting fouled" : ""}`,
    parts: fouled(deal) ? foulWords(mine, theirs)
      : `Front: ${partWord(state, mine.front_result)}, ${lower(mine.front_name)} against ${lower(theirs.front_name)}. `
      + `Back: ${partWord(state, mine.back_result)}, ${backWords(mine)} against ${backWords(theirs)}.`,
    money: `Stake ${deal.stake}: ${delta} chips. Decision skill ${signed(mine.skill)}.`,
  };
}

/** Where the deal in view stands, for moving focus: "" (no deal), or the
 * deal's number and "choosing", "locked" or "revealed". */
export function phase(state) {
  const deal = state.deal;
  if (!deal) return "";
  const stage = deal.revealed ? "revealed" : deal.you.locked ? "locked" : "choosing";
  return `${deal.number} ${stage}`;
}

/** Where focus goes when the phase changes while the page is open: to the
 * cards of a new deal, to the locked setting while the other side sets, to
 * the result at the reveal; null when nothing moved (a resent frame, a
 * reload: `before` null). */
export function focusAfter(before, after) {
  if (before === null || before === after || !after) return null;
  return { choosing: "cards", locked: "locked", revealed: "result" }[after.split(" ")[1]];
}

/** A revealed deal's pages: its replay in the history and its shuffle proof. */
export function dealLinks(state) {
  const deal = state.deal;
  if (!deal || !deal.revealed || !deal.links) return [];
  return [
    { href: deal.links.replay, text: `Replay deal ${deal.number}` },
    { href: deal.links.verify, text: "Check the shuffle" },
  ];
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
 * or null to leave the line as it is (computing, or sent and awaiting the frame).
 * `engine` is "loading", "ready" or "failed" (true/false: ready or loading);
 * when it failed the engine note says why once (ENGINE_UNAVAILABLE). */
export function luck(state, choices, engine) {
  const deal = state.deal;
  if (!deal || !deal.revealed) return { text: "" };
  const mine = deal.results.you;
  if (mine.luck) return { text: `Your hand: ${mine.luck}${otherLuckText(state)}`, mark: "stored" };
  if (choices.luckAsked) return null;
  if (engine === "failed") return { text: "Luck: not computed yet." };
  if (engine !== true && engine !== "ready") return { text: "Luck: waiting for the engine…" };
  return { ask: true, text: `Luck: simulating ${LUCK_SAMPLES} opponents…` };
}

/** What a luck figure means (rules §6: luck = 1 + 9 × the expected score
 * against LUCK_SAMPLES random opponents, both set by the house way), shown with it. */
export const LUCK_SCALE = `Luck runs from 1 to 10: how these seven cards fare against ${LUCK_SAMPLES} random `
  + "opponents, both set by the house way, before any decision. 1 loses to them all, 10 beats them all, "
  + "5.5 is an even deal.";

/** Said once when the engine worker could not load (or was refused): what still works, what waits. */
export const ENGINE_UNAVAILABLE = "The engine did not load on this device: you can play on (hand names, "
  + "foul warnings, House way and coaching all work), and luck and the setting explorer will run "
  + "once it loads, for instance after a reload.";

/** The luck line for the device's own estimate. */
export const computedLuck = (state, estimate) => ({ text: `Your hand: ${estimate.label}${otherLuckText(state)}`, mark: "computed" });

export function sessionText(state) {
  const s = state.session;
  if (!s || !s.hands) return "No hands revealed yet.";
  const luckText = s.luck_average
    ? `Luck average ${s.luck_average} on the 1–10 scale (${plural(s.luck_count, "estimate")})` : "Luck average: none yet";
  return `${luckText} · Skill total ${signed(s.skill_total)} over ${plural(s.hands, "hand")}`
    + ` (mean ${signed(s.skill_mean, { digits: 2 })} per hand)`;
}

export function commitmentText(state) {
  const deal = state.deal;
  return deal ? `Deal ${deal.number} · stake ${deal.stake} · deck commitment ${deal.commitment}` : "";
}

/** The coach's comparison of the setting in view with the house way, from
 * the frame's guide: [[text, className]]; none without a guide. */
export function coachLines(state, choices) {
  const shown = guide(state);
  if (!shown) return [];
  if (!currentSetting(state, choices)) return [[COACH_PICK, ""]];
  const mine = guidedSetting(state, choices);
  if (!mine) return [];
  const house = shown.house_way;
  const hwFront = lower(house.front_name);
  const hwBack = lower(house.back_name);
  if (mine.house_way) return [[`Your setting is the house way: ${hwFront} in front, ${hwBack} behind.`, "coach-same"]];
  const myFront = lower(mine.front_name);
  // The backs as the engine words them beside each other: the deciding kicker when the names tie.
  const [myBack, houseBack] = mine.back_words ?? [lower(mine.back_name), hwBack];
  const lines = [[`The house way sets ${hwFront} in front and ${hwBack} behind (${rowWords(house)}).`, ""]];
  lines.push([mine.front_cmp > 0
    ? `Your front gains: ${myFront} beats the house way's ${hwFront}.`
    : mine.front_cmp < 0 ? `Your front gives up strength: ${myFront} against the house way's ${hwFront}.`
      : `Your front, ${myFront}, matches the house way's.`, ""]);
  lines.push([mine.back_cmp < 0
    ? `Your back gives up: ${myBack} instead of ${houseBack}.`
    : mine.back_cmp > 0 ? `Your back gains: ${myBack} instead of ${houseBack}.`
      : `Your back, ${myBack}, matches the house way's.`, ""]);
  if (mine.foul_reason) lines.push(["This setting is a foul: it loses whatever the other side holds.", "coach-foul"]);
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
