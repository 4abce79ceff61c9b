// The table page's DOM (games/templates/games/table.html): draws what
// table-state.mjs says the page shows. `page` is {state, choices, live,
// engineReady, faces}: the server's frame, the page's choices, whether the
// socket is live, whether the engine answers, and the picture pack's URL ("": the
// built-in faces). It sends nothing and asks the engine nothing (table.mjs does).

import { byRank, face, isRed } from "./cards.mjs";
import { renderExplorer as drawExplorer } from "./explorer.mjs";
import * as shows from "./table-state.mjs";

function para(text, className = "") {
  const p = document.createElement("p");
  p.textContent = text;
  if (className) p.className = className;
  return p;
}

export function createView(doc = document) {
  const $ = (id) => doc.getElementById(id);
  const el = {
    root: $("table"), connection: $("connection"),
    alert: $("alert"), alertText: $("alert-text"), lockAnyway: $("lock-anyway"),
    betting: $("betting"), stakeForm: $("stake-form"), stake: $("stake"),
    proposal: $("proposal"), acceptStake: $("accept-stake"), dealAgreed: $("deal-agreed"), rebet: $("rebet"),
    hand: $("hand"), cards: $("cards"), lock: $("lock"), houseWay: $("house-way"), actions: $("actions"),
    houseReason: $("house-reason"), yourSetting: $("your-setting"), handHelp: $("hand-help"),
    frontLabel: $("front-label"), backLabel: $("back-label"), engineStatus: $("engine-status"),
    otherSetting: $("other-setting"), otherState: $("other-state"), otherTitle: $("other-title"),
    result: $("result"), luck: $("luck"), finished: $("finished"), commitment: $("commitment"),
    session: $("session-text"), coach: $("coach-compare"),
    explorer: $("explorer"), explore: $("explore"), explorerOut: $("explorer-out"),
    invite: $("invite"), inviteButton: $("invite-button"), inviteBox: $("invite-box"),
    inviteLink: $("invite-link"), inviteCopy: $("invite-copy"), inviteNote: $("invite-note"),
    facesChoice: $("faces-choice"),
  };
  let cardsKey = null; // what the card buttons were built for
  let exploreFor = null; // the deal number the explorer's table is for

  function cardFace(code, faces) {
    const span = doc.createElement("span");
    span.className = "card static" + (isRed(code) ? " red" : "") + (code === "JK" ? " joker" : "");
    span.append(face(code, faces));
    return span;
  }

  function cardRow(page, { label, cards, extra }) {
    const row = doc.createElement("div");
    row.className = "card-row";
    const caption = doc.createElement("p");
    caption.className = "row-label";
    caption.textContent = label + (extra ? `: ${extra}` : "");
    const list = doc.createElement("div");
    list.className = "row-cards";
    list.setAttribute("role", "img");
    list.setAttribute("aria-label", `${label}: ${cards.map((c) => shows.cardName(page.state, c)).join(", ")}`);
    for (const code of byRank(cards)) list.append(cardFace(code, page.faces));
    row.append(caption, list);
    return row;
  }

  function faceDown(faces) {
    const backs = doc.createElement("div");
    backs.className = "row-cards hidden-cards";
    backs.setAttribute("aria-label", "Seven cards, face down");
    backs.setAttribute("role", "img");
    for (let i = 0; i < 7; i += 1) {
      const span = doc.createElement("span");
      span.className = "card static back-face";
      if (faces) {
        const img = doc.createElement("img");
        img.className = "face png-face";
        img.src = `${faces}back.png`;
        img.alt = "";
        span.append(img);
      }
      backs.append(span);
    }
    return backs;
  }

  function showConnection(text) {
    if (text !== null) el.connection.textContent = text;
  }

  function renderControls(page) {
    const { sending, lock } = shows.controls(page.state, page.choices, page.live);
    const buttons = [
      el.stakeForm.querySelector("button[type=submit]"), el.acceptStake, el.dealAgreed, el.rebet,
      el.lockAnyway, el.inviteButton,
    ];
    for (const button of buttons) if (button) button.disabled = sending;
    if (lock !== null) el.lock.disabled = lock;
  }

  function renderAlert(page) {
    const shown = shows.alert(page.state, page.choices);
    el.alertText.textContent = shown.text;
    el.alert.hidden = !shown.shown;
    el.alert.classList.toggle("foul", shown.foul);
    el.lockAnyway.hidden = !shown.lockAnyway;
  }

  function renderInvite(page) {
    if (!el.invite) return;
    const shown = shows.invite(page.state, doc.location.href);
    el.invite.hidden = !shown.shown;
    if (shown.url && el.inviteLink.value !== shown.url) el.inviteLink.value = shown.url;
    if (shown.expires) el.inviteNote.textContent = `The link works once, until ${new Date(shown.expires).toLocaleString()}.`;
  }

  function renderBetting(page) {
    const shown = shows.betting(page.state);
    el.betting.hidden = !shown.shown;
    const texts = [[el.proposal, shown.proposal], [el.acceptStake, shown.accept], [el.dealAgreed, shown.deal], [el.rebet, shown.rebet]];
    for (const [node, text] of texts) {
      node.hidden = text === null;
      if (text !== null) node.textContent = text;
    }
  }

  function renderOther(page) {
    const deal = page.state.deal;
    const [kind, text] = shows.otherStatus(page.state);
    el.otherState.textContent = text;
    el.otherState.className = `badge ${kind}`;
    el.otherState.hidden = !text;
    el.otherSetting.replaceChildren();
    if (!deal) return;
    if (!deal.revealed) {
      el.otherSetting.append(faceDown(page.faces));
      return;
    }
    el.otherSetting.append(...shows.settingRows(page.state, "other").map((row) => cardRow(page, row)));
    if (deal.results.other.foul) el.otherSetting.append(para("Fouled.", "foul-note"));
  }

  function showLabels(shown) {
    if (!shown) return;
    el.frontLabel.textContent = shown.front;
    el.backLabel.textContent = shown.back;
  }

  function renderCards(page) {
    const { state, choices, faces } = page;
    const key = `${state.deal.number}|${faces}`;
    if (cardsKey !== key) {
      cardsKey = key;
      el.cards.replaceChildren();
      for (const code of byRank(state.deal.you.cards)) {
        const button = doc.createElement("button");
        button.type = "button";
        button.className = "card" + (isRed(code) ? " red" : "") + (code === "JK" ? " joker" : "");
        button.dataset.code = code;
        button.setAttribute("aria-label", shows.cardName(state, code));
        button.append(face(code, faces));
        el.cards.append(button);
      }
    }
    for (const button of el.cards.querySelectorAll("button.card")) {
      button.setAttribute("aria-pressed", String(choices.selected.includes(button.dataset.code)));
    }
  }

  function renderHand(page) {
    const { state, choices } = page;
    const deal = state.deal;
    el.hand.hidden = !deal;
    el.yourSetting.replaceChildren();
    el.houseReason.hidden = true;
    if (!deal) {
      el.cards.replaceChildren();
      cardsKey = null;
      return;
    }
    const choosing = shows.choosing(state);
    el.handHelp.hidden = !choosing;
    el.actions.hidden = !choosing;
    el.cards.hidden = !choosing;
    if (choosing) {
      renderCards(page);
      el.houseWay.disabled = !page.engineReady;
      const reason = shows.houseReason(state, choices);
      if (reason) {
        el.houseReason.hidden = false;
        el.houseReason.textContent = reason;
      }
      showLabels(shows.labels(state, choices, { engineReady: page.engineReady }));
      return;
    }
    cardsKey = null;
    el.cards.replaceChildren();
    el.yourSetting.append(...shows.settingRows(state, "you").map((row) => cardRow(page, row)));
    el.frontLabel.textContent = "";
    el.backLabel.textContent = "";
    if (!deal.revealed) el.yourSetting.append(para("Locked. Waiting for the reveal.", "helptext"));
  }

  function renderResult(page) {
    el.result.replaceChildren();
    const shown = shows.result(page.state);
    if (!shown) return;
    el.result.append(para(shown.headline, `headline ${shown.result}`), para(shown.parts), para(shown.money));
  }

  function showLuck({ text, mark }) {
    el.luck.textContent = text;
    if (mark) el.luck.dataset.state = mark;
  }

  function showCoach(lines) {
    el.coach.replaceChildren(...lines.map(([text, className]) => para(text, className)));
  }

  function renderExplorer(page) {
    const deal = page.state.deal;
    const open = shows.explorerOpen(page.state);
    el.explorer.hidden = !open;
    if (!open) {
      el.explorerOut.replaceChildren();
      exploreFor = null;
      return;
    }
    el.explore.disabled = !page.engineReady;
    if (exploreFor !== null && exploreFor !== deal.number) {
      el.explorerOut.replaceChildren();
      exploreFor = null;
    }
  }

  function explorerMessage(text) {
    el.explorerOut.replaceChildren(para(text));
  }

  function showExplorer(number, model) {
    exploreFor = number;
    drawExplorer(doc, el.explorerOut, model);
  }

  function showEngine(ready, error = null) {
    el.root.dataset.engine = ready ? "ready" : "failed";
    el.engineStatus.textContent = ready ? "Engine ready" : "Engine unavailable";
    if (ready) el.engineStatus.classList.add("ok");
    else el.engineStatus.title = String(error?.message ?? error);
  }

  function focusLockAnyway() {
    el.lockAnyway.focus();
  }

  function focusInvite() {
    el.inviteLink.focus();
    el.inviteLink.select();
  }

  if (el.inviteCopy) {
    el.inviteCopy.addEventListener("click", async () => {
      el.inviteLink.select();
      try {
        await navigator.clipboard.writeText(el.inviteLink.value);
        el.inviteNote.textContent = "Copied: send it to your friend.";
      } catch {
        const ok = doc.execCommand && doc.execCommand("copy");
        el.inviteNote.textContent = ok ? "Copied: send it to your friend." : "Select the link and copy it.";
      }
    });
  }

  /** Everything the frame and the choices decide (the engine's answers come after). */
  function render(page) {
    const { table, seats } = page.state;
    el.stake.max = String(Math.max(table.max_stake, 1));
    $("stack-you").textContent = seats.you.stack;
    $("with5-you").textContent = seats.you.with_5;
    $("stack-other").textContent = seats.other.stack;
    $("with5-other").textContent = seats.other.with_5;
    $("other-name").textContent = `${seats.other.name || "Friend"}'s stack`;
    $("other-with5-label").textContent = `${seats.other.name || "Friend"} with 5%`;
    el.otherTitle.textContent = seats.other.name || "Your friend";
    el.finished.hidden = table.status !== "finished";
    showConnection(shows.connectionText(page.state, page.live));
    renderInvite(page);
    renderBetting(page);
    renderOther(page);
    renderHand(page);
    renderResult(page);
    el.session.textContent = shows.sessionText(page.state);
    renderExplorer(page);
    renderAlert(page);
    el.commitment.textContent = shows.commitmentText(page.state);
    renderControls(page);
  }

  return {
    el, render, renderControls, renderAlert, renderInvite, showConnection, showLabels, showLuck,
    showCoach, explorerMessage, showExplorer, showEngine, focusLockAnyway, focusInvite,
  };
}
