// The table client. The server is the authority for the table (stakes, deals,
// locks, results, ledgers: docs/protocol.md) and sends each seat only what it
// may see. The engine worker (engine-client.mjs, the same Python engine under
// Pyodide) answers the page: hand names, the foul check, the house way, luck
// after the reveal and the setting explorer.

import { engineFromManifest } from "./engine-client.mjs";
import { byRank, face, isRed } from "./cards.mjs";

const root = document.getElementById("table");
const tableId = root.dataset.tableId;
const staticUrl = root.dataset.staticUrl || "/static/";
const facesUrl = root.dataset.facesUrl || "";
let state = JSON.parse(document.getElementById("table-state").textContent);

const $ = (id) => document.getElementById(id);
const el = {
  connection: $("connection"),
  alert: $("alert"), alertText: $("alert-text"), lockAnyway: $("lock-anyway"),
  betting: $("betting"), stakeForm: $("stake-form"), stake: $("stake"),
  proposal: $("proposal"), acceptStake: $("accept-stake"), dealAgreed: $("deal-agreed"), rebet: $("rebet"),
  hand: $("hand"), cards: $("cards"), lock: $("lock"), houseWay: $("house-way"), actions: $("actions"),
  houseReason: $("house-reason"), yourSetting: $("your-setting"), handHelp: $("hand-help"),
  frontLabel: $("front-label"), backLabel: $("back-label"), engineStatus: $("engine-status"),
  otherHand: $("other-hand"), otherSetting: $("other-setting"), otherState: $("other-state"),
  otherTitle: $("other-title"),
  result: $("result"), luck: $("luck"), finished: $("finished"), commitment: $("commitment"),
  session: $("session-text"), coach: $("coach-compare"),
  explorer: $("explorer"), explore: $("explore"), explorerOut: $("explorer-out"),
  invite: $("invite"), inviteButton: $("invite-button"), inviteBox: $("invite-box"),
  inviteLink: $("invite-link"), inviteCopy: $("invite-copy"), inviteNote: $("invite-note"),
  facesChoice: $("faces-choice"),
};

// Timings for benchmarks/client.py and anyone curious (performance marks too).
const timings = (window.paigowTimings = { engineReady: null, luck: null, explore: null });

// ---------------------------------------------------------------- faces

const FACES_KEY = "paigow.faces";
function facesBase() {
  return facesUrl && localStorage.getItem(FACES_KEY) === "pack" ? facesUrl : "";
}
if (el.facesChoice) {
  el.facesChoice.value = facesBase() ? "pack" : "svg";
  el.facesChoice.addEventListener("change", () => {
    localStorage.setItem(FACES_KEY, el.facesChoice.value);
    cardsKey = null;
    render();
  });
}

// ---------------------------------------------------------------- engine

let engine = null;
let engineReady = false;
const engineStarted = performance.now();
engineFromManifest({ staticUrl })
  .then((started) => {
    engine = started;
    return started.ready;
  })
  .then(() => {
    engineReady = true;
    timings.engineReady = Math.round(performance.now() - engineStarted);
    performance.mark("paigow-engine-ready");
    root.dataset.engine = "ready";
    el.engineStatus.textContent = "Engine ready";
    el.engineStatus.classList.add("ok");
    render();
  })
  .catch((error) => {
    root.dataset.engine = "failed";
    el.engineStatus.textContent = "Engine unavailable";
    el.engineStatus.title = String(error?.message ?? error);
  });

// Memoised engine answers: identical questions are asked once.
const memo = new Map();
function ask(request) {
  if (!engineReady) return null;
  const key = JSON.stringify(request);
  if (!memo.has(key)) {
    const promise = engine.run(request);
    promise.catch(() => memo.delete(key));
    memo.set(key, promise);
  }
  return memo.get(key);
}

// ---------------------------------------------------------------- socket

let socket = null;
let nextId = 1;
// The server applies an action once per seat and id, across reloads and
// restarts: ids are this page load's random prefix plus a counter.
const idPrefix = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) =>
  b.toString(16).padStart(2, "0")).join("");
let retry = 0;
// The current socket has sent its first state: what the page shows is the
// server's, and actions can go through. Until then (connecting, or after a
// drop while it reconnects) every button that sends something is disabled.
let live = false;
// The last socket had been live: a 4401 close may be a replaced session.
let wasLive = false;
const pending = new Map(); // message id -> what to do when its reply arrives
const silent = new Map(); // message id -> error codes to swallow

function send(message, then, quiet = []) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    showError("Not connected to the table yet. Wait a moment and try again.");
    return;
  }
  const id = `${idPrefix}-${nextId++}`;
  if (then) pending.set(id, then);
  if (quiet.length) silent.set(id, quiet);
  socket.send(JSON.stringify({ ...message, id }));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${tableId}/`);
  socket.addEventListener("open", () => {
    retry = 0;
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    live = false;
    renderControls();
    if (event.code === 4401) {
      // A password change in this browser replaces its session, which closes
      // this page's socket too although the player is still signed in: one
      // new socket tells the two apart (it is refused at once when signed out).
      if (wasLive) {
        wasLive = false;
        el.connection.textContent = "Reconnecting…";
        setTimeout(connect, 300);
        return;
      }
      el.connection.textContent = "Signed out: sign in again to play.";
      return;
    }
    if (event.code === 4429) {
      // Reconnecting at once would only be refused again.
      el.connection.textContent = event.reason === "Too many table sockets open for this account."
        ? "Too many table pages are open: close one, then reload this page."
        : "Too many messages too fast: reload this page to play on.";
      return;
    }
    if (event.code === 4403) {
      el.connection.textContent = "You do not have a seat at this table.";
      return;
    }
    retry = Math.min(retry + 1, 5);
    el.connection.textContent = "Connection lost: reconnecting…";
    setTimeout(connect, 500 * retry);
  });
}

function receive(frame) {
  const then = frame.id ? pending.get(frame.id) : undefined;
  const quiet = frame.id ? silent.get(frame.id) : undefined;
  if (frame.id) {
    pending.delete(frame.id);
    silent.delete(frame.id);
  }
  if (frame.type === "state") {
    const { type, id, ...rest } = frame;
    state = rest;
    live = true;
    wasLive = true;
    errorText = "";
    render();
    if (then) then(frame);
  } else if (frame.type === "error") {
    if (quiet && quiet.includes(frame.error)) return;
    if (frame.error === "stake_changed") {
      // Show the table as it is now (the new stake), then the sentence on it.
      send({ type: "state" }, () => showError(frame.detail));
      return;
    }
    if (frame.error === "foul_unconfirmed") {
      lockTried = true;
      errorText = "";
      serverFoul = frame.detail;
      renderAlert();
      el.lockAnyway.focus();
      return;
    }
    showError(frame.detail);
  }
}

// ---------------------------------------------------------------- alert

let errorText = "";
let serverFoul = ""; // the server's foul sentence when the engine is not ready
let lockTried = false; // "Lock" was pressed on a foul: offer "Lock anyway"
let foulInfo = null; // {reason} of the current selection, from the engine

function showError(text) {
  errorText = text;
  renderAlert();
}

function renderAlert() {
  const parts = [];
  if (errorText) parts.push(errorText);
  const foul = choosing() && selected.length === 2 ? foulInfo || (serverFoul ? { reason: serverFoul } : null) : null;
  if (foul) {
    parts.push(`Foul: ${foul.reason} A foul loses the deal: choose another setting, or lock anyway.`);
  }
  el.alertText.textContent = parts.join(" ");
  el.alert.hidden = parts.length === 0;
  el.alert.classList.toggle("foul", Boolean(foul));
  el.lockAnyway.hidden = !(foul && lockTried);
}

// ---------------------------------------------------------------- helpers

const name = (code) => (state.deal && state.deal.names && state.deal.names[code]) || code;
const lower = (text) => (text ? text[0].toLowerCase() + text.slice(1) : text);
const codes = (value) => (Array.isArray(value) ? value : String(value || "").split(/\s+/).filter(Boolean));
const sameSet = (a, b) => a.length === b.length && a.every((c) => b.includes(c));
const WORDS = { win: "Win", push: "Push", loss: "Loss", copy: "Copy", tie: "Tie" };

function cardFace(code, { static: isStatic = true } = {}) {
  const span = document.createElement("span");
  span.className = "card" + (isStatic ? " static" : "") + (isRed(code) ? " red" : "") + (code === "JK" ? " joker" : "");
  span.append(face(code, facesBase()));
  return span;
}

function cardRow(label, rowCodes, extra = "") {
  const row = document.createElement("div");
  row.className = "card-row";
  const caption = document.createElement("p");
  caption.className = "row-label";
  caption.textContent = label + (extra ? `: ${extra}` : "");
  const list = document.createElement("div");
  list.className = "row-cards";
  list.setAttribute("role", "img");
  list.setAttribute("aria-label", `${label}: ${rowCodes.map(name).join(", ")}`);
  for (const code of byRank(rowCodes)) list.append(cardFace(code));
  row.append(caption, list);
  return row;
}

function partWord(part) {
  if (part === "copy") return state.table.mode === "solo" ? "copy (to the dealer)" : "copy (a tie)";
  return part;
}

// ---------------------------------------------------------------- selection

let selected = [];
let selectedFor = null; // the deal number the selection belongs to
let cardsKey = null; // what the card buttons were built for
let houseDetail = null; // {deal, detail}
let luckAsked = new Set(); // deal numbers whose luck this page computed or is computing
const luckUnsent = new Map(); // deal number -> an estimate finished while the socket was down
let exploreFor = null;

function choosing() {
  const deal = state.deal;
  return Boolean(deal && !deal.revealed && !deal.you.locked);
}

function toggle(code) {
  if (!choosing()) return;
  if (selected.includes(code)) selected = selected.filter((c) => c !== code);
  else if (selected.length < 2) selected = [...selected, code];
  else selected = [selected[1], code];
  lockTried = false;
  serverFoul = "";
  render();
}

function currentSetting() {
  const deal = state.deal;
  if (!deal) return null;
  if (deal.you.locked || deal.revealed) {
    if (deal.you.front) return { front: deal.you.front, back: deal.you.back };
    return null;
  }
  if (selected.length !== 2) return null;
  return { front: selected, back: deal.you.cards.filter((c) => !selected.includes(c)) };
}

// ---------------------------------------------------------------- render

function render() {
  const { table, seats, deal } = state;
  el.stake.max = String(Math.max(table.max_stake, 1));
  $("stack-you").textContent = seats.you.stack;
  $("with5-you").textContent = seats.you.with_5;
  $("stack-other").textContent = seats.other.stack;
  $("with5-other").textContent = seats.other.with_5;
  $("other-name").textContent = `${seats.other.name || "Friend"}'s stack`;
  $("other-with5-label").textContent = `${seats.other.name || "Friend"} with 5%`;
  el.otherTitle.textContent = seats.other.name || "Your friend";

  const betting = table.status === "betting";
  el.betting.hidden = !betting;
  el.finished.hidden = table.status !== "finished";
  if (table.status === "waiting") el.connection.textContent = "Waiting for your friend to join this table.";
  else if (live) el.connection.textContent = "Connected";

  renderInvite();
  renderBetting();
  renderOther();
  renderHand();
  renderResult();
  renderSession();
  renderCoach();
  renderExplorer();
  renderAlert();
  el.commitment.textContent = deal
    ? `Deal ${deal.number} · stake ${deal.stake} · deck commitment ${deal.commitment}` : "";
  renderControls();
}

// The buttons that send a message: disabled while the socket is not live
// (the lock button also needs two cards in front).
function renderControls() {
  const sending = [
    el.stakeForm.querySelector("button[type=submit]"), el.acceptStake, el.dealAgreed, el.rebet,
    el.lockAnyway, el.inviteButton,
  ];
  for (const button of sending) if (button) button.disabled = !live;
  if (!live) el.lock.disabled = true;
  else if (choosing()) el.lock.disabled = selected.length !== 2;
}

function renderInvite() {
  if (!el.invite) return;
  const table = state.table;
  const host = state.seats.you.seat === 0;
  el.invite.hidden = !(table.status === "waiting" && host);
  const invite = table.invite;
  if (invite && invite.url) {
    const url = new URL(invite.url, location.href).href;
    if (el.inviteLink.value !== url) el.inviteLink.value = url;
    if (invite.expires_at) {
      el.inviteNote.textContent = `The link works once, until ${new Date(invite.expires_at).toLocaleString()}.`;
    }
  }
}

function renderBetting() {
  const { table, deal } = state;
  const betting = table.status === "betting";
  const proposal = table.proposal;
  el.proposal.hidden = !proposal;
  el.acceptStake.hidden = !(proposal && proposal.by === "other" && betting);
  if (proposal) {
    el.proposal.textContent = proposal.by === "you"
      ? `You proposed a stake of ${proposal.amount}. Waiting for your friend to accept.`
      : `Your friend proposes a stake of ${proposal.amount}.`;
    el.acceptStake.textContent = `Accept stake ${proposal.amount}`;
  }
  el.dealAgreed.hidden = !(betting && table.mode === "friend" && table.stake);
  if (table.stake) el.dealAgreed.textContent = `Deal (stake ${table.stake})`;
  el.rebet.hidden = !(betting && deal && deal.revealed && table.last_stake && table.last_stake <= table.max_stake);
  if (table.last_stake) el.rebet.textContent = `Rebet ${table.last_stake}`;
}

function otherStatus() {
  const { table, seats, deal } = state;
  if (table.mode === "friend" && table.status === "waiting") return ["waiting", "Waiting to join"];
  if (seats.other.connected === false) return ["away", "Away"];
  if (deal && !deal.revealed) {
    return deal.other.locked ? ["locked", "Locked"] : ["waiting", "Setting cards…"];
  }
  if (table.status === "betting") {
    if (table.proposal && table.proposal.by === "you") return ["waiting", "Waiting for you… to be accepted"];
    return ["waiting", table.mode === "solo" ? "Waiting for your stake" : "Waiting"];
  }
  return ["", ""];
}

function renderOther() {
  const deal = state.deal;
  const [kind, text] = otherStatus();
  el.otherState.textContent = text;
  el.otherState.className = `badge ${kind}`;
  el.otherState.hidden = !text;
  el.otherSetting.replaceChildren();
  if (!deal) return;
  if (!deal.revealed) {
    const backs = document.createElement("div");
    backs.className = "row-cards hidden-cards";
    backs.setAttribute("aria-label", "Seven cards, face down");
    backs.setAttribute("role", "img");
    for (let i = 0; i < 7; i += 1) {
      const span = document.createElement("span");
      span.className = "card static back-face";
      if (facesBase()) {
        const img = document.createElement("img");
        img.className = "face png-face";
        img.src = `${facesBase()}back.png`;
        img.alt = "";
        span.append(img);
      }
      backs.append(span);
    }
    el.otherSetting.append(backs);
    return;
  }
  const theirs = deal.results.other;
  el.otherSetting.append(
    cardRow("Front", codes(deal.other.front), `${lower(theirs.front_name)} (${partWord(theirs.front_result)})`),
    cardRow("Back", codes(deal.other.back), `${lower(theirs.back_name)} (${partWord(theirs.back_result)})`),
  );
  if (theirs.foul) el.otherSetting.append(Object.assign(document.createElement("p"), { className: "foul-note", textContent: "Fouled." }));
}

function renderHand() {
  const deal = state.deal;
  el.hand.hidden = !deal;
  el.yourSetting.replaceChildren();
  el.houseReason.hidden = true;
  if (!deal) {
    el.cards.replaceChildren();
    cardsKey = null;
    return;
  }
  if (selectedFor !== deal.number) {
    selected = [];
    selectedFor = deal.number;
    lockTried = false;
    serverFoul = "";
    foulInfo = null;
  }
  const isChoosing = choosing();
  el.handHelp.hidden = !isChoosing;
  el.actions.hidden = !isChoosing;
  el.cards.hidden = !isChoosing;
  if (isChoosing) {
    const key = `${deal.number}|${facesBase()}`;
    if (cardsKey !== key) {
      cardsKey = key;
      el.cards.replaceChildren();
      for (const code of byRank(deal.you.cards)) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "card" + (isRed(code) ? " red" : "") + (code === "JK" ? " joker" : "");
        button.dataset.code = code;
        button.setAttribute("aria-label", name(code));
        button.append(face(code, facesBase()));
        button.addEventListener("click", () => toggle(code));
        el.cards.append(button);
      }
    }
    for (const button of el.cards.querySelectorAll("button.card")) {
      button.setAttribute("aria-pressed", String(selected.includes(button.dataset.code)));
    }
    el.houseWay.disabled = !engineReady;
    if (houseDetail && houseDetail.deal === deal.number && houseDetail.shown) {
      el.houseReason.hidden = false;
      el.houseReason.textContent = `House way (${houseDetail.detail.row}): ${houseDetail.detail.reason}`;
    }
    renderLabels();
  } else {
    cardsKey = null;
    el.cards.replaceChildren();
    const you = deal.you;
    const mine = deal.revealed ? deal.results.you : null;
    el.yourSetting.append(
      cardRow("Front", codes(you.front), `${lower(you.front_name || mine?.front_name || "")}${mine ? ` (${partWord(mine.front_result)})` : ""}`),
      cardRow("Back", codes(you.back), `${lower(you.back_name || mine?.back_name || "")}${mine ? ` (${partWord(mine.back_result)})` : ""}`),
    );
    el.frontLabel.textContent = "";
    el.backLabel.textContent = "";
    if (!deal.revealed) {
      el.yourSetting.append(Object.assign(document.createElement("p"), { className: "helptext", textContent: "Locked. Waiting for the reveal." }));
    }
  }
}

function renderLabels() {
  const setting = currentSetting();
  if (!setting) {
    foulInfo = null;
    const more = 2 - selected.length;
    el.frontLabel.textContent = `Front: pick ${more} more card${more === 1 ? "" : "s"}`;
    el.backLabel.textContent = "Back: the other five cards";
    return;
  }
  const answer = ask({ op: "describe", front: setting.front, back: setting.back });
  if (!answer) {
    el.frontLabel.textContent = `Front: ${setting.front.map(name).join(" and ")}`;
    el.backLabel.textContent = "Back: the other five cards";
    return;
  }
  const wanted = selected.join(" ");
  answer.then((d) => {
    if (selected.join(" ") !== wanted || !choosing()) return;
    el.frontLabel.textContent = `Front: ${lower(d.front_name)}`;
    el.backLabel.textContent = `Back: ${lower(d.back_name)}`;
    const before = foulInfo;
    foulInfo = d.foul ? { reason: d.foul_reason } : null;
    if (Boolean(before) !== Boolean(foulInfo) || (before && foulInfo && before.reason !== foulInfo.reason)) renderAlert();
    el.lock.textContent = "Lock";
  }).catch(() => {});
}

function renderResult() {
  const deal = state.deal;
  el.result.replaceChildren();
  if (!deal || !deal.revealed) {
    el.luck.textContent = "";
    return;
  }
  const mine = deal.results.you;
  const theirs = deal.results.other;
  const headline = document.createElement("p");
  headline.className = `headline ${mine.result}`;
  headline.textContent = `${WORDS[mine.result]}${mine.foul ? ": your setting fouled" : ""}`;
  const parts = document.createElement("p");
  parts.textContent = `Front: ${partWord(mine.front_result)}, ${lower(mine.front_name)} against ${lower(theirs.front_name)}. `
    + `Back: ${partWord(mine.back_result)}, ${lower(mine.back_name)} against ${lower(theirs.back_name)}.`;
  const money = document.createElement("p");
  const delta = mine.result === "win" ? `+${deal.stake}` : mine.result === "loss" ? `−${deal.stake}` : "±0";
  money.textContent = `Stake ${deal.stake}: ${delta} chips. Decision skill ${signed(mine.skill)}.`;
  el.result.append(headline, parts, money);
  renderLuck(deal);
}

function signed(value) {
  if (value === null || value === undefined) return "–";
  const text = Number(value).toFixed(Number.isInteger(Number(value)) ? 0 : 1);
  return value > 0 ? `+${text}` : value < 0 ? `−${text.slice(1)}` : text;
}

// Send the device's estimate; kept until the socket is live again if it is
// down (the next state frame renders the luck again and sends it).
function sendLuck(number, estimate) {
  if (!live) {
    luckUnsent.set(number, estimate);
    return;
  }
  luckUnsent.delete(number);
  send({ type: "luck", deal: number, wins: estimate.wins, pushes: estimate.pushes, losses: estimate.losses },
    null, ["luck_already_recorded"]);
}

// The other seat's estimate as the server shows it: only once it passed the
// check against the deterministic draw (luck_check "passed"); while it is
// checked, just that; a flagged one never reaches this page.
function otherLuckText() {
  const other = state.deal?.results?.other;
  if (!other) return "";
  if (other.luck && other.luck_check === "passed") return ` · ${state.seats.other.name}: ${other.luck}`;
  if (other.luck_check === "checking") return ` · ${state.seats.other.name}: luck being checked`;
  return "";
}

function renderLuck(deal) {
  const mine = deal.results.you;
  const otherText = otherLuckText();
  if (mine.luck) {
    el.luck.textContent = `Your hand: ${mine.luck}${otherText}`;
    el.luck.dataset.state = "stored";
    return;
  }
  if (luckUnsent.has(deal.number)) sendLuck(deal.number, luckUnsent.get(deal.number));
  if (luckAsked.has(deal.number)) return; // computing, or sent and awaiting the frame
  if (!engineReady) {
    el.luck.textContent = "Luck: waiting for the engine…";
    return;
  }
  luckAsked.add(deal.number);
  el.luck.textContent = "Luck: simulating 120 opponents…";
  const side = state.table.mode === "solo" && state.seats.you.dealer ? "dealer" : "player";
  const started = performance.now();
  engine.run({ op: "luck_detail", cards: deal.you.cards, mode: state.table.mode, side, samples: 120 })
    .then((estimate) => {
      timings.luck = Math.round(performance.now() - started);
      performance.mark("paigow-luck");
      if (!state.deal || state.deal.number !== deal.number) return;
      el.luck.textContent = `Your hand: ${estimate.label}${otherLuckText()}`;
      el.luck.dataset.state = "computed";
      sendLuck(deal.number, estimate);
    })
    .catch((error) => {
      luckAsked.delete(deal.number);
      el.luck.textContent = `Luck could not be computed: ${error?.message ?? error}`;
    });
}

function renderSession() {
  const s = state.session;
  if (!s || !s.hands) {
    el.session.textContent = "No hands revealed yet.";
    return;
  }
  const luck = s.luck_average ? `Luck average ${s.luck_average} (${s.luck_count} estimate${s.luck_count === 1 ? "" : "s"})` : "Luck average: none yet";
  el.session.textContent = `${luck} · Skill total ${signed(s.skill_total)} over ${s.hands} hand${s.hands === 1 ? "" : "s"}`
    + ` (mean ${s.skill_mean > 0 ? "+" : ""}${Number(s.skill_mean).toFixed(2)} per hand)`;
}

async function renderCoach() {
  const deal = state.deal;
  const token = (coachToken += 1);
  if (!deal || !engineReady) {
    el.coach.replaceChildren();
    return;
  }
  const setting = currentSetting();
  const cards = deal.you.cards;
  try {
    const house = await ask({ op: "house_way_detail", cards });
    if (!setting) {
      if (token === coachToken) el.coach.replaceChildren(para("Pick two cards for the front to compare your setting with the house way."));
      return;
    }
    const hwFront = codes(house.front);
    const hwBack = codes(house.back);
    if (sameSet(hwFront, setting.front)) {
      if (token === coachToken) {
        el.coach.replaceChildren(para(`Your setting is the house way: ${lower(house.front_name)} in front, ${lower(house.back_name)} behind.`, "coach-same"));
      }
      return;
    }
    const [mine, f, b] = await Promise.all([
      ask({ op: "describe", front: setting.front, back: setting.back }),
      ask({ op: "compare_front", a: setting.front, b: hwFront }),
      ask({ op: "compare_back", a: setting.back, b: hwBack }),
    ]);
    if (token !== coachToken) return;
    const out = [para(`The house way sets ${lower(house.front_name)} in front and ${lower(house.back_name)} behind (${house.row}).`)];
    const front = f.cmp > 0
      ? `Your front gains: ${lower(mine.front_name)} beats the house way's ${lower(house.front_name)}.`
      : f.cmp < 0 ? `Your front gives up strength: ${lower(mine.front_name)} against the house way's ${lower(house.front_name)}.`
        : `Your front, ${lower(mine.front_name)}, matches the house way's.`;
    const back = b.cmp < 0
      ? `Your back gives up: ${lower(mine.back_name)} instead of ${lower(house.back_name)}.`
      : b.cmp > 0 ? `Your back gains: ${lower(mine.back_name)} instead of ${lower(house.back_name)}.`
        : `Your back, ${lower(mine.back_name)}, matches the house way's.`;
    out.push(para(front), para(back));
    if (mine.foul) out.push(para("This setting is a foul: it loses whatever the other side holds.", "coach-foul"));
    el.coach.replaceChildren(...out);
  } catch {
    // The engine's answer is advice only; the table works without it.
  }
}
let coachToken = 0;

function para(text, className = "") {
  const p = document.createElement("p");
  p.textContent = text;
  if (className) p.className = className;
  return p;
}

function renderExplorer() {
  const deal = state.deal;
  // Only after the lock, so it never plays a live hand for you.
  const open = Boolean(deal && (deal.you.locked || deal.revealed));
  el.explorer.hidden = !open;
  if (!open) {
    el.explorerOut.replaceChildren();
    exploreFor = null;
    return;
  }
  el.explore.disabled = !engineReady;
  if (exploreFor !== null && exploreFor !== deal.number) {
    el.explorerOut.replaceChildren();
    exploreFor = null;
  }
}

async function runExplorer() {
  const deal = state.deal;
  if (!deal || !engineReady) return;
  el.explorerOut.replaceChildren(para("Simulating 21 settings × 120 opponents…"));
  const side = state.table.mode === "solo" && state.seats.you.dealer ? "dealer" : "player";
  const started = performance.now();
  const answer = await engine.run({ op: "explore", cards: deal.you.cards, mode: state.table.mode, side, samples: 120 });
  timings.explore = Math.round(performance.now() - started);
  performance.mark("paigow-explore");
  exploreFor = deal.number;
  const mine = deal.you.front ? codes(deal.you.front) : [];
  const table = document.createElement("table");
  table.className = "explorer-table";
  table.innerHTML = "<caption>Expected score (win 1, push ½, loss 0) of each setting</caption>"
    + "<thead><tr><th scope='col'>#</th><th scope='col'>Front</th><th scope='col'>Back</th><th scope='col'>Expected</th><th scope='col'>W/P/L</th></tr></thead>";
  const body = document.createElement("tbody");
  answer.settings.forEach((s, i) => {
    const tr = document.createElement("tr");
    const front = codes(s.front);
    const marks = [];
    if (s.house_way) marks.push("house way");
    if (sameSet(front, mine)) marks.push("yours");
    if (s.foul) marks.push("foul");
    if (s.house_way) tr.className = "house";
    if (sameSet(front, mine)) tr.className += " yours";
    const cells = [
      String(i + 1),
      `${byRank(front).map(short).join(" ")} · ${lower(s.front_name)}`,
      `${byRank(codes(s.back)).map(short).join(" ")} · ${lower(s.back_name)}`,
      `${s.expected.toFixed(3)}${marks.length ? ` (${marks.join(", ")})` : ""}`,
      `${s.wins}/${s.pushes}/${s.losses}`,
    ];
    cells.forEach((text, j) => {
      const td = document.createElement(j === 0 ? "th" : "td");
      if (j === 0) td.scope = "row";
      td.textContent = text;
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(body);
  const wrap = document.createElement("div");
  wrap.className = "table-scroll";
  wrap.append(table);
  el.explorerOut.replaceChildren(wrap);
}

function short(code) {
  if (code === "JK") return "Joker";
  return `${code[0] === "T" ? "10" : code[0]}${{ s: "♠", h: "♥", d: "♦", c: "♣" }[code[1]]}`;
}

// ---------------------------------------------------------------- actions

el.stakeForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const amount = Number(el.stake.value);
  if (!Number.isInteger(amount) || amount < 1) {
    showError("A stake is a whole number of chips, at least 1.");
    return;
  }
  // Propose the stake; once it is agreed (at once in solo), deal.
  send({ type: "stake", amount }, (frame) => {
    if (frame.table.mode === "solo" && frame.table.stake === amount) send({ type: "deal" });
  });
});

// An accept names the proposal this page shows (its amount and id): if the
// other seat changed it meanwhile, the server agrees nothing (stake_changed).
el.acceptStake.addEventListener("click", () => {
  const shown = state.table.proposal;
  if (!shown) return;
  send({ type: "accept_stake", amount: shown.amount, proposal: shown.id }, (frame) => {
    if (frame.table.stake && frame.table.status === "betting") send({ type: "deal" }, null, ["deal_in_progress"]);
  });
});

el.dealAgreed.addEventListener("click", () => send({ type: "deal" }, null, ["deal_in_progress"]));

// A rebet names the last stake shown and, when the other seat's proposal is
// shown, that proposal: only it may be accepted by the rebet.
el.rebet.addEventListener("click", () => {
  const { last_stake: amount, proposal: shown } = state.table;
  const proposal = shown && shown.by === "other" ? shown.id : undefined;
  send({ type: "rebet", amount, proposal }, (frame) => {
    if (frame.table.mode === "friend" && frame.table.stake && frame.table.status === "betting" && !frame.table.proposal) {
      send({ type: "deal" }, null, ["deal_in_progress"]);
    }
  });
});

el.houseWay.addEventListener("click", async () => {
  const deal = state.deal;
  const answer = ask({ op: "house_way_detail", cards: deal.you.cards });
  if (!answer) return;
  const detail = await answer;
  if (!state.deal || state.deal.number !== deal.number) return;
  houseDetail = { deal: deal.number, detail, shown: true };
  selected = codes(detail.front);
  lockTried = false;
  serverFoul = "";
  render();
});

el.lock.addEventListener("click", () => {
  if (selected.length !== 2) return;
  if (foulInfo) {
    // Explained already; a foul needs a second, explicit "Lock anyway".
    lockTried = true;
    renderAlert();
    el.lockAnyway.focus();
    return;
  }
  send({ type: "lock", front: [...selected], deal: state.deal.number });
});

el.lockAnyway.addEventListener("click", () => {
  if (selected.length !== 2) return;
  send({ type: "lock", front: [...selected], confirm_foul: true, deal: state.deal.number });
});

el.explore.addEventListener("click", () => {
  runExplorer().catch((error) => el.explorerOut.replaceChildren(para(`The explorer failed: ${error?.message ?? error}`)));
});

if (el.inviteButton) {
  el.inviteButton.addEventListener("click", () => {
    el.inviteBox.hidden = false;
    if (state.table.invite && state.table.invite.url) {
      renderInvite();
      el.inviteLink.focus();
      el.inviteLink.select();
      return;
    }
    send({ type: "invite_new" }, () => {
      renderInvite();
      el.inviteLink.focus();
      el.inviteLink.select();
    });
  });
  el.inviteCopy.addEventListener("click", async () => {
    el.inviteLink.select();
    try {
      await navigator.clipboard.writeText(el.inviteLink.value);
      el.inviteNote.textContent = "Copied: send it to your friend.";
    } catch {
      const ok = document.execCommand && document.execCommand("copy");
      el.inviteNote.textContent = ok ? "Copied: send it to your friend." : "Select the link and copy it.";
    }
  });
}

render();
connect();
