#!/usr/bin/env node
// Make the engine's Pyodide memory snapshot at build time (frontend/build.py
// runs it): boot Pyodide from a build directory with `_makeSnapshot`, install
// and import the engine through the worker's own glue (src/js/engine-core.mjs),
// and write the heap to OUT, with OUT.gz and OUT.br beside it for whitenoise.
//
//   node frontend/tools/engine-snapshot.mjs --build DIR --archive ZIP --out FILE
//
// The worker restores it in a browser instead of booting Python (about 0.35 s
// against 2–4 s): engine-worker.mjs, "snapshot" in the build manifest.

import { webcrypto } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { snapshotEngine } from "../src/js/engine-core.mjs";
import { precompress } from "./precompress.mjs";

function options(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, "");
    if (!["build", "archive", "out", "pyodide"].includes(name) || i + 1 >= argv.length) {
      throw new Error(`usage: engine-snapshot.mjs --build DIR --pyodide SUBDIR --archive ZIP --out FILE (got ${argv[i]})`);
    }
    out[name] = argv[++i];
  }
  for (const name of ["build", "pyodide", "archive", "out"]) {
    if (!out[name]) throw new Error(`engine-snapshot.mjs needs --${name}`);
  }
  return out;
}

globalThis.crypto ??= webcrypto; // Node 18 has WebCrypto, but not as a global

/** Boot Pyodide from indexDir for a snapshot and return the engine's heap. */
export async function makeSnapshot(indexDir, archive) {
  const { loadPyodide } = await import(pathToFileURL(join(indexDir, "pyodide.mjs")).href);
  const pyodide = await loadPyodide({ indexURL: indexDir + "/", _makeSnapshot: true });
  return snapshotEngine(pyodide, archive);
}

async function main(argv) {
  const { build, pyodide, archive, out } = options(argv);
  const started = performance.now();
  const snapshot = await makeSnapshot(resolve(build, pyodide), readFileSync(resolve(archive)));
  const target = resolve(out);
  writeFileSync(target + ".part", snapshot);
  renameSync(target + ".part", target);
  const sizes = precompress([target]);
  const ms = Math.round(performance.now() - started);
  process.stdout.write(`engine-snapshot: ${snapshot.length} bytes (${sizes.join(", ")}) in ${ms} ms\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    () => { process.exit(0); },
    (error) => { process.stderr.write(`engine-snapshot: ${error.stack ?? error}\n`); process.exit(1); },
  );
}
