// Starts the table page's engine worker as early as the page allows: loaded
// as an async module from the page's <head>, it runs as soon as it and
// engine-client.mjs are fetched, before the page has parsed and before
// table.mjs's own modules arrive. table.mjs's sharedEngine() gets this engine.

import { sharedEngine } from "./engine-client.mjs";

// This file is <static>/js/engine-start.mjs, so the static root is one up.
sharedEngine({ staticUrl: new URL("../", import.meta.url).href }).catch(() => {
  // table.mjs reports a failure through the same promise
});
