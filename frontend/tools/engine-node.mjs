#!/usr/bin/env node
// The browser's engine, in Node: Pyodide from frontend/build/pyodide/<version>/
// and the very engine archive the site serves (frontend/build/engine/*.zip),
// answered through the same glue as the Web Worker (src/js/engine-core.mjs).
//
//   node frontend/tools/engine-node.mjs [--build DIR] [--snapshot [FILE]] [--timing] \
//        < requests.jsonl > answers.jsonl
//
// Like `python -m games.engine batch`: one JSON request per line in, one JSON
// answer per line out, blank lines skipped, a bad line answered with {"error": ...}.
// --snapshot boots as the worker does from the build's memory snapshot (or
// FILE), falling back to booting Python when it is refused; --timing writes
// the load time and how it booted to stderr. Build first: python frontend/build.py

import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

import { answerWith, bootEngine } from "../src/js/engine-core.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_BUILD = resolve(HERE, "..", "build");

/**
 * Load Pyodide and the engine from a build directory; with `snapshot` (true:
 * the manifest's, or a file's path) through the engine's memory snapshot.
 * Resolves to {handle, answer, pyodide, manifest, loadMs, boot, refused}:
 * handle(line) -> line, answer(object) -> object.
 */
export async function loadNodeEngine(build = DEFAULT_BUILD, { snapshot = false } = {}) {
  const manifestPath = join(build, "manifest.json");
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  } catch (error) {
    throw new Error(`No client build at ${manifestPath}: run python frontend/build.py (${error.message})`);
  }
  const indexDir = join(build, manifest.pyodide);
  const started = performance.now();
  const { loadPyodide } = await import(pathToFileURL(join(indexDir, "pyodide.mjs")).href);
  let snapshotBytes = null;
  if (snapshot) {
    const path = snapshot === true ? manifest.snapshot && join(build, manifest.snapshot) : snapshot;
    if (!path) throw new Error(`${manifestPath} names no snapshot (was Node missing at build time?)`);
    snapshotBytes = Promise.resolve().then(() => readFileSync(path));
  }
  const archive = Promise.resolve(readFileSync(join(build, manifest.engine)));
  const { pyodide, handle, boot, refused } = await bootEngine(
    loadPyodide, { indexURL: indexDir + "/" }, archive, snapshotBytes);
  const loadMs = performance.now() - started;
  return {
    handle, answer: (request) => answerWith(handle, request), pyodide, manifest, loadMs, boot,
    refused,
  };
}

async function main(argv) {
  let build = DEFAULT_BUILD;
  let timing = false;
  let snapshot = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--build") build = resolve(argv[++i]);
    else if (argv[i] === "--timing") timing = true;
    else if (argv[i] === "--snapshot") {
      snapshot = i + 1 < argv.length && !argv[i + 1].startsWith("--") ? resolve(argv[++i]) : true;
    }
    else if (argv[i] === "--help" || argv[i] === "-h") {
      process.stdout.write("usage: node frontend/tools/engine-node.mjs [--build DIR] [--snapshot [FILE]] [--timing] < requests.jsonl\n");
      return 0;
    } else {
      process.stderr.write(`engine-node: unknown argument ${argv[i]}\n`);
      return 2;
    }
  }
  const engine = await loadNodeEngine(build, { snapshot });
  if (timing) {
    process.stderr.write(`engine-node: Pyodide ${engine.pyodide.version} and ${engine.manifest.engine} `
      + `loaded in ${engine.loadMs.toFixed(0)} ms (boot: ${engine.boot})\n`);
    if (engine.refused) process.stderr.write(`engine-node: snapshot refused: ${engine.refused}\n`);
  }
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    process.stdout.write(engine.handle(line) + "\n");
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (status) => { process.exitCode = status; },
    (error) => { process.stderr.write(`engine-node: ${error.stack ?? error}\n`); process.exitCode = 1; },
  );
}
