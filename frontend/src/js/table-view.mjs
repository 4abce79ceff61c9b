// The table page's DOM (games/templates/games/table.html): draws what
// table-state.mjs says the page shows. `page` is {state, choices, link,
// engineReady, faces}: the server's frame, the page's choices, the socket
// (table-state.mjs, freshLink), whether the engine answers, and the picture pack's URL ("": the
// built-in faces). It sends nothing and asks the engine nothing (table.mjs does).

import { buttonName, byRank, face, isRed } from "./cards.mjs";
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
    root: $("table"), connectionBar: $("connection-bar"), connection: $("connection"), waiting: $("waiting"),
    alert: $("alert"), alertText: $("alert-text"), lockAnyway: $("lock-anyway"),
    betting: $("betting"), stakeForm: $("stake-form"), stake: $("stake"),
    proposal: $("proposal"), acceptStake: $("accept-stake"), dealAgreed: $("deal-agreed"), rebet: $("rebet"),
    hand: $("hand"), cards: $("cards"), lock: $("lock"), houseWay: $("house-way"), actions: $("actions"),
    houseReason: $("house-reason"), yourSetting: $("your-setting"), handHelp: $("hand-help"),
    frontLabel: $("front-label"), backLabel: $("back-label"), engineStatus: $("engine-status"),
    engineNote: $("engine-note"),
    otherSetting: $("other-setting"), otherState: $("other-state"), otherTitle: $("other-title"),
    result: $("result"), luck: $("luck"), luckScale: $("luck-scale"), finished: $("finished"), commitment: $("commitment"),
    session: $("session-text"), coach: $("coach-compare"), coachSlot: $("coach-slot"),
    explorer: $("explorer"), explore: $("explore"), explorerOut: $("explorer-out"),
    explorerExact: $("explorer-exact"),
    invite: $("invite"), inviteButton: $("invite-button"), inviteBox: $("invite-box"),
    inviteLink: $("invite-link"), inviteCopy: $("invite-copy"), inviteNote: $("invite-note"),
    inviteRow: $("invite-row"), inviteNew: $("invite-new"), inviteWithdraw: $("invite-withdraw"),
    otherHand: $("other-hand"),
    facesChoice: $("faces-choice"),
  };
  let cardsKey = null; // what the card buttons were built for
  let exploreFor = null; // the deal number the explorer's table is for
  let resultKey = null; // what the result box was built for (rebuilt only when it changes)
  let inviteEvent = { url: undefined }; // the invite box's last change from this page

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

  /** The connection line, and what waits to be sent (a bar that stays in
   * view while the table cannot be reached). */
  function renderLink(page) {
    const { text, down } = shows.connectionLine(page.state, page.link);
    if (el.connection.textContent !== text) el.connection.textContent = text;
    el.connectionBar.classList.toggle("down", down);
    const waiting = shows.waitingText(page.link);
    if (el.waiting.textContent !== waiting) el.waiting.textContent = waiting;
    el.waiting.hidden = !waiting;
  }

  function renderControls(page) {
    renderLink(page);
    const { sending, lock } = shows.controls(page.state, page.choices, page.link);
    if (shows.choosing(page.state)) el.houseWay.disabled = sending || !shows.houseWay(page.state);
    const buttons = [
      el.stakeForm.querySelector("button[type=submit]"), el.acceptStake, el.dealAgreed, el.rebet,
      el.lockAnyway, el.inviteButton, el.inviteNew, el.inviteWithdraw,
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
    if (el.inviteLink.value !== (shown.url || "")) el.inviteLink.value = shown.url || "";
    el.inviteRow.hidden = !shown.url;
    el.inviteWithdraw.hidden = !shown.url;
    const event = inviteEvent.url === shown.url ? inviteEvent : {};
    const note = shows.inviteNote(shown, event);
    if (!el.inviteNote.dataset.copied || el.inviteNote.dataset.copied !== shown.url) {
      if (el.inviteNote.textContent !== note) el.inviteNote.textContent = note;
    }
  }

  /** After "New link" or "Withdraw" answered: say so, and put focus where
   * the next step is (the new link, or "New link" once there is none). */
  function inviteChanged(page, change) {
    const shown = shows.invite(page.state, doc.location.href);
    inviteEvent = { url: shown.url, [change]: true };
    delete el.inviteNote.dataset.copied;
    renderInvite(page);
    if (shown.url) focusInvite();
    else el.inviteNew.focus();
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
        button.setAttribute("aria-label", buttonName(code, shows.cardName(state, code)));
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
      const reason = shows.houseReason(state, choices);
      if (reason) {
        el.houseReason.hidden = false;
        el.houseReason.textContent = reason;
      }
      showLabels(shows.labels(state, choices));
      return;
    }
    cardsKey = null;
    el.cards.replaceChildren();
    el.yourSetting.append(...shows.settingRows(state, "you").map((row) => cardRow(page, row)));
    el.frontLabel.textContent = "";
    el.backLabel.textContent = "";
    if (!deal.revealed) el.yourSetting.append(para("Locked. Waiting for the reveal.", "helptext"));
  }

  // Rebuilt only when what it says changes: it is a live region, so each
  // rebuild would be announced again, and focus may sit on its heading.
  function renderResult(page) {
    const shown = shows.result(page.state);
    const links = shows.dealLinks(page.state);
    const key = shown ? JSON.stringify([page.state.deal.number, shown, links]) : "";
    if (key === resultKey) return;
    resultKey = key;
    el.result.replaceChildren();
    if (!shown) return;
    const headline = doc.createElement("h2");
    headline.className = `headline ${shown.result}`;
    headline.id = "result-headline";
    headline.tabIndex = -1;
    headline.textContent = shown.headline;
    el.result.append(headline, para(shown.parts), para(shown.money));
    if (links.length) {
      const line = para("", "deal-links");
      links.forEach(({ href, text }, i) => {
        const a = doc.createElement("a");
        a.href = href;
        a.textContent = text;
        line.append(...(i ? [" · ", a] : [a]));
      });
      el.result.append(line);
    }
  }

  /** The luck line; with a figure in it, what the scale means below it. */
  function showLuck({ text, mark }) {
    el.luck.textContent = text;
    if (mark) el.luck.dataset.state = mark;
    el.luckScale.textContent = shows.LUCK_SCALE;
    el.luckScale.hidden = !mark;
  }

  function showCoach(lines) {
    el.coach.replaceChildren(...lines.map(([text, className]) => para(text, className)));
  }

  // The coaching comparison ("Your front gains…") lives in the coaching panel
  // beside the table; where the layout is one column (table.css/site.css: below
  // 900 px) that panel is far below, so while the cards are set it moves next
  // to them, and back once they are locked.
  const oneColumn = doc.defaultView?.matchMedia?.("(max-width: 899px)") ?? null;
  const coachHome = { parent: el.coach.parentNode, next: el.coach.nextSibling };
  let placedFor = null; // the page last placed for, to place again when the width changes

  function placeCoach(page) {
    placedFor = page;
    const byCards = Boolean(oneColumn?.matches && shows.choosing(page.state));
    if (byCards && el.coach.parentNode !== el.coachSlot) el.coachSlot.append(el.coach);
    if (!byCards && el.coach.parentNode !== coachHome.parent) coachHome.parent.insertBefore(el.coach, coachHome.next);
  }
  oneColumn?.addEventListener("change", () => placedFor && placeCoach(placedFor));

  function renderExplorer(page) {
    const deal = page.state.deal;
    const open = shows.explorerOpen(page.state);
    el.explorer.hidden = !open;
    if (!open) {
      el.explorerOut.replaceChildren();
      el.explorerExact.replaceChildren();
      exploreFor = null;
      return;
    }
    el.explore.disabled = !page.engineReady;
    if (exploreFor !== null && exploreFor !== deal.number) {
      el.explorerOut.replaceChildren();
      el.explorerExact.replaceChildren();
      exploreFor = null;
    }
  }

  /** The exact figures' place: a sentence while the server computes them. */
  function exactMessage(text) {
    el.explorerExact.replaceChildren(para(text, "exact-status"));
  }

  function showExact(number, model) {
    exploreFor = number;
    drawExplorer(doc, el.explorerExact, model);
  }

  function explorerMessage(text) {
    el.explorerOut.replaceChildren(para(text));
  }

  function showExplorer(number, model) {
    exploreFor = number;
    drawExplorer(doc, el.explorerOut, model);
  }

  /** The engine loaded, or it did not: then `note` says so, once, in the engine note. */
  function showEngine(ready, error = null, note = "") {
    el.root.dataset.engine = ready ? "ready" : "failed";
    if (ready) {
      el.engineStatus.textContent = "Engine ready";
      el.engineStatus.classList.add("ok");
      return;
    }
    el.engineStatus.hidden = true;
    if (el.engineNote) {
      el.engineNote.textContent = note;
      el.engineNote.title = String(error?.message ?? error);
      el.engineNote.hidden = false;
    }
  }

  /** Focus left with a control that went away (hidden, or it was <body>),
   * or it is on the table itself: then the page may move it. Elsewhere (the
   * coaching, the explorer) the player put it, so it stays. */
  function focusLost() {
    const active = doc.activeElement;
    if (!active || active === doc.body) return true;
    if (active.getClientRects().length === 0) return true;
    return Boolean(active.closest(".felt"));
  }

  /** Scroll the least that shows `first` to `last` together (or, when they
   * are taller than the window, the `prefer`red end): no animation. */
  function bringIntoView(first, last, prefer = "top") {
    const win = doc.defaultView;
    const margin = 8;
    const top = first.getBoundingClientRect().top;
    const bottom = last.getBoundingClientRect().bottom;
    const height = win.innerHeight;
    let delta = 0;
    if (bottom - top > height - 2 * margin) delta = prefer === "top" ? top - margin : bottom - height + margin;
    else if (top < margin) delta = top - margin;
    else if (bottom > height - margin) delta = bottom - height + margin;
    if (delta) win.scrollBy({ top: delta, behavior: "instant" });
  }

  /** The play moved on (shows.focusAfter): focus and scroll follow it, to
   * the cards of a new deal, to your locked setting, to the result. */
  function follow(target) {
    if (!target || !focusLost()) return;
    if (target === "cards") {
      bringIntoView(el.hand, el.actions);
      el.cards.querySelector("button.card")?.focus({ preventScroll: true });
    } else if (target === "locked") {
      bringIntoView(el.otherHand, el.hand);
      el.hand.focus({ preventScroll: true });
    } else if (target === "result") {
      bringIntoView(el.otherHand, el.luck.textContent ? el.luck : el.result, "bottom");
      doc.getElementById("result-headline")?.focus({ preventScroll: true });
    }
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
      el.inviteNote.dataset.copied = el.inviteLink.value;
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
    renderInvite(page);
    renderBetting(page);
    renderOther(page);
    renderHand(page);
    placeCoach(page);
    renderResult(page);
    el.session.textContent = shows.sessionText(page.state);
    renderExplorer(page);
    renderAlert(page);
    el.commitment.textContent = shows.commitmentText(page.state);
    renderControls(page);
  }

  return {
    el, render, renderControls, renderAlert, renderInvite, showLabels, showLuck,
    showCoach, explorerMessage, showExplorer, exactMessage, showExact, showEngine, focusLockAnyway, focusInvite,
    inviteChanged, follow,
  };
}
