// The practice page (games/templates/games/practice/hand.html). Without
// script it is a form of seven checkboxes; with it, the table's card buttons
// (cards.mjs), live names and the foul warning from the hand's view, a lock
// and the next hand without reloading the page. The server renders the
// result (the same partial as the form post's page) and sends it with the
// locked view; this script only puts it in place and draws its cards.

import { byRank, face, isRed } from "./cards.mjs";
import * as shows from "./practice-state.mjs";

const FACES_KEY = "paigow.faces";
const $ = (id) => document.getElementById(id);
const root = $("practice");
const packUrl = root.dataset.facesUrl || "";
const faces = packUrl && localStorage.getItem(FACES_KEY) === "pack" ? packUrl : "";
const el = {
  form: $("lock-form"), pick: $("pick"), cards: $("cards"), lock: $("lock"), foul: $("foul"),
  error: $("error"), front: $("front-label"), back: $("back-label"), dealt: $("dealt"),
  result: $("result"), title: $("practice-title"), lesson: $("lesson"),
};
let view = JSON.parse($("practice-state").textContent);
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
  const locked = view.locked;
  el.form.hidden = locked;
  el.dealt.hidden = !locked;
  for (const button of el.cards.querySelectorAll("button.card")) {
    button.setAttribute("aria-pressed", String(selected.includes(button.dataset.code)));
  }
  const names = shows.labels(view, selected);
  el.front.textContent = names.front;
  el.back.textContent = names.back;
  const foul = shows.foulWarning(view, selected);
  el.foul.textContent = foul;
  el.foul.hidden = !foul;
  el.lock.disabled = !shows.canLock(view, selected, sending);
}

function showError(text) {
  el.error.textContent = text;
  el.error.hidden = false;
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST", body, credentials: "same-origin",
    headers: { Accept: "application/json", "X-CSRFToken": csrf() },
  });
  const answer = await response.json().catch(() => ({ detail: "The server did not answer: try again." }));
  if (!response.ok) {
    throw Object.assign(new Error(answer.detail || "That did not work: try again."), { code: answer.error });
  }
  return answer;
}

// A lock that comes before the hand's analysis (a worker computes it, a
// moment after the deal) is refused with "practice_analysing": lock again
// every second, saying so, until the analysis is there (a minute at most).
const ANALYSING_TRIES = 60;

async function postLock(url, body) {
  for (let tries = 1; ; tries++) {
    try {
      return await post(url, body);
    } catch (error) {
      if (error.code !== "practice_analysing" || tries >= ANALYSING_TRIES) throw error;
      el.error.hidden = true;
      el.lock.textContent = "Analysing your hand…";
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
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
  $("next-form")?.addEventListener("submit", nextHand);
  $("result-title")?.focus();
}

async function lock(event) {
  event.preventDefault();
  if (!shows.canLock(view, selected, sending)) {
    showError("Pick exactly two of your seven cards for the front, then lock.");
    return;
  }
  const body = new FormData();
  for (const code of selected) body.append("front", code);
  sending = true;
  render();
  const label = el.lock.textContent;
  try {
    view = await postLock(view.urls.lock, body);
    selected = [];
    showResult();
  } catch (error) {
    showError(error.message);
  } finally {
    el.lock.textContent = label;
    sending = false;
    render();
  }
}

async function nextHand(event) {
  event.preventDefault();
  const button = event.submitter ?? $("next");
  if (button) button.disabled = true;
  const body = new FormData();
  body.append("drill", view.drill);
  try {
    view = await post(view.urls.deal, body);
  } catch (error) {
    if (button) button.disabled = false;
    el.result.querySelector(".verdict")?.after(Object.assign(document.createElement("p"), { className: "alert", role: "alert", textContent: error.message }));
    return;
  }
  history.pushState({}, "", view.urls.page);
  el.form.action = view.urls.lock;
  selected = [];
  el.result.replaceChildren();
  buildCards();
  render();
  el.cards.querySelector("button.card")?.focus();
}

// The address follows the hand dealt in place; going back reloads that page.
window.addEventListener("popstate", () => window.location.reload());
// With script: the card buttons stand in for the checkboxes.
el.pick.hidden = true;
el.cards.hidden = false;
el.form.addEventListener("submit", lock);
if (view.locked) {
  $("next-form")?.addEventListener("submit", nextHand);
  drawFaces(el.result);
  drawFaces(el.dealt);
} else {
  buildCards();
}
render();
root.dataset.ready = "true";
