// The setting explorer: all 21 settings of your seven cards against the same
// opponents, refined on this device chunk by chunk.
//
// The engine's op `explore_range` (games/engine/explore.py, explore_sums) plays
// opponents [start, stop) of one stream per hand (the first LUCK_SAMPLES are exactly
// luck's, rules §6) against every setting and answers sums: each setting's
// wins, pushes and losses, and products[s][t] = Σ y_s·y_t (y = 2 × score).
// The page adds the chunks up (addChunk), so it knows, for every pair of
// settings, the mean and variance of their per-opponent difference.
//
// What is shown (estimates, the same arithmetic as the engine's
// explore_estimates, so the same floats):
// - each setting's expected score with its 95% interval (luck's formula:
//   s² = Σ(x − E)² / (n − 1), h = 1.96 × √(s² / n), clamped to [0, 1]);
// - the best: the highest expected score (equal scores: the house way, then
//   the engine's order of fronts);
// - "tied with the best" while the 95% interval of the paired difference
//   (best − setting, opponent by opponent) includes 0; "behind" once it does
//   not. Each comparison is at 95% on its own, not for all 20 together.
//
// Pure functions first (tested by frontend/test/explorer.test.mjs), then the
// refining loop (given the engine's run()), then the DOM.

import { byRank } from "./cards.mjs";
import { LUCK_SAMPLES } from "./rules.mjs";
import { codes, lower, sameSet, shortCard, side } from "./table-state.mjs";

/** Opponents reached after each chunk: luck's own LUCK_SAMPLES, then more and more. */
export const STEPS = [LUCK_SAMPLES, 1000, 3000, 6000, 10000, 20000, 30000, 40000, 50000];

/** z of a two-sided 95% interval (as luck's). */
export const Z95 = 1.96;

// ---------------------------------------------------------------- requests and sums

/** What every chunk asks about: this seat's cards, the table's mode, the seat's side. */
export const exploreBase = (state) => ({ cards: state.deal.you.cards, mode: state.table.mode, side: side(state) });

export const rangeRequest = (base, start, stop) => ({ op: "explore_range", ...base, start, stop });

/** The sums of opponents [0, answer.stop): the totals so far (or null) plus one chunk. */
export function addChunk(totals, answer) {
  const start = totals ? totals.stop : 0;
  if (answer.start !== start) {
    throw new Error(`The explorer's chunk starts at ${answer.start}, not where the last stopped (${start}).`);
  }
  if (!totals) {
    return { stop: answer.stop, settings: answer.settings.map((s) => ({ ...s })), products: answer.products.map((row) => [...row]) };
  }
  return {
    stop: answer.stop,
    settings: totals.settings.map((s, k) => {
      const more = answer.settings[k];
      return { ...s, wins: s.wins + more.wins, pushes: s.pushes + more.pushes, losses: s.losses + more.losses };
    }),
    products: totals.products.map((row, s) => row.map((v, t) => v + answer.products[s][t])),
  };
}

/** 1.96 × the standard error of the mean of n scores y / 2, from Σy and Σy².
 * Whole numbers until one division (exact below 2⁵³), so the engine's Python
 * gets the very same float. Infinite below two opponents. */
export function halfWidth(n, total, squares) {
  if (n < 2) return Infinity;
  return Z95 * Math.sqrt((n * squares - total * total) / (4 * n * (n - 1)) / n);
}

/** Each setting's estimate, best first: {index, expected, low, high, behind,
 * behindLow, behindHigh, standing: "best" | "tied" | "behind"}. */
export function estimates(totals) {
  const n = totals.stop;
  const { settings, products } = totals;
  const sums = settings.map((s) => 2 * s.wins + s.pushes);
  const house = settings.findIndex((s) => s.house_way);
  const order = settings.map((_, k) => k).sort((a, b) => sums[b] - sums[a] || (b === house) - (a === house) || a - b);
  const best = order[0];
  return order.map((k) => {
    const expected = n ? sums[k] / (2 * n) : 0;
    const h = halfWidth(n, sums[k], products[k][k]);
    const d1 = sums[best] - sums[k];
    const d2 = products[best][best] + products[k][k] - 2 * products[best][k];
    const behind = n ? d1 / (2 * n) : 0;
    const hd = k === best ? 0 : halfWidth(n, d1, d2);
    const standing = k === best ? "best" : behind - hd <= 0 ? "tied" : "behind";
    return {
      index: k, expected, low: Math.max(0, expected - h), high: Math.min(1, expected + h),
      behind, behindLow: behind - hd, behindHigh: behind + hd, standing,
    };
  });
}

// ---------------------------------------------------------------- what the page shows

const count = (n) => n.toLocaleString("en-US");
const score = (x) => (Number.isFinite(x) ? x.toFixed(3) : "–");
/** A difference in words' numbers: "0.012", "−0.004" (a true minus sign). */
const diff = (x) => (x < 0 ? `−${score(-x)}` : score(x));

/** A hand's cards in a line of text, ranks together, high to low: "A♠ A♥ 9♣". */
const hand = (cards) => byRank(cards).map(shortCard).join(" ");

/** A setting in a phone's compact row: the two hands on one line, the
 * verdict, the expected score, the wins/pushes/losses and the notes; the hand
 * names and the intervals in `details`, shown on demand. */
function compactRow(setting, { verdict, score: expected, counts, notes, details }) {
  return {
    front: hand(codes(setting.front)),
    back: hand(codes(setting.back)),
    verdict,
    score: expected,
    counts: `W/P/L ${counts}`,
    notes: notes.join(", "),
    details: [`Front: ${lower(setting.front_name)}`, `Back: ${lower(setting.back_name)}`, ...details],
  };
}

export const CAPTION = "Expected score (win 1, push ½, loss 0) of each setting against the same opponents, with its 95% interval";

/** The sentence above the table: how many opponents so far, and whether it goes on. */
export function statusText(totals, done) {
  if (!totals) return "Simulating 21 settings against the first opponents…";
  const n = count(totals.stop);
  const tied = estimates(totals).filter((e) => e.standing === "tied").length;
  const ties = tied === 0 ? "no other setting is tied with the best"
    : `${tied} other setting${tied === 1 ? " is" : "s are"} tied with the best`;
  return done
    ? `Done: 21 settings × ${n} opponents; ${ties}.`
    : `21 settings × ${n} opponents so far; ${ties}. Refining…`;
}

/** How a setting stands against the best, in words (never in colour only). */
export function standingText(e) {
  if (e.standing === "best") return "Best";
  const range = `95%: ${diff(e.behindLow)} to ${diff(e.behindHigh)}`;
  if (e.standing === "tied") return `Tied with the best (${diff(e.behind)} behind, ${range})`;
  return `Behind the best by ${diff(e.behind)} (${range})`;
}

/** The model the DOM draws: {caption, status, done, opponents, rows: [{className, standing, cells}]}. */
export function explorerModel(totals, state, { done = false } = {}) {
  const mine = state.deal?.you.front ? codes(state.deal.you.front) : [];
  const rows = totals ? estimates(totals).map((e, i) => {
    const s = totals.settings[e.index];
    const front = codes(s.front);
    const yours = sameSet(front, mine);
    const notes = [s.house_way && "house way", yours && "yours", s.foul && "foul"].filter(Boolean);
    const interval = `${score(e.expected)} (${score(e.low)}–${score(e.high)})`;
    return {
      className: [e.standing, s.house_way && "house", yours && "yours"].filter(Boolean).join(" "),
      standing: e.standing,
      cells: [
        String(i + 1),
        `${hand(front)} · ${lower(s.front_name)}`,
        `${hand(codes(s.back))} · ${lower(s.back_name)}`,
        interval,
        standingText(e),
        `${s.wins}/${s.pushes}/${s.losses}`,
        notes.join(", "),
      ],
      compact: compactRow(s, {
        verdict: e.standing === "best" ? "Best" : e.standing === "tied" ? "Tied" : `Behind by ${diff(e.behind)}`,
        score: score(e.expected),
        counts: `${s.wins}/${s.pushes}/${s.losses}`,
        notes,
        details: [`Expected score ${score(e.expected)}, 95% interval ${score(e.low)}–${score(e.high)}`, standingText(e)],
      }),
    };
  }) : [];
  return { caption: CAPTION, status: statusText(totals, done), done, opponents: totals ? totals.stop : 0, rows };
}

export const HEADERS = ["#", "Front", "Back", "Expected (95% interval)", "Against the best", "W/P/L", "Notes"];

// ---------------------------------------------------------------- the exact figures
//
// The server computes every setting against all C(46, 7) opponents (a Celery
// task, cached by suit class): GET the seat's deal's `exact/` endpoint, 202
// while it is pending, 200 with the 21 rows (best first) once ready.

/** Every opponent hand the other 46 cards allow: C(46, 7). */
export const ALL_OPPONENTS = 53524680;

/** How often the page asks again while the server computes (ms). */
export const EXACT_POLL_MS = 2000;

/** The endpoint of this seat's own exact figures for the frame's deal. */
export const exactUrl = (state) => `/api/tables/${state.table.id}/deals/${state.deal.number}/exact/`;

export const EXACT_CAPTION = `Each setting's exact expected score (win 1, push ½, loss 0) over all ${count(ALL_OPPONENTS)} opponent hands, each set by the house way`;
export const EXACT_HEADERS = ["#", "Front", "Back", "Exact expected", "Against the best", "Wins / pushes / losses", "Notes"];
export const EXACT_PENDING = "Computing the exact figures on the server, over all 53,524,680 opponent hands… The device's estimate is below meanwhile.";

/** What a setting gives up against the best (best expected − this one's), 3 decimals. */
export function givesUp(best, expected) {
  return Math.max(0, best - expected).toFixed(3);
}

/** How the exact table says a setting stands against the best, in words. */
export function exactStandingText(k, best, expected) {
  const lost = givesUp(best, expected);
  if (k === 0) return `Best (gives up ${lost})`;
  return `Gives up ${lost} against the best${lost === "0.000" ? " (as good, to 3 decimals)" : ""}`;
}

/** The model the DOM draws from the endpoint's ready answer (its rows are best first). */
export function exactModel(answer, state) {
  const mine = state.deal?.you.front ? codes(state.deal.you.front) : [];
  const best = answer.settings[0].expected;
  const rows = answer.settings.map((s, k) => {
    const front = codes(s.front);
    const yours = sameSet(front, mine);
    const notes = [k === 0 && "best", s.house_way && "house way", yours && "yours", s.foul && "foul"].filter(Boolean);
    const counts = `${count(s.wins)} / ${count(s.pushes)} / ${count(s.losses)}`;
    return {
      className: [k === 0 ? "best" : "behind", s.house_way && "house", yours && "yours"].filter(Boolean).join(" "),
      standing: k === 0 ? "best" : "behind",
      cells: [
        String(k + 1),
        `${hand(front)} · ${lower(s.front_name)}`,
        `${hand(codes(s.back))} · ${lower(s.back_name)}`,
        s.expected.toFixed(3),
        exactStandingText(k, best, s.expected),
        counts,
        notes.join(", "),
      ],
      compact: compactRow(s, {
        verdict: k === 0 ? "Best" : `Gives up ${givesUp(best, s.expected)}`,
        score: s.expected.toFixed(3),
        counts,
        notes: notes.filter((note) => note !== "best"),
        details: [`Exact expected score ${s.expected.toFixed(3)}`, exactStandingText(k, best, s.expected)],
      }),
    };
  });
  const house = answer.settings.findIndex((s) => s.house_way);
  const houseWords = house === 0 ? "the house way is the best setting"
    : `the house way gives up ${givesUp(best, answer.settings[house].expected)} against the best`;
  return {
    caption: EXACT_CAPTION,
    status: `Exact over all ${count(answer.opponents)} opponent hands: ${houseWords}.`,
    done: true, opponents: answer.opponents, rows, headers: EXACT_HEADERS,
    tableClass: "exact-table", statusClass: "exact-status", label: "The 21 settings' exact figures, scrollable",
    listLabel: "The 21 settings' exact figures, best first",
  };
}

/**
 * Ask for the exact figures until they are ready. `get(url)` is a promise of
 * {status, body} (the page's fetch); `show(answer)` draws a ready answer;
 * `pending(body)` is told each 202; `fresh()` is false once the page moved
 * on (another deal); `wait(ms)` sleeps. Resolves to the ready answer, or
 * null if stopped. A new poll() from the same poller stops the one before.
 * Any other answer rejects with its sentence.
 */
export function createExactPoller() {
  let generation = 0;
  return {
    async poll({ get, url, show, pending = () => {}, fresh = () => true, wait, interval = EXACT_POLL_MS }) {
      const mine = ++generation;
      const live = () => mine === generation && fresh();
      for (;;) {
        const { status, body } = await get(url);
        if (!live()) return null;
        if (status === 200 && body?.status === "ready") {
          show(body);
          return body;
        }
        if (status !== 202) throw new Error(body?.detail ?? `The server answered ${status}.`);
        pending(body);
        await wait(interval);
        if (!live()) return null;
      }
    },
    stop() {
      generation++;
    },
  };
}

// ---------------------------------------------------------------- refining

/**
 * Refine step by step. `run(request)` is the engine's (a promise of the
 * answer); `show(totals, done)` draws; `fresh()` is false once the page has
 * moved on (another deal), which ends the loop; `onStep(opponents)` is told
 * after each chunk is shown. Resolves to the last totals, or null if stopped.
 * A new refine() from the same refiner stops the one before.
 */
export function createRefiner() {
  let generation = 0;
  return {
    async refine({ run, base, show, fresh = () => true, onStep = () => {}, steps = STEPS }) {
      const mine = ++generation;
      const live = () => mine === generation && fresh();
      let totals = null;
      for (let i = 0; i < steps.length; i++) {
        const answer = await run(rangeRequest(base, totals ? totals.stop : 0, steps[i]));
        if (!live()) return null;
        totals = addChunk(totals, answer);
        show(totals, i === steps.length - 1);
        onStep(totals.stop);
      }
      return totals;
    },
    stop() {
      generation++;
    },
  };
}

// ---------------------------------------------------------------- the DOM

/** Draw the model into `out`: a status line and a real table with headers
 * (the device's estimates, or the exact figures: exactModel). */
export function renderExplorer(doc, out, model) {
  const status = doc.createElement("p");
  status.className = model.statusClass ?? "explorer-status";
  status.textContent = model.status;
  // Announced once it is done, not at every chunk.
  if (model.done) status.setAttribute("role", "status");
  const table = doc.createElement("table");
  table.className = model.tableClass ?? "explorer-table";
  table.dataset.opponents = String(model.opponents);
  if (!model.done) table.setAttribute("aria-busy", "true");
  const caption = doc.createElement("caption");
  caption.textContent = model.caption;
  const head = doc.createElement("thead");
  const headRow = doc.createElement("tr");
  for (const text of model.headers ?? HEADERS) {
    const th = doc.createElement("th");
    th.scope = "col";
    th.textContent = text;
    headRow.append(th);
  }
  head.append(headRow);
  const body = doc.createElement("tbody");
  for (const { className, cells } of model.rows) {
    const tr = doc.createElement("tr");
    if (className) tr.className = className;
    cells.forEach((text, j) => {
      const td = doc.createElement(j === 0 ? "th" : "td");
      if (j === 0) td.scope = "row";
      td.textContent = text;
      tr.append(td);
    });
    body.append(tr);
  }
  table.append(caption, head, body);
  const wrap = doc.createElement("div");
  wrap.className = "table-scroll";
  // On a phone the table scrolls sideways in its box: a keyboard must reach it.
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "region");
  wrap.setAttribute("aria-label", model.label ?? "The 21 settings, scrollable");
  wrap.append(table);
  out.replaceChildren(status, wrap, compactList(doc, model));
}

/** The same rows for a phone (table.css shows one or the other by width):
 * a list, one compact row a setting, its details a tap away. */
function compactList(doc, model) {
  const span = (className, text) => {
    const node = doc.createElement("span");
    node.className = className;
    node.textContent = text;
    return node;
  };
  const box = doc.createElement("div");
  box.className = "explorer-compact";
  const caption = doc.createElement("p");
  caption.className = "explorer-caption";
  caption.textContent = model.caption;
  const list = doc.createElement("ol");
  list.className = "explorer-list";
  list.setAttribute("aria-label", model.listLabel ?? "The 21 settings, best first");
  for (const { className, compact: row } of model.rows) {
    const item = doc.createElement("li");
    if (className) item.className = className;
    const details = doc.createElement("details");
    const summary = doc.createElement("summary");
    const hands = span("xl-hands", "");
    hands.append(span("xl-part", "Front "), span("xl-cards", row.front), span("xl-part", " · Back "), span("xl-cards", row.back));
    const line = span("xl-line", "");
    line.append(span("xl-verdict", row.verdict), ` · expected ${row.score} · `, span("xl-counts", row.counts));
    summary.append(hands, line);
    if (row.notes) summary.append(span("xl-notes", row.notes));
    const more = doc.createElement("ul");
    more.className = "xl-details";
    for (const text of row.details) {
      const li = doc.createElement("li");
      li.textContent = text;
      more.append(li);
    }
    details.append(summary, more);
    item.append(details);
    list.append(item);
  }
  box.append(caption, list);
  return box;
}
