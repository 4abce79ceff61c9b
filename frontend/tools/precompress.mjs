#!/usr/bin/env node
// Write FILE.gz and FILE.br beside each FILE, as whitenoise serves them
// (Content-Encoding by the browser's Accept-Encoding), so the site sends
// Pyodide's 9.6 MB of WebAssembly and the engine's snapshot compressed in
// every mode. Node's own zlib: no dependency. Idempotent: a copy newer than
// its file is kept.
//
//   node frontend/tools/precompress.mjs FILE...

import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

// Brotli's best quality takes ~30 s on the 9.6 MB wasm (2.74 MB against 3.10
// at quality 9); big files get quality 9, the rest the best.
const BEST_UP_TO = 2_000_000;

function fresh(copy, source) {
  try {
    return statSync(copy).mtimeMs >= statSync(source).mtimeMs;
  } catch {
    return false;
  }
}

function write(path, bytes) {
  writeFileSync(path + ".part", bytes);
  renameSync(path + ".part", path);
}

/** Compress each file (gzip 9, brotli) unless its copies are fresh; returns sizes. */
export function precompress(files) {
  const sizes = [];
  for (const file of files) {
    const gz = `${file}.gz`;
    const br = `${file}.br`;
    if (fresh(gz, file) && fresh(br, file)) {
      sizes.push(`${file}: fresh`);
      continue;
    }
    const data = readFileSync(file);
    const quality = data.length <= BEST_UP_TO ? 11 : 9;
    const gzipped = zlib.gzipSync(data, { level: 9 });
    const brotli = zlib.brotliCompressSync(data, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      },
    });
    write(gz, gzipped);
    write(br, brotli);
    sizes.push(`${file}: ${data.length} -> gz ${gzipped.length}, br ${brotli.length}`);
  }
  return sizes;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    for (const line of precompress(process.argv.slice(2).map((f) => resolve(f)))) {
      process.stdout.write(`precompress: ${line}\n`);
    }
  } catch (error) {
    process.stderr.write(`precompress: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  }
}
