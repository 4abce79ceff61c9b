// The page's handle on the engine worker (engine-worker.mjs).
//
//   const engine = createEngine({ workerUrl, pyodideUrl, engineUrl });
//   const { ms, boot } = await engine.ready;                 // Pyodide + engine loaded
//   const answer = await engine.call({ op: "luck", cards: "...", mode: "solo" });
//
// call() resolves with the engine's answer exactly as `python -m games.engine
// batch` would print it, including {error: sentence} for a bad request; use
// run() to get a rejection instead. Both reject when the worker itself fails.
// Or, from the build manifest: `const engine = await engineFromManifest();`, or
// the page's one engine, whoever asks first: `await sharedEngine()`.

export class EngineError extends Error {
  constructor(message, answer = null) {
    super(message);
    this.name = "EngineError";
    this.answer = answer;
  }
}

function absolute(url) {
  return new URL(url, globalThis.location?.href).href;
}

export function createEngine({ workerUrl, pyodideUrl, engineUrl, snapshotUrl = null }) {
  const url = new URL(workerUrl, globalThis.location?.href);
  url.searchParams.set("pyodide", absolute(pyodideUrl));
  url.searchParams.set("engine", absolute(engineUrl));
  // The engine's memory snapshot (build manifest "snapshot"): restored instead
  // of booting Python; the worker falls back to booting when it is refused.
  if (snapshotUrl) url.searchParams.set("snapshot", absolute(snapshotUrl));
  return engineOf(new Worker(url, { type: "module" }));
}

/** The page's handle on a started worker (which has its URLs, or gets them by `init`). */
function engineOf(worker) {
  const pending = new Map();
  let nextId = 1;
  let settle;
  const ready = new Promise((resolve, reject) => {
    settle = { resolve, reject };
  });
  ready.catch(() => {}); // callers see the rejection through call() too

  function failAll(message) {
    settle.reject(new EngineError(message));
    for (const { reject } of pending.values()) reject(new EngineError(message));
    pending.clear();
  }

  worker.addEventListener("message", (event) => {
    const data = event.data ?? {};
    if (data.type === "ready") {
      settle.resolve(data);
      return;
    }
    if (data.type === "error") {
      failAll(data.error);
      return;
    }
    const waiting = pending.get(data.id);
    if (!waiting) return;
    pending.delete(data.id);
    if ("error" in data) waiting.reject(new EngineError(data.error));
    else waiting.resolve(data.answer);
  });
  worker.addEventListener("error", (event) => {
    event.preventDefault?.();
    failAll(`The engine worker failed: ${event.message || "it did not start"}.`);
  });

  function call(request) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, request });
    });
  }

  async function run(request) {
    const answer = await call(request);
    if (answer && typeof answer === "object" && "error" in answer) {
      throw new EngineError(answer.error, answer);
    }
    return answer;
  }

  function terminate() {
    worker.terminate();
    failAll("The engine worker was stopped.");
  }

  return { ready, call, run, terminate, worker };
}

/**
 * Start the engine from build/manifest.json, served at {staticUrl}manifest.json.
 * Without `workerUrl` it starts js/engine-worker.mjs (its modules are asked
 * of the site again on each visit; the manifest's "worker", a content-named
 * copy, is cached for good, but naming it needs the manifest first).
 */
export async function engineFromManifest({ staticUrl = "/static/", workerUrl } = {}) {
  const base = new URL(staticUrl, globalThis.location?.href);
  // The worker fetches its own modules while the manifest is fetched; its
  // URLs follow in an init message, before any request can be sent.
  const worker = new Worker(workerUrl ?? new URL("js/engine-worker.mjs", base).href,
    { type: "module" });
  let manifest;
  try {
    const response = await fetch(new URL("manifest.json", base), { credentials: "same-origin" });
    if (!response.ok) throw new EngineError(`The client manifest did not load (${response.status}).`);
    manifest = await response.json();
  } catch (error) {
    worker.terminate();
    throw error;
  }
  const engine = engineOf(worker);
  worker.postMessage({
    type: "init",
    pyodideUrl: new URL(manifest.pyodide, base).href,
    engineUrl: new URL(manifest.engine, base).href,
    snapshotUrl: manifest.snapshot ? new URL(manifest.snapshot, base).href : null,
  });
  return engine;
}

let shared = null;

/**
 * One engine for the page, started by whoever asks first: the table page's
 * engine-start.mjs (an async module in its <head>, so the worker starts
 * while the page still parses) or table.mjs, which then gets the same one.
 * With every URL given (workerUrl, pyodideUrl, engineUrl; snapshotUrl if
 * any: the page's data attributes) the worker starts with them in its query
 * string, no manifest fetched; otherwise from the manifest.
 */
export function sharedEngine(options = {}) {
  if (shared === null) {
    performance.mark("paigow-engine-start"); // benchmarks/boot.py
    const { workerUrl, pyodideUrl, engineUrl } = options;
    shared = workerUrl && pyodideUrl && engineUrl
      ? new Promise((resolve) => resolve(createEngine(options)))
      : engineFromManifest(options);
  }
  return shared;
}
