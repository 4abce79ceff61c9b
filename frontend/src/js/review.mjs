// The review page (games/templates/games/review/card.html). Without script it
// is a form of seven checkboxes; with it, the table's card buttons (cards.mjs)
// with the practice table's selection, names and foul warning
// (practice-state.mjs: the same pure functions), then the answer without a
// reload. The server renders the result (the same partial as the form post's
// page) and sends it with the card's view; this script puts it in place and
// draws its cards. While the hand's exact figures are still being worked out
// the server refuses the answer ("review_analysing") and the script sends it
// again a moment later.

import { byRank, face, isRed } from "./cards.mjs";
import * as shows from "./practice-state.mjs";

const FACES_KEY = "paigow.faces";
const RETRY_MS = 2000;
const $ = (id) => document.getElementById(id);
const root = $("review");
const packUrl = root.dataset.facesUrl || "";
const faces = packUrl && localStorage.getItem(FACES_KEY) === "pack" ? packUrl : "";
const el = {
  form: $("answer-form"), pick: $("pick"), cards: $("cards"), set: $("set"), foul: $("foul"),
  error: $("error"), front: $("front-label"), back: $("back-label"), dealt: $("dealt"),
  result: $("result"), pending: $("pending"), box: $("review-box"),
};
let view = JSON.parse($("review-state").textContent);
let selected = [];
let sending = false;

function csrf() {
  return document.querySelector("input[name=csrfmiddlewaretoken]")?.value ?? "";
}

function drawFaces(container) {
  for (const card of container.querySelectorAll(".mini-card[data-card]")) {
    card.replaceChildren(face(card.dataset.card, faces));
    card.classList.add("drawn");
  }
}

function buildCards() {
  el.cards.replaceChildren();
  for (const code of byRank(view.cards)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "card" + (isRed(code) ? " red" : "") + (code === "JK" ? " joker" : "");
    button.dataset.code = code;
    button.setAttribute("aria-label", shows.cardLabel(view, code));
    button.append(face(code, faces));
    button.addEventListener("click", () => {
      selected = shows.toggled(selected, code);
      el.error.hidden = true;
      render();
    });
    el.cards.append(button);
  }
}

function render() {
  el.form.hidden = view.locked;
  el.dealt.hidden = !view.locked;
  for (const button of el.cards.querySelectorAll("button.card")) {
    button.setAttribute("aria-pressed", String(selected.includes(button.dataset.code)));
  }
  const names = shows.labels(view, selected);
  el.front.textContent = names.front;
  el.back.textContent = names.back;
  const foul = shows.foulWarning(view, selected);
  el.foul.textContent = foul;
  el.foul.hidden = !foul;
  el.set.disabled = !shows.canLock(view, selected, sending);
}

function showError(text) {
  el.error.textContent = text;
  el.error.hidden = false;
}

class Refused extends Error {
  constructor(answer) {
    super(answer.detail || "That did not work: try again.");
    this.code = answer.error;
  }
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST", body, credentials: "same-origin",
    headers: { Accept: "application/json", "X-CSRFToken": csrf() },
  });
  const answer = await response.json().catch(() => ({ detail: "The server did not answer: try again." }));
  if (!response.ok) throw new Refused(answer);
  return answer;
}

function showResult() {
  el.result.innerHTML = view.result_html;
  drawFaces(el.result);
  el.dealt.replaceChildren(...byRank(view.cards).map((code) => {
    const span = document.createElement("span");
    span.className = "mini-card drawn";
    span.setAttribute("role", "img");
    span.setAttribute("aria-label", view.names[code]);
    span.append(face(code, faces));
    return span;
  }));
  el.pending.hidden = true;
  el.box.textContent = `Box ${view.box} of 5 (the higher the box, the longer the hand stays away). This hand comes back ${view.due_text}.`;
  $("result-title")?.focus();
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function answer(event) {
  event.preventDefault();
  if (!shows.canLock(view, selected, sending)) {
    showError("Pick exactly two of your seven cards for the front, then set the hand.");
    return;
  }
  const body = new FormData();
  for (const code of selected) body.append("front", code);
  sending = true;
  render();
  try {
    for (;;) {
      try {
        view = await post(view.urls.answer, body);
        break;
      } catch (error) {
        if (error.code !== "review_analysing") throw error;
        el.pending.hidden = false;
        await wait(RETRY_MS);
      }
    }
    selected = [];
    showResult();
  } catch (error) {
    showError(error.message);
  } finally {
    sending = false;
    render();
  }
}

// With script: the card buttons stand in for the checkboxes.
el.pick.hidden = true;
el.cards.hidden = false;
el.form.addEventListener("submit", answer);
if (view.locked) {
  drawFaces(el.result);
  drawFaces(el.dealt);
} else {
  buildCards();
}
render();
root.dataset.ready = "true";
