// A module Web Worker that runs the game engine (games/engine) under Pyodide.
//
// Start it with the site's own URLs, either in the query string
//   new Worker("/static/js/engine-worker.mjs?pyodide=/static/pyodide/314.0.7/&engine=/static/engine/engine-<hash>.zip"
//              + "&snapshot=/static/engine/snapshot-<key>.bin", { type: "module" })
// or, without a query string, by posting {type: "init", pyodideUrl, engineUrl, snapshotUrl} first.
// Every URL must be on the worker's own origin: nothing is ever fetched from a CDN.
//
// With a snapshot URL the worker restores the engine's Pyodide memory snapshot
// (made at build time: frontend/tools/engine-snapshot.mjs) instead of booting
// Python and importing the engine. When the snapshot does not load, or Pyodide
// or the engine's digest check refuses it, the worker boots Python as without
// one ("fallback", with the reason, in the ready message and the console).
// A snapshot restored from the network is kept, decoded and without its zero
// pages (engine-core.mjs sparseSnapshot: 16 of 31 MB), in the origin's private
// file system (KEPT_DIR, the file "snapshot", which names its content-keyed
// URL) for the next visit: read back faster than the HTTP cache's brotli copy
// is decoded (benchmarks/boot.py). A kept snapshot that is refused is deleted.
// Without that file system (a page that is not a secure context, a browser
// without sync access handles) the HTTP cache alone serves it.
//
// Messages:
//   worker -> page  {type: "ready", ms, pyodide, engine, boot, refused}
//                                                              once loaded (ms: load time;
//                                                              boot: "snapshot", "python" or
//                                                              "fallback"; refused: why not;
//                                                              phases: ms of its steps;
//                                                              snapshotFrom, wasmFrom: "network",
//                                                              "kept" or null;
//                                                              startedAt: its first line, ms
//                                                              since the epoch)
//                   {type: "error", error}                     when loading failed
//   page -> worker  {id, request}                              request: {op: ..., ...}
//   worker -> page  {id, answer}                               whatever the engine answered,
//                                                              including {error: sentence}
//                   {id, error}                                the worker itself failed
// Requests sent before "ready" wait for the load.

import { answerWith, bootEngine, denseSnapshot, sparseSnapshot, warmUp } from "./engine-core.mjs";

const started = performance.now();
let handle = null;
let booting = null;

function sameOrigin(value, what) {
  if (typeof value !== "string" || value === "") {
    throw new Error(`The engine worker needs the ${what} URL.`);
  }
  const url = new URL(value, self.location.href);
  if (url.origin !== self.location.origin) {
    throw new Error(`The ${what} URL must be on this site (${self.location.origin}), not ${url.origin}.`);
  }
  return url;
}

function bytesOf(url, what) {
  return fetch(url, { credentials: "same-origin" }).then((response) => {
    if (!response.ok) {
      throw new Error(`The ${what} did not load (${response.status} ${url}).`);
    }
    return response.arrayBuffer();
  });
}

// ------------------------------------------------------------ kept files
//
// What the worker keeps for the next visit lives in the origin private file
// system, read and written with sync access handles (dedicated workers only).
// Cache Storage kept them before: its reads cross to the browser process in a
// data pipe, and the two kept copies cost a return visit 60 ms and 115 ms of
// CPU there against 23 ms and 45 ms read from a file (docs/benchmarks.md, "Engine
// boot", "Fourth round"). One file a kind, its URL in a header, so a new URL replaces
// the old copy: MAGIC, the URL's length, the payload's length (two uint32s,
// little-endian), the URL (UTF-8), the payload. A copy is written to a part
// file and moved into place once whole; a file with another URL, a bad header
// or a length that does not match is no copy.

const KEPT_DIR = "paigow-engine";
const KEPT_MAGIC = 0x50474b31; // "PGK1"
const KEPT_HEADER = 12;
// Where a release before this one kept its copies: emptied after a boot.
const OLD_CACHE_STORES = ["paigow-engine-snapshot", "paigow-engine-runtime"];

/** The directory of kept files, or null where there is none. */
async function openKept() {
  try {
    if (!globalThis.FileSystemFileHandle?.prototype?.createSyncAccessHandle) return null;
    const root = await navigator.storage.getDirectory();
    return await root.getDirectoryHandle(KEPT_DIR, { create: true });
  } catch {
    return null; // storage switched off, or a context without it: the HTTP cache still works
  }
}

/** The payload kept as `name` for `url` (an ArrayBuffer), or null. */
async function readKept(dir, name, url) {
  if (!dir) return null;
  let access = null;
  try {
    const file = await dir.getFileHandle(name);
    // read-only: another tab's worker may read the same file at once
    access = await file.createSyncAccessHandle({ mode: "read-only" });
    const size = access.getSize();
    const header = new DataView(new ArrayBuffer(KEPT_HEADER));
    if (size < KEPT_HEADER || access.read(header, { at: 0 }) !== KEPT_HEADER
        || header.getUint32(0, true) !== KEPT_MAGIC) return null;
    const urlLength = header.getUint32(4, true);
    const length = header.getUint32(8, true);
    if (size !== KEPT_HEADER + urlLength + length) return null;
    const named = new Uint8Array(urlLength);
    access.read(named, { at: KEPT_HEADER });
    if (new TextDecoder().decode(named) !== url) return null;
    const payload = new Uint8Array(length);
    if (access.read(payload, { at: KEPT_HEADER + urlLength }) !== length) return null;
    return payload.buffer;
  } catch {
    return null; // none kept, or held by a writer: read from the site
  } finally {
    access?.close();
  }
}

/** Keep `bytes` as `name` for `url`: written whole to a part file, then moved into place. */
async function writeKept(dir, name, url, bytes) {
  const named = new TextEncoder().encode(url);
  const payload = new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength);
  const header = new DataView(new ArrayBuffer(KEPT_HEADER));
  header.setUint32(0, KEPT_MAGIC, true);
  header.setUint32(4, named.length, true);
  header.setUint32(8, payload.length, true);
  await dropParts(dir, name); // what a stopped write (a closed tab) left
  const part = `${name}.part-${crypto.randomUUID()}`;
  const file = await dir.getFileHandle(part, { create: true });
  try {
    const access = await file.createSyncAccessHandle();
    try {
      access.truncate(0);
      access.write(header, { at: 0 });
      access.write(named, { at: KEPT_HEADER });
      access.write(payload, { at: KEPT_HEADER + named.length });
      access.flush();
    } finally {
      access.close();
    }
    await moveIntoPlace(file, name);
  } catch (error) {
    await dir.removeEntry(part).catch(() => {});
    throw error;
  }
}

/** Move a written part file to `name`, retried for a while: another tab's
 * worker (or page) reading the old copy holds it for a moment. */
async function moveIntoPlace(file, name) {
  for (let tries = 1; ; tries++) {
    try {
      return await file.move(name);
    } catch (error) {
      if (tries >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Drop the kept `name` (and any part file a stopped write left). */
async function dropKept(dir, name) {
  if (!dir) return;
  await dir.removeEntry(name).catch(() => {});
  await dropParts(dir, name);
}

async function dropParts(dir, name) {
  const parts = [];
  for await (const entry of dir.keys()) {
    if (entry.startsWith(`${name}.part-`)) parts.push(entry);
  }
  await Promise.all(parts.map((entry) => dir.removeEntry(entry).catch(() => {})));
}

/** The snapshot's bytes, from the kept file when there is one, else fetched. */
async function snapshotBytes(url, dir) {
  const kept = await readKept(dir, "snapshot", url);
  if (kept) {
    try {
      return { bytes: denseSnapshot(kept), from: "kept" };
    } catch {
      // unreadable: fetch it again
    }
  }
  return { bytes: await bytesOf(url, "engine snapshot"), from: "network" };
}

/** After the boot: keep a fetched snapshot, drop a refused one. */
async function keepSnapshot(dir, url, loaded, booted) {
  if (!dir) return;
  try {
    if (booted.boot !== "snapshot") {
      await dropKept(dir, "snapshot");
    } else if (loaded.from === "network") {
      await writeKept(dir, "snapshot", url, sparseSnapshot(loaded.bytes));
    }
  } catch (error) {
    console.warn(`The engine snapshot was not kept for the next visit: ${error?.message ?? error}`);
  }
}

// ------------------------------------------------ Pyodide's WebAssembly, kept
//
// On a return visit pyodide.asm.wasm comes out of the HTTP cache as it was
// sent, brotli, and the network service decodes its 9.6 MB again while V8
// compiles it, once Pyodide's own module has loaded: the last of a return
// boot's reads to finish (benchmarks/boot.py). The worker keeps the decoded
// module too (the kept file "runtime", naming its URL, which names Pyodide's
// version). On the next boot it reads it back and compiles it as
// it starts, beside the snapshot's read and Pyodide's loader, and answers
// Pyodide's fetch of that URL and its instantiateStreaming of the answer with
// the compiled module (the pinned 314.0.7 fetches it with the global fetch,
// browser_getBinaryResponse, and instantiates it with the global
// WebAssembly.instantiateStreaming). Everything else goes through. Pyodide
// hangs on a module that does not compile (it only logs "wasm instantiation
// failed!"), so a kept copy is answered only once it has compiled; one that
// does not is dropped, and Pyodide fetches the site's.

/** The kept module, compiled, with its bytes; or null (none kept, or dropped). */
async function keptWasm(dir, wasmURL) {
  const bytes = await readKept(dir, "runtime", wasmURL);
  if (!bytes) return null;
  try {
    const module = await WebAssembly.compile(bytes);
    return { bytes, module, compiled: Math.round(performance.now() - started) };
  } catch {
    await dropKept(dir, "runtime");
  }
  return null;
}

/** While Pyodide loads: its fetch of `wasmURL` answered with the kept module, else
 * let through and copied, to keep after the boot. */
function serveWasm(wasmURL, dir) {
  const siteFetch = self.fetch;
  const siteInstantiate = WebAssembly.instantiateStreaming;
  const kept = keptWasm(dir, wasmURL);
  const compiled = new WeakMap(); // the answers given, to their modules
  const served = { from: null, copy: null, compiled: null, instantiate: null };
  self.fetch = function fetchWasm(input, init) {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== wasmURL) return siteFetch.call(self, input, init);
    return kept.then((found) => {
      if (found && served.from === null) {
        served.from = "kept";
        served.compiled = found.compiled;
        const answer = new Response(found.bytes, { headers: { "Content-Type": "application/wasm" } });
        compiled.set(answer, found.module);
        return answer;
      }
      served.from = "network";
      return siteFetch.call(self, input, init).then((response) => {
        served.copy = response.ok && dir ? response.clone() : null; // kept only with somewhere to keep it
        return response;
      });
    });
  };
  WebAssembly.instantiateStreaming = function instantiateWasm(source, imports) {
    return Promise.resolve(source).then((response) => {
      const module = compiled.get(response);
      served.instantiate = Math.round(performance.now() - started);
      if (!module) return siteInstantiate.call(WebAssembly, response, imports);
      return WebAssembly.instantiate(module, imports).then((instance) => ({ instance, module }));
    });
  };
  return {
    served,
    /** Pyodide's fetches and instantiations are the platform's again. */
    restore() {
      self.fetch = siteFetch;
      WebAssembly.instantiateStreaming = siteInstantiate;
    },
    /** After a boot: keep a module fetched from the site (in place of any other). */
    async keep() {
      const copy = served.copy;
      served.copy = null;
      if (!dir || !copy) return;
      try {
        await writeKept(dir, "runtime", wasmURL, await copy.arrayBuffer());
      } catch (error) {
        console.warn(`Pyodide's WebAssembly was not kept for the next visit: ${error?.message ?? error}`);
      }
    },
  };
}

/** A release before this one kept its copies in Cache Storage: free that space. */
async function dropOldStores() {
  try {
    if (globalThis.caches) await Promise.all(OLD_CACHE_STORES.map((name) => caches.delete(name)));
  } catch {
    // storage switched off: nothing was kept there
  }
}

async function boot(pyodideUrl, engineUrl, snapshotUrl) {
  const indexURL = sameOrigin(pyodideUrl, "Pyodide").href.replace(/\/?$/, "/");
  const archiveURL = sameOrigin(engineUrl, "engine archive").href;
  const snapshotURL = snapshotUrl ? sameOrigin(snapshotUrl, "engine snapshot").href : null;
  // Pyodide's loader while the snapshot store opens (Pyodide itself fetches
  // its WebAssembly as loadPyodide starts, and compiles it once the
  // snapshot's bytes are in: compiling it earlier here did not pay on these
  // two cores, docs/benchmarks.md).
  const loader = import(new URL("pyodide.mjs", indexURL).href);
  loader.catch(() => {}); // awaited below
  // And its runtime's module beside it, which loadPyodide would import only
  // once called (its `createPyodideModule` option, typed experimental in
  // 314.0.7); when this import fails, Pyodide tries its own.
  const runtime = import(new URL("pyodide.asm.mjs", indexURL).href)
    .then((module) => module.default, () => undefined);
  const archive = bytesOf(archiveURL, "engine archive");
  const dir = await openKept();
  // The module first: its compile, on V8's threads, is the longer wait.
  const wasm = serveWasm(new URL("pyodide.asm.wasm", indexURL).href, dir);
  const loaded = snapshotURL ? snapshotBytes(snapshotURL, dir) : null;
  loaded?.catch(() => {}); // a snapshot that does not load is a fallback (bootEngine)
  const snapshot = loaded?.then((got) => got.bytes) ?? null;
  const { loadPyodide } = await loader;
  const options = {
    indexURL,
    lockFileURL: new URL("pyodide-lock.json", indexURL).href,
    packageBaseUrl: indexURL,
    stdout: (text) => console.log(text),
    stderr: (text) => console.warn(text),
  };
  const createPyodideModule = await runtime;
  if (createPyodideModule) options.createPyodideModule = createPyodideModule;
  const bootStarted = Math.round(performance.now() - started);
  let booted;
  try {
    booted = await bootEngine(loadPyodide, options, archive, snapshot);
  } finally {
    wasm.restore();
  }
  handle = booted.handle;
  if (booted.refused) {
    console.warn(`The engine snapshot was refused, booting Python instead: ${booted.refused}`);
  }
  const ms = Math.round(performance.now() - started);
  self.postMessage({
    type: "ready", ms, pyodide: booted.pyodide.version, engine: archiveURL,
    boot: booted.boot, refused: booted.refused,
    // ms since the worker started: its modules and Pyodide's loader, then the boot's steps
    phases: {
      ...Object.fromEntries([["loader", 0], ...Object.entries(booted.phases)]
        .map(([name, at]) => [name, at + bootStarted])),
      // the kept WebAssembly compiled, and Pyodide's instantiation asked for
      ...(wasm.served.compiled === null ? {} : { wasmCompiled: wasm.served.compiled }),
      ...(wasm.served.instantiate === null ? {} : { instantiate: wasm.served.instantiate }),
    },
    snapshotFrom: loaded ? await loaded.then((got) => got.from, () => null) : null,
    wasmFrom: wasm.served.from,
    startedAt: performance.timeOrigin + started, // the worker's first line, ms since the epoch
  });
  // After the ready: requests that come meanwhile wait for these few ms.
  setTimeout(() => warmUp(handle), 0);
  // Not awaited: requests are answered while the snapshot is being kept.
  if (snapshotURL) loaded.then((got) => keepSnapshot(dir, snapshotURL, got, booted), () => {});
  wasm.keep();
  dropOldStores();
}

function start(pyodideUrl, engineUrl, snapshotUrl) {
  if (booting === null) {
    booting = boot(pyodideUrl, engineUrl, snapshotUrl);
    booting.catch((error) => self.postMessage({ type: "error", error: String(error?.message ?? error) }));
  }
  return booting;
}

const params = new URL(self.location.href).searchParams;
if (params.has("pyodide") || params.has("engine")) {
  start(params.get("pyodide"), params.get("engine"), params.get("snapshot"));
}

self.addEventListener("message", async (event) => {
  const data = event.data ?? {};
  if (data.type === "init") {
    start(data.pyodideUrl, data.engineUrl, data.snapshotUrl);
    return;
  }
  const { id, request } = data;
  try {
    if (booting === null) {
      throw new Error("The engine worker was not given its URLs (query string or an init message).");
    }
    await booting;
    self.postMessage({ id, answer: answerWith(handle, request) });
  } catch (error) {
    self.postMessage({ id, error: String(error?.message ?? error) });
  }
});
