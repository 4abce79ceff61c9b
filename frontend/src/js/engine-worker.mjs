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
// pages (engine-core.mjs sparseSnapshot: 16 of 31 MB), in Cache Storage
// (SNAPSHOT_STORE, one entry: its content-keyed URL) for the next visit: read
// back faster than the HTTP cache's brotli copy is decoded (benchmarks/boot.py).
// A kept snapshot that is refused is deleted. Without Cache Storage (a page
// that is not a secure context) the HTTP cache alone serves it.
//
// Messages:
//   worker -> page  {type: "ready", ms, pyodide, engine, boot, refused}
//                                                              once loaded (ms: load time;
//                                                              boot: "snapshot", "python" or
//                                                              "fallback"; refused: why not;
//                                                              phases: ms of its steps;
//                                                              snapshotFrom: "network",
//                                                              "cache-storage" or null)
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

/** The worker's Cache Storage for snapshots, or null where there is none. */
const SNAPSHOT_STORE = "paigow-engine-snapshot";

async function snapshotStore() {
  try {
    return globalThis.caches ? await caches.open(SNAPSHOT_STORE) : null;
  } catch {
    return null; // storage switched off or full: the HTTP cache still works
  }
}

/** The snapshot's bytes, from Cache Storage when kept there, else fetched. */
async function snapshotBytes(url, store) {
  const kept = store && await store.match(url).catch(() => undefined);
  if (kept) {
    try {
      return { bytes: denseSnapshot(await kept.arrayBuffer()), from: "cache-storage" };
    } catch {
      // unreadable: fetch it again
    }
  }
  return { bytes: await bytesOf(url, "engine snapshot"), from: "network" };
}

/** After the boot: keep a fetched snapshot, drop a refused one and any other. */
async function keepSnapshot(store, url, loaded, booted) {
  if (!store) return;
  try {
    for (const request of await store.keys()) {
      if (request.url !== url || booted.boot !== "snapshot") await store.delete(request);
    }
    if (booted.boot === "snapshot" && loaded.from === "network") {
      await store.put(url, new Response(sparseSnapshot(loaded.bytes), {
        headers: { "Content-Type": "application/octet-stream" },
      }));
    }
  } catch (error) {
    console.warn(`The engine snapshot was not kept for the next visit: ${error?.message ?? error}`);
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
  const archive = bytesOf(archiveURL, "engine archive");
  const store = snapshotURL ? await snapshotStore() : null;
  const loaded = snapshotURL ? snapshotBytes(snapshotURL, store) : null;
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
  const bootStarted = Math.round(performance.now() - started);
  const booted = await bootEngine(loadPyodide, options, archive, snapshot);
  handle = booted.handle;
  if (booted.refused) {
    console.warn(`The engine snapshot was refused, booting Python instead: ${booted.refused}`);
  }
  const ms = Math.round(performance.now() - started);
  self.postMessage({
    type: "ready", ms, pyodide: booted.pyodide.version, engine: archiveURL,
    boot: booted.boot, refused: booted.refused,
    // ms since the worker started: its modules and Pyodide's loader, then the boot's steps
    phases: Object.fromEntries([["loader", 0], ...Object.entries(booted.phases)]
      .map(([name, at]) => [name, at + bootStarted])),
    snapshotFrom: loaded ? await loaded.then((got) => got.from, () => null) : null,
  });
  // After the ready: requests that come meanwhile wait for these few ms.
  setTimeout(() => warmUp(handle), 0);
  // Not awaited: requests are answered while the snapshot is being kept.
  if (snapshotURL) loaded.then((got) => keepSnapshot(store, snapshotURL, got, booted), () => {});
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
