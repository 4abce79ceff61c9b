#!/usr/bin/env node
// The engine against its peer, in Node, on the deals of benchmarks/deals.py.
//
//   node benchmarks/peers.mjs DEALS.json OUT.json [--pyodide] [--lucks N] [--build DIR]
//
// pokersolver's PaiGowPokerHelper.solve (npm, MIT, pinned in
// benchmarks/node/package.json; install with `npm ci --prefix benchmarks/node`)
// sets every deal by its house way; the joker is written "Or" for it. Its
// settings are written to OUT.json as our card codes so benchmarks/peers.py
// can check them with our engine. With --pyodide the same deals are also set
// by our engine under Pyodide (the browser's runtime and engine archive), and
// the luck latency (120 samples) is measured on the first N deals.
// Usually run for you by: python3 benchmarks/peers.py

import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(resolve(HERE, "node", "package.json"));

function parseArgs(argv) {
  const args = { files: [], pyodide: false, lucks: 200, build: null };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--pyodide") args.pyodide = true;
    else if (flag === "--lucks") args.lucks = Number.parseInt(argv[++i], 10);
    else if (flag === "--build") args.build = resolve(argv[++i]);
    else args.files.push(flag);
  }
  if (args.files.length !== 2) throw new Error("usage: peers.mjs DEALS.json OUT.json [--pyodide] [--lucks N]");
  return args;
}

const toSolver = (code) => (code === "JK" ? "Or" : code);
const fromSolver = (card) => (card.value === "O" ? "JK" : card.value + card.suit);

function pokersolver(deals) {
  const { PaiGowPokerHelper } = require("pokersolver");
  const inputs = deals.map((deal) => deal.map(toSolver));
  // Warm-up on a slice so the JIT has seen every branch it is likely to take.
  for (let i = 0; i < Math.min(2000, inputs.length); i++) PaiGowPokerHelper.solve(inputs[i]);
  const settings = new Array(inputs.length);
  const started = performance.now();
  for (let i = 0; i < inputs.length; i++) {
    const helper = PaiGowPokerHelper.solve(inputs[i]);
    settings[i] = helper;
  }
  const seconds = (performance.now() - started) / 1000;
  // Read the settings out after the clock stopped: only the solving is timed.
  const out = settings.map((helper) => ({
    back: helper.hiHand ? helper.hiHand.cardPool.map(fromSolver) : null,
    front: helper.loHand ? helper.loHand.cardPool.map(fromSolver) : null,
  }));
  return { rate: inputs.length / seconds, seconds, settings: out };
}

async function pyodideEngine(dealsPath, lucks, build) {
  const { DEFAULT_BUILD, loadNodeEngine } = await import("../frontend/tools/engine-node.mjs");
  const engine = await loadNodeEngine(build ?? DEFAULT_BUILD);
  const { pyodide } = engine;
  pyodide.FS.writeFile("/home/pyodide/deals.json", readFileSync(dealsPath, "utf8"));
  const ns = pyodide.toPy({ LUCKS: lucks });
  pyodide.runPython(`
import json, platform, statistics, time
from games.engine import house_way
from games.engine.cards import INDEX
from games.engine.house_way import PATTERN_CACHE, house_way_indices
from games.engine.luck import luck_counts

deals = json.load(open("/home/pyodide/deals.json"))["deals"]
python = platform.python_version()
start = time.perf_counter()
for deal in deals:
    house_way(deal)
public_rate = len(deals) / (time.perf_counter() - start)
hands = [tuple(INDEX[c] for c in deal) for deal in deals]
PATTERN_CACHE.clear()
start = time.perf_counter()
for hand in hands:
    house_way_indices(hand)
internal_rate = len(hands) / (time.perf_counter() - start)
times = []
for hand in hands[:LUCKS]:
    t = time.perf_counter()
    luck_counts(hand, "solo", "player", 120)
    times.append(time.perf_counter() - t)
luck_median = statistics.median(times) * 1000
luck_p90 = sorted(times)[int(0.9 * len(times))] * 1000
`, { globals: ns });
  const get = (name) => ns.get(name);
  const result = {
    pyodide: pyodide.version, python: get("python"), loadMs: engine.loadMs,
    publicRate: get("public_rate"), internalRate: get("internal_rate"),
    luckMedianMs: get("luck_median"), luckP90Ms: get("luck_p90"), lucks: Math.min(lucks, get("hands").length),
  };
  ns.destroy();
  return result;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const [dealsPath, outPath] = args.files;
  const deals = JSON.parse(readFileSync(dealsPath, "utf8")).deals;
  const solver = pokersolver(deals);
  const out = {
    node: process.version,
    pokersolver: { version: require("pokersolver/package.json").version, rate: solver.rate, seconds: solver.seconds },
    settings: solver.settings,
  };
  if (args.pyodide) out.pyodide = await pyodideEngine(dealsPath, args.lucks, args.build);
  writeFileSync(outPath, JSON.stringify(out));
}

main().catch((error) => {
  console.error(`peers: ${error.stack ?? error}`);
  process.exitCode = 1;
});
