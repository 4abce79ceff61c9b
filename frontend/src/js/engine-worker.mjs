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
//
// Messages:
//   worker -> page  {type: "ready", ms, pyodide, engine, boot, refused}
//                                                              once loaded (ms: load time;
//                                                              boot: "snapshot", "python" or
//                                                              "fallback"; refused: why not)
//                   {type: "error", error}                     when loading failed
//   page -> worker  {id, request}                              request: {op: ..., ...}
//   worker -> page  {id, answer}                               whatever the engine answered,
//                                                              including {error: sentence}
//                   {id, error}                                the worker itself failed
// Requests sent before "ready" wait for the load.

import { answerWith, bootEngine } from "./engine-core.mjs";

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

async function boot(pyodideUrl, engineUrl, snapshotUrl) {
  const indexURL = sameOrigin(pyodideUrl, "Pyodide").href.replace(/\/?$/, "/");
  const archiveURL = sameOrigin(engineUrl, "engine archive").href;
  const snapshotURL = snapshotUrl ? sameOrigin(snapshotUrl, "engine snapshot").href : null;
  const archive = bytesOf(archiveURL, "engine archive");
  const snapshot = snapshotURL ? bytesOf(snapshotURL, "engine snapshot") : null;
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
  const options = {
    indexURL,
    lockFileURL: new URL("pyodide-lock.json", indexURL).href,
    packageBaseUrl: indexURL,
    stdout: (text) => console.log(text),
    stderr: (text) => console.warn(text),
  };
  const booted = await bootEngine(loadPyodide, options, archive, snapshot);
  handle = booted.handle;
  if (booted.refused) {
    console.warn(`The engine snapshot was refused, booting Python instead: ${booted.refused}`);
  }
  const ms = Math.round(performance.now() - started);
  self.postMessage({
    type: "ready", ms, pyodide: booted.pyodide.version, engine: archiveURL,
    boot: booted.boot, refused: booted.refused,
  });
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
