// What the three pages where a hand is set with seven card buttons share: the
// practice table (practice.mjs), the review deck's card page (review.mjs) and
// the 100-hand test (practice-test.mjs). The faces the player chose, the card
// buttons, the front's and back's names with the foul warning
// (practice-state.mjs), the JSON post with the CSRF token, and the drawing of
// the server-rendered result's cards. What each page does with an answer stays
// in the page. The pure helpers are tested by frontend/test/pick-page.test.mjs.

import { byRank, face, isRed } from "./cards.mjs";
import * as shows from "./practice-state.mjs";

// The key the table's faces choice is kept under (table.mjs writes it).
export const FACES_KEY = "paigow.faces";

/** The faces to draw with: the pack's address when the site has one and the player chose it, else "" (built-in). */
export function facesBase(packUrl, choice) {
  return packUrl && choice === "pack" ? packUrl : "";
}

/** The faces of a page whose root element carries the pack's address (data-faces-url). */
export function pageFaces(root) {
  return facesBase(root.dataset.facesUrl || "", localStorage.getItem(FACES_KEY));
}

/** The class of a card button: red suits and the joker are styled apart. */
export function cardClass(code) {
  return "card" + (isRed(code) ? " red" : "") + (code === "JK" ? " joker" : "");
}

/** The error a refused post throws: the server's sentence and its error code. */
export function refusal(answer) {
  return Object.assign(new Error(answer.detail || "That did not work: try again."), { code: answer.error });
}

export function csrf() {
  return document.querySelector("input[name=csrfmiddlewaretoken]")?.value ?? "";
}

/** POST a form for JSON; the answer, or throws refusal(answer) when refused. */
export async function post(url, body) {
  const response = await fetch(url, {
    method: "POST", body, credentials: "same-origin",
    headers: { Accept: "application/json", "X-CSRFToken": csrf() },
  });
  const answer = await response.json().catch(() => ({ detail: "The server did not answer: try again." }));
  if (!response.ok) throw refusal(answer);
  return answer;
}

/** Draw the faces of the server-rendered mini cards (data-card) in a container. */
export function drawFaces(container, faces) {
  for (const card of container.querySelectorAll(".mini-card[data-card]")) {
    card.replaceChildren(face(card.dataset.card, faces));
    card.classList.add("drawn");
  }
}

/** The seven card buttons of the view's hand, highest first; a press calls onPick(code). */
export function buildCardButtons(container, view, faces, onPick) {
  container.replaceChildren();
  for (const code of byRank(view.cards)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = cardClass(code);
    button.dataset.code = code;
    button.setAttribute("aria-label", shows.cardLabel(view, code));
    button.append(face(code, faces));
    button.addEventListener("click", () => onPick(code));
    container.append(button);
  }
}

/** The hand's cards as named pictures, for the place of the buttons once it is set. */
export function dealtCards(view, faces) {
  return byRank(view.cards).map((code) => {
    const span = document.createElement("span");
    span.className = "mini-card drawn";
    span.setAttribute("role", "img");
    span.setAttribute("aria-label", view.names[code]);
    span.append(face(code, faces));
    return span;
  });
}

/**
 * The elements the three pages' templates share, by the same ids, with the
 * page's own form and submit button: { form, submit, pick, cards, foul,
 * error, front, back }.
 */
export function pickElements(formId, submitId) {
  const $ = (id) => document.getElementById(id);
  return {
    form: $(formId), submit: $(submitId), pick: $("pick"), cards: $("cards"), foul: $("foul"),
    error: $("error"), front: $("front-label"), back: $("back-label"),
  };
}

/**
 * The front being picked: the selected cards (two at most) and whether an
 * answer is on its way. `el` is pickElements' (the page may add its own);
 * `render` is the page's redraw, called after each press.
 */
export class Picker {
  constructor(el, faces, render) {
    this.el = el;
    this.faces = faces;
    this.render = render;
    this.selected = [];
    this.sending = false;
  }

  /** The card buttons of the view's hand; a press toggles its card. */
  build(view) {
    buildCardButtons(this.el.cards, view, this.faces, (code) => {
      this.selected = shows.toggled(this.selected, code);
      this.el.error.hidden = true;
      this.render();
    });
  }

  /** Whether the selection may be sent: two cards, none on its way. */
  canSend(view) {
    return shows.canLock(view, this.selected, this.sending);
  }

  /** The form to send: the selection as "front" fields. */
  formData() {
    const body = new FormData();
    for (const code of this.selected) body.append("front", code);
    return body;
  }

  /** Show the pressed buttons, the front's and back's names, the foul warning and whether it may be sent. */
  show(view) {
    for (const button of this.el.cards.querySelectorAll("button.card")) {
      button.setAttribute("aria-pressed", String(this.selected.includes(button.dataset.code)));
    }
    const names = shows.labels(view, this.selected);
    this.el.front.textContent = names.front;
    this.el.back.textContent = names.back;
    const foul = shows.foulWarning(view, this.selected);
    this.el.foul.textContent = foul;
    this.el.foul.hidden = !foul;
    this.el.submit.disabled = !this.canSend(view);
  }

  showError(text) {
    this.el.error.textContent = text;
    this.el.error.hidden = false;
  }

  /** With script, the card buttons stand in for the form's seven checkboxes. */
  useButtons() {
    this.el.pick.hidden = true;
    this.el.cards.hidden = false;
  }
}

