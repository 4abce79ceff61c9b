#!/usr/bin/env node
// The progressive explorer under Pyodide in Node (the browser's runtime and
// engine archive, through the worker's JSON glue): for each hand, the page's
// chunks (explorer.mjs STEPS) one after another, with the cumulative time.
//
//   node benchmarks/explorer_node.mjs < hands.json > timings.json
//
// Input: {"hands": ["As Ah ...", ...], "mode": "solo"}. Output: {"loadMs",
// "runs": [{"cards", "cold": [[opponents, ms], ...], "warm": [...]}]}: "cold"
// with the house way's pattern cache emptied first (a fresh worker's), "warm"
// the same hand again. Called by benchmarks/explorer.py; build first
// (python frontend/build.py).

import { readFileSync } from "node:fs";

import { STEPS } from "../frontend/src/js/explorer.mjs";
import { loadNodeEngine } from "../frontend/tools/engine-node.mjs";

const input = JSON.parse(readFileSync(0, "utf8"));
const engine = await loadNodeEngine();
const clear = () => engine.pyodide.runPython(
  "import sys; sys.modules['games.engine.house_way'].PATTERN_CACHE.clear();"
  + " sys.modules['games.engine.explore']._STREAMS.clear()",
);

function refine(cards) {
  const out = [];
  const started = performance.now();
  let start = 0;
  for (const stop of STEPS) {
    const answer = engine.answer({ op: "explore_range", cards, mode: input.mode, start, stop });
    if (answer.error) throw new Error(answer.error);
    out.push([stop, performance.now() - started]);
    start = stop;
  }
  return out;
}

const runs = [];
for (const cards of input.hands) {
  clear();
  const cold = refine(cards);
  engine.pyodide.runPython("import sys; sys.modules['games.engine.explore']._STREAMS.clear()");
  runs.push({ cards, cold, warm: refine(cards) });
}
process.stdout.write(JSON.stringify({ loadMs: engine.loadMs, runs }) + "\n");
