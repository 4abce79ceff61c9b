// The practice page (games/templates/games/practice/hand.html). Without
// script it is a form of seven checkboxes; with it, the table's card buttons,
// live names and the foul warning from the hand's view (pick-page.mjs), a
// lock and the next hand without reloading the page. The server renders the
// result (the same partial as the form post's page) and sends it with the
// locked view; this script only puts it in place and draws its cards.

import * as pick from "./pick-page.mjs";

const $ = (id) => document.getElementById(id);
const root = $("practice");
const faces = pick.pageFaces(root);
const el = {
  ...pick.pickElements("lock-form", "lock"), dealt: $("dealt"),
  result: $("result"), title: $("practice-title"), lesson: $("lesson"),
};
let view = JSON.parse($("practice-state").textContent);
const picks = new pick.Picker(el, faces, () => render());

function render() {
  el.form.hidden = view.locked;
  el.dealt.hidden = !view.locked;
  picks.show(view);
}

// A lock that comes before the hand's analysis (a worker computes it, a
// moment after the deal) is refused with "practice_analysing": lock again
// every second, saying so, until the analysis is there (a minute at most).
const ANALYSING_TRIES = 60;

async function postLock(url, body) {
  for (let tries = 1; ; tries++) {
    try {
      return await pick.post(url, body);
    } catch (error) {
      if (error.code !== "practice_analysing" || tries >= ANALYSING_TRIES) throw error;
      el.error.hidden = true;
      el.submit.textContent = "Analysing your hand…";
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function showResult() {
  el.result.innerHTML = view.result_html;
  pick.drawFaces(el.result, faces);
  el.dealt.replaceChildren(...pick.dealtCards(view, faces));
  $("next-form")?.addEventListener("submit", nextHand);
  $("result-title")?.focus();
}

async function lock(event) {
  event.preventDefault();
  if (!picks.canSend(view)) {
    picks.showError("Pick exactly two of your seven cards for the front, then lock.");
    return;
  }
  const body = picks.formData();
  picks.sending = true;
  render();
  const label = el.submit.textContent;
  try {
    view = await postLock(view.urls.lock, body);
    picks.selected = [];
    showResult();
  } catch (error) {
    picks.showError(error.message);
  } finally {
    el.submit.textContent = label;
    picks.sending = false;
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
    view = await pick.post(view.urls.deal, body);
  } catch (error) {
    if (button) button.disabled = false;
    el.result.querySelector(".verdict")?.after(Object.assign(document.createElement("p"), { className: "alert", role: "alert", textContent: error.message }));
    return;
  }
  history.pushState({}, "", view.urls.page);
  el.form.action = view.urls.lock;
  picks.selected = [];
  el.result.replaceChildren();
  picks.build(view);
  render();
  el.cards.querySelector("button.card")?.focus();
}

// The address follows the hand dealt in place; going back reloads that page.
window.addEventListener("popstate", () => window.location.reload());
// With script: the card buttons stand in for the checkboxes.
picks.useButtons();
el.form.addEventListener("submit", lock);
if (view.locked) {
  $("next-form")?.addEventListener("submit", nextHand);
  pick.drawFaces(el.result, faces);
  pick.drawFaces(el.dealt, faces);
} else {
  picks.build(view);
}
render();
root.dataset.ready = "true";
