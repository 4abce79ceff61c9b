// Starts the table page's engine worker as early as the page allows: loaded
// as an async module from the page's <head>, it runs as soon as it and
// engine-client.mjs are fetched (the page preloads both together), before
// the page has parsed and before table.mjs's own modules arrive.
// table.mjs's sharedEngine() gets this engine.
//
// Its own <script> element carries the worker's URLs (data-engine-worker,
// -pyodide, -archive, -snapshot: the build manifest's, written by the
// template tag engine_urls), so the worker starts with them at once; without
// them the client manifest is fetched first.

import { sharedEngine } from "./engine-client.mjs";

// This file is <static>/js/engine-start.mjs, so the static root is one up.
const staticUrl = new URL("../", import.meta.url).href;
const urls = document.querySelector("script[data-engine-worker]")?.dataset ?? {};
const options = urls.engineWorker && urls.enginePyodide && urls.engineArchive
  ? {
    staticUrl,
    workerUrl: urls.engineWorker,
    pyodideUrl: urls.enginePyodide,
    engineUrl: urls.engineArchive,
    snapshotUrl: urls.engineSnapshot || null,
  }
  : { staticUrl };
sharedEngine(options).catch(() => {
  // table.mjs reports a failure through the same promise
});
