// Draw the history pages' cards with the table's faces: the built-in SVG
// faces, or the picture pack when the player chose it at the table (the same
// browser setting). The server-rendered text faces stay as the fallback and
// keep each card's name for screen readers.
import { face } from "./cards.mjs";

const FACES_KEY = "paigow.faces";
const holder = document.getElementById("history-faces");
const packUrl = holder ? holder.dataset.facesUrl || "" : "";
const base = packUrl && localStorage.getItem(FACES_KEY) === "pack" ? packUrl : "";

for (const card of document.querySelectorAll(".mini-card[data-card]")) {
  card.replaceChildren(face(card.dataset.card, base));
  card.classList.add("drawn");
}
