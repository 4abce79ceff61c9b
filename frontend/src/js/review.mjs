// The review page (games/templates/games/review/card.html). Without script it
// is a form of seven checkboxes; with it, the practice table's card buttons,
// selection, names and foul warning (pick-page.mjs and practice-state.mjs:
// the same functions), then the answer without a reload. The server renders
// the result (the same partial as the form post's page) and sends it with the
// card's view; this script puts it in place and draws its cards. While the
// hand's exact figures are still being worked out the server refuses the
// answer ("review_analysing") and the script sends it again a moment later.

import * as pick from "./pick-page.mjs";

const RETRY_MS = 2000;
const $ = (id) => document.getElementById(id);
const root = $("review");
const faces = pick.pageFaces(root);
const el = {
  ...pick.pickElements("answer-form", "set"), dealt: $("dealt"),
  result: $("result"), pending: $("pending"), box: $("review-box"),
};
let view = JSON.parse($("review-state").textContent);
const picks = new pick.Picker(el, faces, () => render());

function render() {
  el.form.hidden = view.locked;
  el.dealt.hidden = !view.locked;
  picks.show(view);
}

function showResult() {
  el.result.innerHTML = view.result_html;
  pick.drawFaces(el.result, faces);
  el.dealt.replaceChildren(...pick.dealtCards(view, faces));
  el.pending.hidden = true;
  el.box.textContent = `Box ${view.box} of 5 (the higher the box, the longer the hand stays away). This hand comes back ${view.due_text}.`;
  $("result-title")?.focus();
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function answer(event) {
  event.preventDefault();
  if (!picks.canSend(view)) {
    picks.showError("Pick exactly two of your seven cards for the front, then set the hand.");
    return;
  }
  const body = picks.formData();
  picks.sending = true;
  render();
  try {
    for (;;) {
      try {
        view = await pick.post(view.urls.answer, body);
        break;
      } catch (error) {
        if (error.code !== "review_analysing") throw error;
        el.pending.hidden = false;
        await wait(RETRY_MS);
      }
    }
    picks.selected = [];
    showResult();
  } catch (error) {
    picks.showError(error.message);
  } finally {
    picks.sending = false;
    render();
  }
}

// With script: the card buttons stand in for the checkboxes.
picks.useButtons();
el.form.addEventListener("submit", answer);
if (view.locked) {
  pick.drawFaces(el.result, faces);
  pick.drawFaces(el.dealt, faces);
} else {
  picks.build(view);
}
render();
root.dataset.ready = "true";
