// Card faces: built-in SVG faces (the default, legible at 60 px wide, with a
// distinct joker) or an optional picture pack in PNG-cards-1.3 file naming,
// served by the site under /faces/ when it has one (CARD_FACES_DIR).

const SVG_NS = "http://www.w3.org/2000/svg";

const RANK_WORDS = {
  2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", T: "10",
  J: "jack", Q: "queen", K: "king", A: "ace",
};
const SUIT_WORDS = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
export const SUIT_SYMBOLS = { s: "♠", h: "♥", d: "♦", c: "♣" };
const RANK_ORDER = "23456789TJQKA";

// The court letters in the centre of J, Q and K, drawn as strokes rather than
// text: the corner index is the card's one line of visible text, so a card
// button's name ("Q, Queen of hearts") contains all the text it shows.
const COURT_STROKES = {
  J: "M61 68H79M72 68V93C72 100 68 103 63 103C58 103 55 100 54 96",
  Q: "M65 68C57 68 52 76 52 85.5C52 95 57 103 65 103C73 103 78 95 78 85.5C78 76 73 68 65 68ZM68 94L79 105",
  K: "M56 68V103M51 68H61M51 103H61M77 68L57 88M63 83L79 103M72 68H82M74 103H84",
};
// A five-pointed star for the joker's corner, in a 100 x 100 box.
const STAR = "M50 4L61 38L97 38L68 59L79 94L50 72L21 94L32 59L3 38L39 38Z";

// Suit shapes in a 100 × 100 box, so no glyph depends on the system's fonts.
const SUIT_PATHS = {
  h: "M50 92C22 68 4 50 4 30C4 14 16 4 30 4C40 4 47 10 50 18C53 10 60 4 70 4C84 4 96 14 96 30C96 50 78 68 50 92Z",
  d: "M50 2L88 50L50 98L12 50Z",
  s: "M50 2C63 24 96 40 96 62C96 76 85 85 73 85C64 85 57 80 53 72C54 83 59 91 67 97L33 97C41 91 46 83 47 72C43 80 36 85 27 85C15 85 4 76 4 62C4 40 37 24 50 2Z",
  c: "M50 8A19 19 0 1 1 49.9 8ZM27 40A19 19 0 1 1 26.9 40ZM73 40A19 19 0 1 1 72.9 40ZM44 50L56 50L56 62C58 80 62 90 70 97L30 97C38 90 42 80 44 62Z",
};

export const isRed = (code) => code.endsWith("h") || code.endsWith("d");
export const rankLabel = (code) => (code === "JK" ? "★" : code[0] === "T" ? "10" : code[0]);

/** Deck-independent display order: highest rank first, the joker leading. */
export function byRank(codes) {
  const value = (c) => (c === "JK" ? 99 : RANK_ORDER.indexOf(c[0]) * 4 + "cdhs".indexOf(c[1]));
  return [...codes].sort((a, b) => value(b) - value(a));
}

/** The PNG-cards-1.3 file name of a card: ace_of_spades.png, 10_of_hearts.png, black_joker.png. */
export function packFile(code) {
  if (code === "JK") return "black_joker.png";
  return `${RANK_WORDS[code[0]]}_of_${SUIT_WORDS[code[1]]}.png`;
}

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

function suitShape(suit, x, y, size, fill) {
  const scale = size / 100;
  return svg("path", { d: SUIT_PATHS[suit], fill, transform: `translate(${x} ${y}) scale(${scale})` });
}

function jokerFace() {
  const root = svg("svg", { viewBox: "0 0 100 140", class: "face svg-face joker", "aria-hidden": "true", focusable: "false" });
  root.append(
    svg("rect", { x: 1, y: 1, width: 98, height: 138, rx: 9, fill: "#fffdf5", stroke: "#6b3fa0", "stroke-width": 2 }),
    svg("rect", { x: 9, y: 9, width: 82, height: 122, rx: 6, fill: "none", stroke: "#d4a017", "stroke-width": 2, "stroke-dasharray": "4 3" }),
    svg("path", {
      d: "M50 30L58 55L84 55L63 70L71 95L50 80L29 95L37 70L16 55L42 55Z",
      fill: "#6b3fa0", stroke: "#d4a017", "stroke-width": 2,
    }),
    svg("text", { x: 50, y: 122, "text-anchor": "middle", "font-size": 19, "font-weight": 800, fill: "#6b3fa0", "font-family": "system-ui, sans-serif", "letter-spacing": 1 }, "JOKER"),
    svg("path", { d: STAR, fill: "#d4a017", stroke: "#6b3fa0", "stroke-width": 8, transform: "translate(6 8) scale(.2)" }),
  );
  return root;
}

/** A built-in SVG face, decorative (the element that holds it carries the name). */
export function svgFace(code) {
  if (code === "JK") return jokerFace();
  const suit = code[1];
  const fill = isRed(code) ? "#c8102e" : "#1d1d1f";
  const rank = rankLabel(code);
  const root = svg("svg", { viewBox: "0 0 100 140", class: "face svg-face", "aria-hidden": "true", focusable: "false" });
  root.append(svg("rect", { x: 1, y: 1, width: 98, height: 138, rx: 9, fill: "#fff", stroke: "#9aa0a6", "stroke-width": 2 }));
  // The corner index: big enough to read when cards overlap or at 60 px.
  root.append(svg("text", {
    x: rank === "10" ? 22 : 19, y: 36, "text-anchor": "middle", "font-size": rank === "10" ? 30 : 34,
    "font-weight": 800, fill, "font-family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
    "letter-spacing": rank === "10" ? -2 : 0,
  }, rank));
  root.append(suitShape(suit, 7, 43, 24, fill));
  // The centre: a big pip, or the court letter over a pip.
  if ("JQK".includes(code[0])) {
    root.append(svg("rect", { x: 38, y: 52, width: 54, height: 78, rx: 6, fill: isRed(code) ? "#fdecea" : "#eef1f4" }));
    root.append(svg("path", {
      d: COURT_STROKES[code[0]], fill: "none", stroke: fill, "stroke-width": 7,
      "stroke-linecap": "round", "stroke-linejoin": "round",
    }));
    root.append(suitShape(suit, 56, 108, 18, fill));
  } else {
    root.append(suitShape(suit, 40, 62, 50, fill));
  }
  return root;
}

/** A face from the picture pack. */
export function packFace(code, facesUrl) {
  const img = document.createElement("img");
  img.className = "face png-face";
  img.src = `${facesUrl}${packFile(code)}`;
  img.alt = "";
  img.decoding = "async";
  img.draggable = false;
  return img;
}

/** A card button's accessible name: the corner index it shows, then the
 * card's name ("Q, Queen of hearts", "10, Ten of hearts"); the joker's one
 * line of text is its name ("Joker"). Speech input can say what it sees. */
export function buttonName(code, name) {
  return code === "JK" ? name : `${rankLabel(code)}, ${name}`;
}

export function face(code, facesUrl = "") {
  return facesUrl ? packFace(code, facesUrl) : svgFace(code);
}
