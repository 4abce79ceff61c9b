// A module Web Worker that runs the game engine (games/engine) under Pyodide.
//
// Start it with the site's own URLs, either in the query string
//   new Worker("/static/js/engine-worker.mjs?pyodide=/static/pyodide/314.0.7/&engine=/static/engine/engine-<hash>.zip",
//              { type: "module" })
// or, without a query string, by posting {type: "init", pyodideUrl, engineUrl} first.
// Both URLs must be on the worker's own origin: nothing is ever fetched from a CDN.
//
// Messages:
//   worker -> page  {type: "ready", ms, pyodide, engine}        once loaded (ms: load time)
//                   {type: "error", error}                     when loading failed
//   page -> worker  {id, request}                              request: {op: ..., ...}
//   worker -> page  {id, answer}                               whatever the engine answered,
//                                                              including {error: sentence}
//                   {id, error}                                the worker itself failed
// Requests sent before "ready" wait for the load.

import { answerWith, installEngine } from "./engine-core.mjs";

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

async function boot(pyodideUrl, engineUrl) {
  const indexURL = sameOrigin(pyodideUrl, "Pyodide").href.replace(/\/?$/, "/");
  const archiveURL = sameOrigin(engineUrl, "engine archive").href;
  const archive = fetch(archiveURL, { credentials: "same-origin" }).then((response) => {
    if (!response.ok) {
      throw new Error(`The engine archive did not load (${response.status} ${archiveURL}).`);
    }
    return response.arrayBuffer();
  });
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
  const pyodide = await loadPyodide({
    indexURL,
    lockFileURL: new URL("pyodide-lock.json", indexURL).href,
    packageBaseUrl: indexURL,
    stdout: (text) => console.log(text),
    stderr: (text) => console.warn(text),
  });
  handle = installEngine(pyodide, await archive);
  const ms = Math.round(performance.now() - started);
  self.postMessage({ type: "ready", ms, pyodide: pyodide.version, engine: archiveURL });
}

function start(pyodideUrl, engineUrl) {
  if (booting === null) {
    booting = boot(pyodideUrl, engineUrl);
    booting.catch((error) => self.postMessage({ type: "error", error: String(error?.message ?? error) }));
  }
  return booting;
}

const params = new URL(self.location.href).searchParams;
if (params.has("pyodide") || params.has("engine")) {
  start(params.get("pyodide"), params.get("engine"));
}

self.addEventListener("message", async (event) => {
  const data = event.data ?? {};
  if (data.type === "init") {
    start(data.pyodideUrl, data.engineUrl);
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
