// The engine under Pyodide: shared by the Web Worker (engine-worker.mjs) and
// the Node harness (frontend/tools/engine-node.mjs), so both run one code path.
//
// The rules live only in games/engine (the very same source the server runs).
// The Python below only marshals: a JSON line in goes to batch.answer_line and
// its JSON line comes back, byte for byte what `python -m games.engine batch`
// writes. Every op, the page-facing ones included (describe, house_way_detail,
// settings, luck_detail, explore), is a batch op of the engine.

/** Where the engine archive is unpacked inside Pyodide's file system. */
export const ENGINE_DIR = "/home/pyodide/engine";

const GLUE = String.raw`
import sys

if ENGINE_DIR not in sys.path:
    sys.path.insert(0, ENGINE_DIR)

from games.engine import batch


def handle(line):
    """One JSON request line in, one JSON answer line out (never raises for bad input)."""
    return batch.answer_line(line)
`;

/**
 * Unpack the engine archive into a loaded Pyodide and return `handle(line)`,
 * a function from one JSON request line to one JSON answer line.
 *
 * @param {object} pyodide  the object loadPyodide resolved to
 * @param {ArrayBuffer|Uint8Array} archive  the bytes of engine-<hash>.zip
 */
export function installEngine(pyodide, archive) {
  pyodide.unpackArchive(plainBytes(archive), "zip", { extractDir: ENGINE_DIR });
  const namespace = pyodide.toPy({ ENGINE_DIR });
  pyodide.runPython(GLUE, { globals: namespace });
  const handle = namespace.get("handle");
  namespace.destroy();
  return (line) => handle(line);
}

// ------------------------------------------------------------ memory snapshot
//
// A Pyodide memory snapshot is the interpreter's whole heap, taken in Node at
// build time (frontend/tools/engine-snapshot.mjs) after the engine is
// imported; the worker restores it instead of booting Python and importing
// the engine again. The options are Pyodide's underscore-private
// `_makeSnapshot`, `makeMemorySnapshot()` and `_loadSnapshot` of the pinned
// 314.0.7 (frontend/test/engine-snapshot.test.mjs pins them). Pyodide refuses
// a heap of another build itself (its build id); the digest below refuses a
// heap holding another engine archive.

/** The Python global of a snapshot's heap naming the engine archive it holds. */
export const SNAPSHOT_DIGEST_NAME = "PAIGOW_ENGINE_SHA256";

// Imports every module of the engine, so the heap holds them all.
const IMPORT_ALL = String.raw`
import importlib
import pkgutil

import games.engine

for _module in pkgutil.walk_packages(games.engine.__path__, "games.engine."):
    importlib.import_module(_module.name)
`;

/** The SHA-256 of an archive's bytes, in hex (WebCrypto: in browsers and Node). */
export async function archiveDigest(archive) {
  const hash = await globalThis.crypto.subtle.digest("SHA-256", plainBytes(archive));
  return Array.from(new Uint8Array(hash), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Install the engine into a Pyodide loaded with {_makeSnapshot: true}, import
 * all of it, and return the heap as a snapshot (a Uint8Array).
 */
export async function snapshotEngine(pyodide, archive) {
  installEngine(pyodide, archive);
  pyodide.runPython(IMPORT_ALL, { globals: pyodide.toPy({}) });
  pyodide.globals.set(SNAPSHOT_DIGEST_NAME, await archiveDigest(archive));
  return pyodide.makeMemorySnapshot();
}

/**
 * The engine of a Pyodide restored from a snapshot ({_loadSnapshot}): checks
 * that the heap holds exactly this archive (else throws), unpacks the archive
 * again (the file system is not part of the heap) and returns `handle(line)`.
 */
export async function restoreEngine(pyodide, archive) {
  const held = pyodide.globals.get(SNAPSHOT_DIGEST_NAME);
  const wanted = await archiveDigest(archive);
  if (held !== wanted) {
    throw new Error(`The snapshot holds engine ${String(held).slice(0, 12)}, not ${wanted.slice(0, 12)}.`);
  }
  return installEngine(pyodide, archive);
}

/**
 * Boot Pyodide and the engine, from the snapshot when there is one. The
 * worker and the Node harness share this, so tests see the worker's path.
 *
 * @param {Function} loadPyodide  Pyodide's own, from its pyodide.mjs
 * @param {object} options  loadPyodide's options (indexURL, ...)
 * @param {Promise<ArrayBuffer|Uint8Array>} archive  the engine archive's bytes
 * @param {Promise<ArrayBuffer|Uint8Array>|null} snapshot  the snapshot's bytes, or null
 * @returns {Promise<{pyodide, handle, boot, refused}>}  boot: "snapshot", "python" or
 *   "fallback" (a snapshot was given and refused: `refused` says why)
 */
export async function bootEngine(loadPyodide, options, archive, snapshot = null) {
  let refused = null;
  if (snapshot) {
    // Pyodide awaits the bytes late; a failed fetch is a refusal, never unhandled.
    Promise.resolve(snapshot).catch(() => {});
    try {
      const pyodide = await loadPyodide({ ...options, _loadSnapshot: snapshot });
      return { pyodide, handle: await restoreEngine(pyodide, await archive), boot: "snapshot",
        refused };
    } catch (error) {
      refused = String(error?.message ?? error);
      await archive; // a missing archive fails the boot, with or without a snapshot
    }
  }
  const pyodide = await loadPyodide(options);
  return { pyodide, handle: installEngine(pyodide, await archive),
    boot: snapshot ? "fallback" : "python", refused };
}

// Pyodide wants a plain typed array (a Node Buffer is refused).
function plainBytes(archive) {
  return archive instanceof Uint8Array
    ? new Uint8Array(archive.buffer, archive.byteOffset, archive.byteLength)
    : new Uint8Array(archive);
}

/** Answer one request object with one answer object (a JSON round trip both ways). */
export function answerWith(handle, request) {
  const line = JSON.stringify(request);
  if (line === undefined) {
    throw new TypeError("A request must be a JSON value.");
  }
  return JSON.parse(handle(line));
}
