// The setting explorer's state (explorer.mjs): chunks added up, the engine's
// estimates float for float, the words of the table, the refining loop, the DOM.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import * as explorer from "../src/js/explorer.mjs";

const FIXTURE = JSON.parse(readFileSync(new URL("./fixtures/explore-range.json", import.meta.url), "utf8"));
const [FIRST, SECOND] = FIXTURE.chunks; // opponents [0, 120) and [120, 1000) of "7d 3h 6c As Jc Ts 4s", solo

/** A frame as the table page holds it: this seat locked with the given front. */
function state({ front = null, dealer = false, mode = "solo" } = {}) {
  return {
    table: { mode },
    seats: { you: { dealer } },
    deal: { number: 4, you: { cards: FIXTURE.request.cards.split(" "), locked: true, front } },
  };
}

/** Totals made by hand from per-opponent results y (rows: opponents; columns: settings). */
function totalsOf(ys, { house = 0 } = {}) {
  const k = ys[0].length;
  const col = (s) => ys.map((y) => y[s]);
  return {
    stop: ys.length,
    settings: Array.from({ length: k }, (_, s) => ({
      front: "As Ks", back: "Qs Js Ts 9s 8s", front_name: "Ace-king", back_name: "Straight flush", foul: false,
      house_way: s === house, wins: col(s).filter((y) => y === 2).length, pushes: col(s).filter((y) => y === 1).length,
      losses: col(s).filter((y) => y === 0).length,
    })),
    products: Array.from({ length: k }, (_, s) => Array.from({ length: k }, (_, t) => ys.reduce((sum, y) => sum + y[s] * y[t], 0))),
  };
}

describe("the explorer's sums", () => {
  test("chunks add up: wins, pushes, losses and every product", () => {
    const totals = explorer.addChunk(explorer.addChunk(null, FIRST), SECOND);
    assert.equal(totals.stop, 1000);
    for (let k = 0; k < 21; k++) {
      const s = totals.settings[k];
      assert.equal(s.wins, FIRST.settings[k].wins + SECOND.settings[k].wins);
      assert.equal(s.wins + s.pushes + s.losses, 1000);
      assert.equal(totals.products[k][k], 4 * s.wins + s.pushes);
    }
    assert.equal(totals.products[3][17], FIRST.products[3][17] + SECOND.products[3][17]);
    // The chunks themselves are left as they were.
    assert.equal(explorer.addChunk(null, FIRST).settings[0].wins, FIRST.settings[0].wins);
  });

  test("a chunk that does not start where the last stopped is refused", () => {
    assert.throws(() => explorer.addChunk(null, SECOND), /starts at 120, not where the last stopped \(0\)/);
    const once = explorer.addChunk(null, FIRST);
    assert.throws(() => explorer.addChunk(once, FIRST), /starts at 0/);
  });

  test("the requests: this seat's cards, mode and side, opponents [start, stop)", () => {
    const base = explorer.exploreBase(state({ dealer: true }));
    assert.deepEqual(explorer.rangeRequest(base, 120, 1000), {
      op: "explore_range", cards: FIXTURE.request.cards.split(" "), mode: "solo", side: "dealer", start: 120, stop: 1000,
    });
    assert.equal(explorer.exploreBase(state({ mode: "friend" })).side, "player");
    assert.equal(explorer.STEPS[0], 120); // luck's own opponents first
    assert.ok(explorer.STEPS.includes(10000));
    assert.ok(explorer.STEPS.every((n, i) => i === 0 || n > explorer.STEPS[i - 1]));
  });
});

describe("the explorer's estimates", () => {
  test("they are the engine's explore_estimates, float for float, after each chunk", () => {
    let totals = null;
    for (const chunk of FIXTURE.chunks) {
      totals = explorer.addChunk(totals, chunk);
      assert.deepEqual(explorer.estimates(totals), FIXTURE.estimates[String(totals.stop)]);
    }
  });

  test("more opponents: narrower intervals, fewer ties", () => {
    const few = explorer.estimates(explorer.addChunk(null, FIRST));
    const many = explorer.estimates(explorer.addChunk(explorer.addChunk(null, FIRST), SECOND));
    const width = (rows) => Math.max(...rows.map((e) => e.high - e.low));
    const ties = (rows) => rows.filter((e) => e.standing === "tied").length;
    assert.ok(width(many) < width(few) / 2);
    assert.ok(ties(many) < ties(few));
  });

  test("the half-width is luck's: 58 wins, 49 pushes of 120 is Luck 7.2 (6.6–7.7)", () => {
    const h = explorer.halfWidth(120, 165, 281);
    assert.equal((1 + 9 * (0.6875 - h)).toFixed(1), "6.6");
    assert.equal((1 + 9 * (0.6875 + h)).toFixed(1), "7.7");
    assert.equal(explorer.halfWidth(1, 2, 4), Infinity);
  });

  test("ties: equal scores go to the house way, an identical setting is tied, a steady gap is behind", () => {
    const rows = explorer.estimates(totalsOf(Array(10).fill([[2, 2, 0], [1, 1, 1], [0, 0, 1]]).flat(), { house: 1 }));
    assert.deepEqual(rows.slice(0, 2).map((e) => [e.index, e.standing]), [[1, "best"], [0, "tied"]]);
    assert.deepEqual([rows[1].behindLow, rows[1].behindHigh], [0, 0]);
    const gap = explorer.estimates(totalsOf([[2, 1], [2, 1], [1, 0]], { house: 1 }));
    assert.deepEqual(gap.map((e) => e.standing), ["best", "behind"]);
    const one = explorer.estimates(totalsOf([[2, 0]]));
    assert.deepEqual(one.map((e) => e.standing), ["best", "tied"]);
  });
});

describe("what the explorer shows", () => {
  const totals = explorer.addChunk(explorer.addChunk(null, FIRST), SECOND);

  test("each row: rank, front, back, expected with its interval, the standing in words, W/P/L, notes", () => {
    const model = explorer.explorerModel(totals, state());
    assert.equal(model.rows.length, 21);
    assert.equal(model.opponents, 1000);
    const [best, second] = model.rows;
    assert.equal(best.cells[0], "1");
    assert.match(best.cells[3], /^0\.\d{3} \(0\.\d{3}–0\.\d{3}\)$/);
    assert.equal(best.cells[4], "Best");
    assert.equal(best.standing, "best");
    assert.match(best.className, /\bbest\b/);
    assert.match(second.cells[4], /^Tied with the best \(0\.\d{3} behind, 95%: −0\.\d{3} to 0\.\d{3}\)$/);
    const behind = model.rows.find((r) => r.standing === "behind");
    assert.match(behind.cells[4], /^Behind the best by 0\.\d{3} \(95%: 0\.\d{3} to 0\.\d{3}\)$/);
    const e = explorer.estimates(totals)[0];
    const s = totals.settings[e.index];
    assert.equal(best.cells[5], `${s.wins}/${s.pushes}/${s.losses}`);
  });

  test("a phone's compact row: both hands, the verdict, the score, W/P/L and notes; names and intervals on demand", () => {
    const house = totals.settings.find((s) => s.house_way);
    const model = explorer.explorerModel(totals, state({ front: house.front.split(" ") }));
    for (const row of model.rows) {
      const { compact } = row;
      assert.equal(`${compact.front} · ${row.cells[1].split(" · ")[1]}`, row.cells[1]);
      assert.equal(`${compact.back} · ${row.cells[2].split(" · ")[1]}`, row.cells[2]);
      assert.equal(compact.score, row.cells[3].split(" ")[0]);
      assert.equal(compact.counts, `W/P/L ${row.cells[5]}`);
      assert.equal(compact.notes, row.cells[6]);
      assert.deepEqual(compact.details, [
        `Front: ${row.cells[1].split(" · ")[1]}`, `Back: ${row.cells[2].split(" · ")[1]}`,
        `Expected score ${compact.score}, 95% interval ${row.cells[3].slice(7, -1)}`, row.cells[4],
      ]);
    }
    const verdicts = model.rows.map((r) => r.compact.verdict);
    assert.equal(verdicts[0], "Best");
    assert.ok(verdicts.slice(1).every((v) => v === "Tied" || /^Behind by 0\.\d{3}$/.test(v)), verdicts);
    assert.ok(verdicts.includes("Tied") && verdicts.some((v) => v.startsWith("Behind")));
  });

  test("the house way, your setting and fouls are noted in words", () => {
    const house = totals.settings.find((s) => s.house_way);
    const model = explorer.explorerModel(totals, state({ front: house.front.split(" ") }));
    const row = model.rows.find((r) => r.className.includes("house"));
    assert.equal(row.cells[6], "house way, yours");
    assert.match(row.className, /\byours\b/);
    assert.ok(model.rows.some((r) => r.cells[6] === "foul"));
    assert.equal(model.rows.filter((r) => r.cells[6].includes("house way")).length, 1);
  });

  test("the status line counts the opponents and the ties", () => {
    assert.equal(explorer.statusText(null, false), "Simulating 21 settings against the first opponents…");
    const tied = explorer.estimates(totals).filter((e) => e.standing === "tied").length;
    assert.equal(explorer.statusText(totals, false), `21 settings × 1,000 opponents so far; ${tied} other settings are tied with the best. Refining…`);
    assert.match(explorer.statusText(totals, true), /^Done: 21 settings × 1,000 opponents; /);
    const alone = totalsOf([[2, 0], [2, 0], [1, 0]]);
    assert.equal(explorer.statusText(alone, true), "Done: 21 settings × 3 opponents; no other setting is tied with the best.");
  });
});

describe("refining", () => {
  /** A fake engine answering the fixture's chunks, then made-up ones of the same shape. */
  function fakeRun(asked) {
    return async (request) => {
      asked.push([request.start, request.stop]);
      const chunk = FIXTURE.chunks.find((c) => c.start === request.start && c.stop === request.stop);
      return chunk ?? { ...FIRST, start: request.start, stop: request.stop };
    };
  }

  test("it asks chunk after chunk, shows each, and says when it is done", async () => {
    const asked = [];
    const shown = [];
    const steps = [];
    const totals = await explorer.createRefiner().refine({
      run: fakeRun(asked), base: explorer.exploreBase(state()), steps: [120, 1000, 1500],
      show: (t, done) => shown.push([t.stop, done]), onStep: (n) => steps.push(n),
    });
    assert.deepEqual(asked, [[0, 120], [120, 1000], [1000, 1500]]);
    assert.deepEqual(shown, [[120, false], [1000, false], [1500, true]]);
    assert.deepEqual(steps, [120, 1000, 1500]);
    assert.equal(totals.stop, 1500);
  });

  test("it stops when the deal is no longer the page's, or when refining starts again", async () => {
    const asked = [];
    let fresh = true;
    const shown = [];
    const refiner = explorer.createRefiner();
    const stopped = await refiner.refine({
      run: async (request) => {
        const answer = await fakeRun(asked)(request);
        if (request.stop === 1000) fresh = false; // a new deal arrives meanwhile
        return answer;
      },
      base: {}, steps: [120, 1000, 1500], fresh: () => fresh, show: (t) => shown.push(t.stop),
    });
    assert.equal(stopped, null);
    assert.deepEqual(shown, [120]);
    const again = [];
    const first = refiner.refine({ run: fakeRun(again), base: {}, steps: [120, 1000], show: () => {} });
    const second = refiner.refine({ run: fakeRun([]), base: {}, steps: [120], show: () => {} });
    assert.equal(await first, null);
    assert.equal((await second).stop, 120);
    assert.deepEqual(again, [[0, 120]]);
  });
});

describe("the explorer's DOM", () => {
  /** Just enough of a document for renderExplorer. */
  function fakeDocument() {
    const make = (tag) => ({
      tag, children: [], attributes: {}, dataset: {}, textContent: "", className: "", scope: "",
      append(...nodes) { this.children.push(...nodes); },
      replaceChildren(...nodes) { this.children = nodes; },
      setAttribute(name, value) { this.attributes[name] = value; },
    });
    return { createElement: make, root: make("div") };
  }
  const find = (node, tag) => (node.tag === tag ? [node] : (node.children ?? []).flatMap((c) => find(c, tag)));
  const totals = explorer.addChunk(explorer.addChunk(null, FIRST), SECOND);

  test("a real table: caption, column headers, a row header per setting, the status above", () => {
    const doc = fakeDocument();
    explorer.renderExplorer(doc, doc.root, explorer.explorerModel(totals, state(), { done: false }));
    const [status, wrap] = doc.root.children;
    assert.equal(status.tag, "p");
    assert.match(status.textContent, /1,000 opponents so far/);
    assert.equal(status.attributes.role, undefined); // not announced at every chunk
    const [table] = find(wrap, "table");
    assert.equal(table.dataset.opponents, "1000");
    assert.equal(table.attributes["aria-busy"], "true");
    assert.equal(find(table, "caption")[0].textContent, explorer.CAPTION);
    const heads = find(find(table, "thead")[0], "th");
    assert.deepEqual(heads.map((th) => [th.textContent, th.scope]), explorer.HEADERS.map((h) => [h, "col"]));
    const rows = find(find(table, "tbody")[0], "tr");
    assert.equal(rows.length, 21);
    assert.deepEqual([rows[0].children[0].tag, rows[0].children[0].scope], ["th", "row"]);
    assert.equal(rows[0].children[4].textContent, "Best");
  });

  test("the same rows as a list for a phone: one item a setting, its details a tap away", () => {
    const doc = fakeDocument();
    const model = explorer.explorerModel(totals, state(), { done: true });
    explorer.renderExplorer(doc, doc.root, model);
    const compact = doc.root.children[2];
    assert.equal(compact.className, "explorer-compact");
    assert.equal(find(compact, "p")[0].textContent, explorer.CAPTION);
    const [list] = find(compact, "ol");
    assert.equal(list.attributes["aria-label"], "The 21 settings, best first");
    const items = list.children;
    assert.equal(items.length, 21);
    assert.equal(items[0].className, model.rows[0].className);
    const [summary] = find(items[0], "summary");
    const words = (node) => (typeof node === "string" ? node : node.textContent + node.children.map(words).join(""));
    const best = model.rows[0].compact;
    assert.equal(words(summary), `Front ${best.front} · Back ${best.back}Best · expected ${best.score} · ${best.counts}${best.notes}`);
    assert.deepEqual(find(find(items[0], "ul")[0], "li").map((li) => li.textContent), best.details);
  });

  test("once done, the status is announced and the table no longer busy", () => {
    const doc = fakeDocument();
    explorer.renderExplorer(doc, doc.root, explorer.explorerModel(totals, state(), { done: true }));
    const [status, wrap] = doc.root.children;
    assert.equal(status.attributes.role, "status");
    assert.equal(find(wrap, "table")[0].attributes["aria-busy"], undefined);
  });
});

describe("the exact figures (from the server)", () => {
  const EXACT = JSON.parse(readFileSync(new URL("./fixtures/exact.json", import.meta.url), "utf8"));
  const frame = () => ({ ...state({ front: ["Jc", "7d"] }), table: { id: 12, mode: "solo" } });

  test("the endpoint is this seat's own deal at this table", () => {
    assert.equal(explorer.exactUrl(frame()), "/api/tables/12/deals/4/exact/");
  });

  test("what each setting gives up against the best: best − this, 3 decimals, 0 for the best", () => {
    assert.equal(explorer.givesUp(0.5, 0.5), "0.000");
    assert.equal(explorer.givesUp(0.5312, 0.4998), "0.031");
    const model = explorer.exactModel(EXACT, frame());
    const best = EXACT.settings[0].expected;
    assert.equal(model.rows[0].cells[4], "Best (gives up 0.000)");
    model.rows.slice(1).forEach((row, i) => {
      const lost = (best - EXACT.settings[i + 1].expected).toFixed(3);
      assert.match(row.cells[4], new RegExp(`^Gives up ${lost.replace(".", "\\.")} against the best`));
    });
    assert.equal(model.rows[1].cells[4], "Gives up 0.000 against the best (as good, to 3 decimals)");
  });

  test("21 rows best first with exact scores and counts, the best, the house way and yours said in words", () => {
    const model = explorer.exactModel(EXACT, frame());
    assert.equal(model.rows.length, 21);
    assert.deepEqual(model.headers, explorer.EXACT_HEADERS);
    assert.equal(model.rows[0].cells[3], EXACT.settings[0].expected.toFixed(3));
    const s = EXACT.settings[0];
    assert.equal(model.rows[0].cells[5], `${s.wins.toLocaleString("en-US")} / ${s.pushes.toLocaleString("en-US")} / ${s.losses.toLocaleString("en-US")}`);
    assert.equal(model.rows[0].cells[6], "best, yours"); // 7d Jc: the front this seat locked
    assert.match(model.rows[0].className, /\bbest\b/);
    const house = model.rows.filter((r) => r.cells[6].includes("house way"));
    assert.equal(house.length, 1);
    assert.equal(house[0].cells[0], "5");
    assert.match(house[0].className, /\bhouse\b/);
    assert.deepEqual([model.rows[0].compact.verdict, model.rows[0].compact.notes], ["Best", "yours"]);
    assert.match(house[0].compact.verdict, /^Gives up 0\.\d{3}$/);
    assert.equal(house[0].compact.counts, `W/P/L ${house[0].cells[5]}`);
    const lost = (EXACT.settings[0].expected - EXACT.settings[4].expected).toFixed(3);
    assert.equal(model.status, `Exact over all 53,524,680 opponent hands: the house way gives up ${lost} against the best.`);
    assert.match(model.caption, /over all 53,524,680 opponent hands/);
  });

  test("a best house way is said so", () => {
    const settings = EXACT.settings.map((s, k) => ({ ...s, house_way: k === 0 }));
    assert.match(explorer.exactModel({ ...EXACT, settings }, frame()).status, /the house way is the best setting\.$/);
  });

  test("drawn as a real table of its own, its status announced", () => {
    const doc = { createElement: (tag) => ({
      tag, children: [], attributes: {}, dataset: {}, textContent: "", className: "", scope: "",
      append(...nodes) { this.children.push(...nodes); },
      replaceChildren(...nodes) { this.children = nodes; },
      setAttribute(name, value) { this.attributes[name] = value; },
    }) };
    const out = doc.createElement("div");
    explorer.renderExplorer(doc, out, explorer.exactModel(EXACT, frame()));
    const [status, wrap] = out.children;
    assert.equal(status.className, "exact-status");
    assert.equal(status.attributes.role, "status");
    assert.equal(wrap.attributes["aria-label"], "The 21 settings' exact figures, scrollable");
    const table = wrap.children[0];
    assert.equal(table.className, "exact-table");
    assert.equal(table.dataset.opponents, "53524680");
    assert.deepEqual(table.children[1].children[0].children.map((th) => th.textContent), explorer.EXACT_HEADERS);
  });

  test("the poller asks every interval while pending and draws the ready answer once", async () => {
    const answers = [{ status: 202, body: { status: "pending", detail: "…" } }, { status: 202, body: { status: "pending" } }, { status: 200, body: EXACT }];
    const asked = [];
    const waits = [];
    const shown = [];
    const result = await explorer.createExactPoller().poll({
      get: async (url) => { asked.push(url); return answers.shift(); },
      url: "/api/tables/12/deals/4/exact/",
      show: (body) => shown.push(body),
      wait: async (ms) => { waits.push(ms); },
    });
    assert.equal(result, EXACT);
    assert.equal(asked.length, 3);
    assert.deepEqual(waits, [explorer.EXACT_POLL_MS, explorer.EXACT_POLL_MS]);
    assert.deepEqual(shown, [EXACT]);
  });

  test("a new deal stops the poller; a refusal rejects with its sentence", async () => {
    let fresh = true;
    const shown = [];
    const stopped = await explorer.createExactPoller().poll({
      get: async () => ({ status: 202, body: { status: "pending" } }),
      url: "u", show: (b) => shown.push(b), fresh: () => fresh,
      wait: async () => { fresh = false; },
    });
    assert.equal(stopped, null);
    assert.deepEqual(shown, []);
    await assert.rejects(
      explorer.createExactPoller().poll({
        get: async () => ({ status: 404, body: { error: "not_found", detail: "There is no such deal of yours to analyse: lock your setting first." } }),
        url: "u", show: () => {}, wait: async () => {},
      }),
      /lock your setting first/,
    );
  });

  test("a second poll from the same poller stops the first", async () => {
    const poller = explorer.createExactPoller();
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    const shown = [];
    const first = poller.poll({ get: () => gate, url: "u", show: (b) => shown.push(["first", b]), wait: async () => {} });
    const second = poller.poll({ get: async () => ({ status: 200, body: EXACT }), url: "u", show: (b) => shown.push(["second", b]), wait: async () => {} });
    release({ status: 200, body: EXACT });
    assert.equal(await first, null);
    assert.equal(await second, EXACT);
    assert.deepEqual(shown, [["second", EXACT]]);
  });
});
