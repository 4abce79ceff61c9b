#!/usr/bin/env node
// Engine speed under Pyodide in Node: the browser's runtime and engine archive.
//
//   node benchmarks/engine_node.mjs [--hands N] [--lucks N] [--build DIR]
//
// Same measurements, same deals as benchmarks/engine.py: that very file is
// copied into Pyodide's file system and its deals() (random.Random(seed), seed
// 20240601 for house way and 7 for luck; Mersenne Twister is identical in
// CPython 3.11 and Pyodide's 3.14) and time_house_way() are used, so the
// numbers compare directly with `python3 benchmarks/engine.py`. Also printed:
// Pyodide's cold load time and the luck latency as the page sees it, through
// the worker's JSON glue (one {"op": "luck"} request, 120 samples).
// Build first: python frontend/build.py

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { DEFAULT_BUILD, loadNodeEngine } from "../frontend/tools/engine-node.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const args = { hands: 100_000, lucks: 200, build: DEFAULT_BUILD };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--hands") args.hands = Number.parseInt(argv[++i], 10);
    else if (flag === "--lucks") args.lucks = Number.parseInt(argv[++i], 10);
    else if (flag === "--build") args.build = resolve(argv[++i]);
    else throw new Error(`unknown argument ${flag} (use --hands N --lucks N --build DIR)`);
  }
  if (!(args.hands > 0 && args.lucks > 0)) throw new Error("--hands and --lucks take positive numbers");
  return args;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function p90(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(0.9 * sorted.length)];
}

const fmt = (n) => Math.round(n).toLocaleString("en-US");

async function main() {
  const args = parseArgs(process.argv.slice(2));
  console.log(`$ node${process.versions.node.split(".")[0]} benchmarks/engine_node.mjs `
    + `--hands ${args.hands} --lucks ${args.lucks}`);
  const engine = await loadNodeEngine(args.build);
  const { pyodide } = engine;
  console.log(`Pyodide ${pyodide.version} (Python ${pyodide.runPython("import platform; platform.python_version()")}) `
    + `+ ${engine.manifest.engine}: cold load ${fmt(engine.loadMs)} ms`);

  // benchmarks/engine.py itself, importable inside Pyodide.
  pyodide.FS.mkdirTree("/home/pyodide/bench");
  pyodide.FS.writeFile("/home/pyodide/bench/engine_bench.py", readFileSync(resolve(HERE, "engine.py"), "utf8"));
  const ns = pyodide.toPy({ HANDS: args.hands, LUCKS: args.lucks });
  pyodide.runPython(`
import sys, time, statistics
sys.path.insert(0, "/home/pyodide/bench")
import engine_bench
from engine_bench import deals, time_house_way, PATTERN_CACHE, luck_counts

hands = deals(HANDS, seed=20240601)
PATTERN_CACHE.clear()
cold = time_house_way(hands)
warm = time_house_way(hands)
cached = len(PATTERN_CACHE)
times = []
luck_hands = deals(LUCKS, seed=7)
for hand in luck_hands:
    start = time.perf_counter()
    luck_counts(hand, "solo", "player", 120)
    times.append(time.perf_counter() - start)
luck_median = statistics.median(times) * 1000
luck_p90 = sorted(times)[int(0.9 * len(times))] * 1000
from games.engine.cards import text
luck_texts = [text(hand) for hand in luck_hands]
`, { globals: ns });
  const get = (name) => ns.get(name);
  console.log(`house way, cold cache: ${fmt(get("cold"))} settings/s`);
  console.log(`house way, warm cache: ${fmt(get("warm"))} settings/s (${fmt(get("cached"))} rank patterns cached)`);
  console.log(`luck (120 samples), median of ${args.lucks}: ${get("luck_median").toFixed(2)} ms `
    + `(p90 ${get("luck_p90").toFixed(2)} ms)`);

  // As the page sees it: a JSON request through the worker glue, fresh hands
  // (the luck of a deal is computed once, so no two requests repeat a hand).
  const texts = get("luck_texts").toJs();
  const elapsed = [];
  for (const cards of texts) {
    const start = performance.now();
    const answer = engine.answer({ op: "luck", cards, mode: "friend", side: "player", samples: 120 });
    elapsed.push(performance.now() - start);
    if (answer.error) throw new Error(answer.error);
  }
  console.log(`luck request through the worker glue (JSON in/out, friend), median of ${texts.length}: `
    + `${median(elapsed).toFixed(2)} ms (p90 ${p90(elapsed).toFixed(2)} ms)`);
  ns.destroy();
}

main().catch((error) => {
  console.error(`engine_node: ${error.stack ?? error}`);
  process.exitCode = 1;
});
