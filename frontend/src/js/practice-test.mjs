// The 100-hand test's page (games/templates/games/practice_test/play.html).
// Without script it is a form of seven checkboxes; with it, the practice
// table's card buttons (cards.mjs) and its live names and foul warning
// (practice-state.mjs), and each lock brings the next hand without reloading.
// No hints: the view has the hand's names and fouls only. After the last
// lock the page goes to the attempt's address, which says "Scoring…" until
// the worker has costed every hand.

import { byRank, face, isRed } from "./cards.mjs";
import * as shows from "./practice-state.mjs";

const FACES_KEY = "paigow.faces";
const $ = (id) => document.getElementById(id);
const root = $("practice-test");
const packUrl = root.dataset.facesUrl || "";
const faces = packUrl && localStorage.getItem(FACES_KEY) === "pack" ? packUrl : "";
const el = {
  form: $("lock-form"), pick: $("pick"), cards: $("cards"), lock: $("lock"), foul: $("foul"),
  error: $("error"), front: $("front-label"), back: $("back-label"),
  position: $("position"), positionInput: $("position-input"), scoring: $("scoring"),
};
let view = JSON.parse($("practice-test-state").textContent);
let selected = [];
let sending = false;

function csrf() {
  return document.querySelector("input[name=csrfmiddlewaretoken]")?.value ?? "";
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
  el.position.textContent = String(view.position);
  el.positionInput.value = String(view.position);
  document.title = document.title.replace(/hand \d+ of/, `hand ${view.position} of`);
}

function render() {
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

async function lock(event) {
  event.preventDefault();
  if (!shows.canLock(view, selected, sending)) {
    showError("Pick exactly two of your seven cards for the front, then lock.");
    return;
  }
  const body = new FormData();
  body.append("position", String(view.position));
  for (const code of selected) body.append("front", code);
  sending = true;
  render();
  // The last lock scores the test (at once when the site runs embedded).
  const last = view.position === view.hands;
  if (last) el.scoring.textContent = "Scoring… every setting of every hand is being costed exactly.";
  try {
    const response = await fetch(view.urls.lock, {
      method: "POST", body, credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": csrf() },
    });
    const answer = await response.json().catch(() => ({ detail: "The server did not answer: try again." }));
    if (!response.ok) throw new Error(answer.detail || "That did not work: try again.");
    if (answer.finished) {
      window.location.assign(answer.urls.page);
      return;
    }
    view = answer;
    selected = [];
    buildCards();
    el.cards.querySelector("button.card")?.focus();
  } catch (error) {
    el.scoring.textContent = "";
    showError(error.message);
  } finally {
    sending = false;
    render();
  }
}

// With script: the card buttons stand in for the checkboxes.
el.pick.hidden = true;
el.cards.hidden = false;
el.form.addEventListener("submit", lock);
buildCards();
render();
root.dataset.ready = "true";
