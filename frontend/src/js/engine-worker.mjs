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
//                                                              snapshotFrom, wasmFrom: "network",
//                                                              "cache-storage" or null;
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

/** The worker's Cache Storage for snapshots, or null where there is none. */
const SNAPSHOT_STORE = "paigow-engine-snapshot";

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

// ------------------------------------------------ Pyodide's WebAssembly, kept
//
// On a return visit pyodide.asm.wasm comes out of the HTTP cache as it was
// sent, brotli, and the network service decodes its 9.6 MB again while V8
// compiles it, once Pyodide's own module has loaded: the last of a return
// boot's reads to finish (benchmarks/boot.py). The worker keeps the decoded
// module in Cache Storage too (RUNTIME_STORE, one entry: its URL, which names
// Pyodide's version). On the next boot it reads it back and compiles it as
// it starts, beside the snapshot's read and Pyodide's loader, and answers
// Pyodide's fetch of that URL and its instantiateStreaming of the answer with
// the compiled module (the pinned 314.0.7 fetches it with the global fetch,
// browser_getBinaryResponse, and instantiates it with the global
// WebAssembly.instantiateStreaming). Everything else goes through. Pyodide
// hangs on a module that does not compile (it only logs "wasm instantiation
// failed!"), so a kept copy is answered only once it has compiled; one that
// does not is dropped, and Pyodide fetches the site's.

const RUNTIME_STORE = "paigow-engine-runtime";

/** The kept module, compiled, with its bytes; or null (none kept, or dropped). */
async function keptWasm(store, wasmURL) {
  try {
    const kept = store && await store.match(wasmURL);
    if (!kept) return null;
    const bytes = await kept.arrayBuffer();
    try {
      const module = await WebAssembly.compile(bytes);
      return { bytes, module, compiled: Math.round(performance.now() - started) };
    } catch {
      await store.delete(wasmURL);
    }
  } catch {
    // unreadable: Pyodide fetches it from the site
  }
  return null;
}

/** While Pyodide loads: its fetch of `wasmURL` answered with the kept module, else
 * let through and copied, to keep after the boot. */
function serveWasm(wasmURL, store) {
  const siteFetch = self.fetch;
  const siteInstantiate = WebAssembly.instantiateStreaming;
  const kept = keptWasm(store, wasmURL);
  const compiled = new WeakMap(); // the answers given, to their modules
  const served = { from: null, copy: null, compiled: null, instantiate: null };
  self.fetch = function fetchWasm(input, init) {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== wasmURL) return siteFetch.call(self, input, init);
    return kept.then((found) => {
      if (found && served.from === null) {
        served.from = "cache-storage";
        served.compiled = found.compiled;
        const answer = new Response(found.bytes, { headers: { "Content-Type": "application/wasm" } });
        compiled.set(answer, found.module);
        return answer;
      }
      served.from = "network";
      return siteFetch.call(self, input, init).then((response) => {
        served.copy = response.ok && store ? response.clone() : null; // kept only with a store
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
    /** After a boot: keep a module fetched from the site (dropping any other URL). */
    async keep() {
      const copy = served.copy;
      served.copy = null;
      if (!store || !copy) return;
      try {
        const bytes = await copy.arrayBuffer();
        for (const request of await store.keys()) {
          if (request.url !== wasmURL) await store.delete(request);
        }
        await store.put(wasmURL, new Response(bytes, {
          headers: { "Content-Type": "application/wasm" } }));
      } catch (error) {
        console.warn(`Pyodide's WebAssembly was not kept for the next visit: ${error?.message ?? error}`);
      }
    },
  };
}

async function openStore(name) {
  try {
    return globalThis.caches ? await caches.open(name) : null;
  } catch {
    return null; // storage switched off or full: the HTTP cache still works
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
  const [store, runtimeStore] = await Promise.all(
    [snapshotURL ? openStore(SNAPSHOT_STORE) : null, openStore(RUNTIME_STORE)]);
  const loaded = snapshotURL ? snapshotBytes(snapshotURL, store) : null;
  const wasm = serveWasm(new URL("pyodide.asm.wasm", indexURL).href, runtimeStore);
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
  if (snapshotURL) loaded.then((got) => keepSnapshot(store, snapshotURL, got, booted), () => {});
  wasm.keep();
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
