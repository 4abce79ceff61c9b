// The 100-hand test's page (games/templates/games/practice_test/play.html).
// Without script it is a form of seven checkboxes; with it, the practice
// table's card buttons and its live names and foul warning (pick-page.mjs,
// practice-state.mjs), and each lock brings the next hand without reloading.
// No hints: the view has the hand's names and fouls only. After the last
// lock the page goes to the attempt's address, which says "Scoring…" until
// the worker has costed every hand.

import * as pick from "./pick-page.mjs";

const $ = (id) => document.getElementById(id);
const root = $("practice-test");
const faces = pick.pageFaces(root);
const el = {
  ...pick.pickElements("lock-form", "lock"),
  position: $("position"), positionInput: $("position-input"), scoring: $("scoring"),
};
let view = JSON.parse($("practice-test-state").textContent);
const picks = new pick.Picker(el, faces, () => render());

// The hand's buttons, and its number in the page's text and title.
function buildCards() {
  picks.build(view);
  el.position.textContent = String(view.position);
  el.positionInput.value = String(view.position);
  document.title = document.title.replace(/hand \d+ of/, `hand ${view.position} of`);
}

const render = () => picks.show(view);
async function lock(event) {
  event.preventDefault();
  if (!picks.canSend(view)) {
    picks.showError("Pick exactly two of your seven cards for the front, then lock.");
    return;
  }
  const body = picks.formData();
  body.append("position", String(view.position));
  picks.sending = true;
  render();
  // The last lock scores the test (at once when the site runs embedded).
  const last = view.position === view.hands;
  if (last) el.scoring.textContent = "Scoring… every setting of every hand is being costed exactly.";
  try {
    const answer = await pick.post(view.urls.lock, body);
    if (answer.finished) {
      window.location.assign(answer.urls.page);
      return;
    }
    view = answer;
    picks.selected = [];
    buildCards();
    el.cards.querySelector("button.card")?.focus();
  } catch (error) {
    el.scoring.textContent = "";
    picks.showError(error.message);
  } finally {
    picks.sending = false;
    render();
  }
}

// With script: the card buttons stand in for the checkboxes.
picks.useButtons();
el.form.addEventListener("submit", lock);
buildCards();
render();
root.dataset.ready = "true";
