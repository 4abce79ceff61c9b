// The minimal table client: renders the seat's own view (sent by the server,
// which never sends what this seat may not see) and talks to the table over
// one WebSocket. Messages are documented in docs/protocol.md. No rules here:
// fouls, results and ledgers all come from the server.

const root = document.getElementById("table");
const tableId = root.dataset.tableId;
let state = JSON.parse(document.getElementById("table-state").textContent);

const $ = (id) => document.getElementById(id);
const el = {
  connection: $("connection"),
  alert: $("alert"), alertText: $("alert-text"), lockAnyway: $("lock-anyway"),
  betting: $("betting"), stakeForm: $("stake-form"), stake: $("stake"),
  proposal: $("proposal"), acceptStake: $("accept-stake"), rebet: $("rebet"),
  hand: $("hand"), cards: $("cards"), lock: $("lock"), yourSetting: $("your-setting"),
  handHelp: $("hand-help"),
  otherHand: $("other-hand"), otherSetting: $("other-setting"),
  result: $("result"), finished: $("finished"), commitment: $("commitment"),
};

let socket = null;
let nextId = 1;
let retry = 0;
const pending = new Map(); // message id -> what to do when its reply arrives
let selected = [];
let selectedFor = null; // the deal number the selection belongs to
let foulFront = null; // the front refused as a foul, for "Lock anyway"

function send(message, then) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    showAlert("Not connected to the table yet. Wait a moment and try again.");
    return;
  }
  const id = String(nextId++);
  if (then) pending.set(id, then);
  socket.send(JSON.stringify({ ...message, id }));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${tableId}/`);
  socket.addEventListener("open", () => {
    retry = 0;
    el.connection.textContent = "Connected";
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    if (event.code === 4401) {
      el.connection.textContent = "Signed out: sign in again to play.";
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
  if (frame.id) pending.delete(frame.id);
  if (frame.type === "state") {
    const { type, id, ...rest } = frame;
    state = rest;
    hideAlert();
    render();
    if (then) then(frame);
  } else if (frame.type === "error") {
    showAlert(frame.detail, frame.error === "foul_unconfirmed");
  }
}

function showAlert(text, foul = false) {
  el.alertText.textContent = text;
  el.lockAnyway.hidden = !foul;
  el.alert.hidden = false;
  if (!foul) foulFront = null;
}

function hideAlert() {
  el.alert.hidden = true;
  el.lockAnyway.hidden = true;
  foulFront = null;
}

function cardButton(code, { pressed = null, disabled = false } = {}) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "card" + (code.endsWith("h") || code.endsWith("d") ? " red" : "");
  button.dataset.code = code;
  button.setAttribute("aria-label", name(code));
  button.textContent = code === "JK" ? "🃏" : code[0].replace("T", "10") + suitSymbol(code);
  if (pressed !== null) button.setAttribute("aria-pressed", String(pressed));
  button.disabled = disabled;
  return button;
}

function suitSymbol(code) {
  return { s: "♠", h: "♥", d: "♦", c: "♣" }[code[1]] || "";
}

function cardRow(label, codes) {
  const row = document.createElement("div");
  row.className = "card-row";
  const caption = document.createElement("span");
  caption.className = "row-label";
  caption.textContent = label;
  row.append(caption);
  const list = document.createElement("span");
  list.setAttribute("aria-label", `${label}: ${codes.map((c) => name(c)).join(", ")}`);
  list.setAttribute("role", "img");
  for (const code of codes) {
    const span = document.createElement("span");
    span.className = "card static" + (code.endsWith("h") || code.endsWith("d") ? " red" : "");
    span.textContent = code === "JK" ? "🃏" : code[0].replace("T", "10") + suitSymbol(code);
    list.append(span);
  }
  row.append(list);
  return row;
}

// Names of the cards this seat may see, sent by the server with each view.
const name = (code) => (state.deal && state.deal.names && state.deal.names[code]) || code;

const WORDS = { win: "Win", push: "Push", loss: "Loss", copy: "Copy" };

function render() {
  const { table, seats, deal } = state;
  el.stake.max = String(Math.max(table.max_stake, 1));
  $("stack-you").textContent = seats.you.stack;
  $("with5-you").textContent = seats.you.with_5;
  $("stack-other").textContent = seats.other.stack;
  $("with5-other").textContent = seats.other.with_5;
  $("other-name").textContent = seats.other.name;

  const betting = table.status === "betting";
  const finished = table.status === "finished";
  el.betting.hidden = !betting;
  el.finished.hidden = !finished;
  if (table.status === "waiting") {
    el.connection.textContent = "Waiting for your friend to join this table.";
  }

  // Stakes: the solo dealer accepts at once; a friend must accept a proposal.
  const proposal = table.proposal;
  el.proposal.hidden = !proposal;
  el.acceptStake.hidden = !(proposal && proposal.by === "other" && betting);
  if (proposal) {
    el.proposal.textContent = proposal.by === "you"
      ? `You proposed a stake of ${proposal.amount}. Waiting for your friend.`
      : `Your friend proposes a stake of ${proposal.amount}.`;
    el.acceptStake.textContent = `Accept stake ${proposal.amount}`;
  }
  el.rebet.hidden = !(betting && deal && deal.revealed && table.last_stake
    && table.last_stake <= table.max_stake);
  if (table.last_stake) el.rebet.textContent = `Rebet ${table.last_stake}`;

  // Your hand.
  el.hand.hidden = !deal;
  el.cards.replaceChildren();
  el.yourSetting.replaceChildren();
  el.otherSetting.replaceChildren();
  el.result.replaceChildren();
  el.commitment.textContent = "";
  if (!deal) {
    el.otherHand.hidden = true;
    return;
  }
  if (selectedFor !== deal.number) {
    selected = [];
    selectedFor = deal.number;
  }
  const you = deal.you;
  const choosing = !deal.revealed && !you.locked;
  el.handHelp.hidden = !choosing;
  el.lock.hidden = !choosing;
  if (choosing) {
    for (const code of you.cards) {
      const button = cardButton(code, { pressed: selected.includes(code) });
      button.addEventListener("click", () => toggle(code));
      el.cards.append(button);
    }
    el.lock.disabled = selected.length !== 2;
  } else {
    el.yourSetting.append(cardRow("Front", you.front || []), cardRow("Back", you.back || []));
  }
  el.commitment.textContent = `Deal ${deal.number} · stake ${deal.stake} · deck commitment ${deal.commitment}`;

  el.otherHand.hidden = false;
  if (!deal.revealed) {
    const p = document.createElement("p");
    p.textContent = deal.other.locked ? "Setting locked, hidden until the reveal." : "Still setting.";
    el.otherSetting.append(p);
    return;
  }
  el.otherSetting.append(cardRow("Front", deal.other.front || []), cardRow("Back", deal.other.back || []));
  const mine = deal.results.you;
  const theirs = deal.results.other;
  const headline = document.createElement("p");
  headline.className = `headline ${mine.result}`;
  headline.textContent = `${WORDS[mine.result]}${mine.foul ? " (your setting fouled)" : ""}`;
  const parts = document.createElement("p");
  parts.textContent = `Front: ${WORDS[mine.front_result]} (${mine.front_name} against ${theirs.front_name}). `
    + `Back: ${WORDS[mine.back_result]} (${mine.back_name} against ${theirs.back_name}).`;
  const house = document.createElement("p");
  house.textContent = `House way: ${mine.house_way.front.map(name).join(" and ")} in front `
    + `(${mine.house_way.row}). Decision skill ${mine.skill >= 0 ? "+" : ""}${mine.skill}.`
    + (mine.luck ? ` ${mine.luck}.` : "");
  el.result.append(headline, parts, house);
}

function toggle(code) {
  if (selected.includes(code)) {
    selected = selected.filter((c) => c !== code);
  } else if (selected.length < 2) {
    selected = [...selected, code];
  } else {
    selected = [selected[1], code];
  }
  render();
}

el.stakeForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const amount = Number(el.stake.value);
  if (!Number.isInteger(amount)) {
    showAlert("A stake is a whole number of chips, at least 1.");
    return;
  }
  // Propose the stake; once it is agreed (at once in solo), deal.
  send({ type: "stake", amount }, (frame) => {
    if (frame.table.stake === amount) send({ type: "deal" });
  });
});

el.acceptStake.addEventListener("click", () => send({ type: "accept_stake" }, (frame) => {
  if (frame.table.stake) send({ type: "deal" });
}));

el.rebet.addEventListener("click", () => send({ type: "rebet" }));

el.lock.addEventListener("click", () => {
  if (selected.length !== 2) return;
  foulFront = [...selected];
  send({ type: "lock", front: foulFront, deal: state.deal.number });
});

el.lockAnyway.addEventListener("click", () => {
  if (!foulFront) return;
  send({ type: "lock", front: foulFront, confirm_foul: true, deal: state.deal.number });
});

render();
connect();
