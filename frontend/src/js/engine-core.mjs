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
// 314.0.7 (tests/frontend/test_engine_snapshot.py pins them). Pyodide refuses
// a heap of another build itself (its build id); the digest below refuses a
// heap holding another engine archive.

/** The Python globals of a snapshot's heap: the engine archive it holds, its handle. */
export const SNAPSHOT_DIGEST_NAME = "PAIGOW_ENGINE_SHA256";
const SNAPSHOT_HANDLE_NAME = "PAIGOW_ENGINE_HANDLE";

// Imports every module of the engine, so the heap holds them all.
const IMPORT_ALL = String.raw`
import importlib
import pkgutil

import games.engine

for _module in pkgutil.walk_packages(games.engine.__path__, "games.engine."):
    importlib.import_module(_module.name)
`;

/** The SHA-256 of an archive's bytes, in hex (WebCrypto: secure contexts and Node 20). */
export async function archiveDigest(archive) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error("WebCrypto is missing here (a page that is not a secure context).");
  const hash = await subtle.digest("SHA-256", plainBytes(archive));
  return Array.from(new Uint8Array(hash), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Install the engine into a Pyodide loaded with {_makeSnapshot: true}, import
 * all of it, and return the heap as a snapshot (a Uint8Array).
 */
export async function snapshotEngine(pyodide, archive) {
  pyodide.unpackArchive(plainBytes(archive), "zip", { extractDir: ENGINE_DIR });
  const namespace = pyodide.toPy({ ENGINE_DIR });
  pyodide.runPython(GLUE, { globals: namespace });
  pyodide.runPython(IMPORT_ALL, { globals: namespace });
  pyodide.globals.set(SNAPSHOT_HANDLE_NAME, namespace.get("handle"));
  namespace.destroy();
  pyodide.globals.set(SNAPSHOT_DIGEST_NAME, await archiveDigest(archive));
  return pyodide.makeMemorySnapshot();
}

/**
 * The engine of a Pyodide restored from a snapshot ({_loadSnapshot}): checks
 * that the heap holds exactly the archive of `digest` (its SHA-256, else it
 * throws) and returns `handle(line)`, the glue's own function from the heap.
 * Every engine module is in the heap already (IMPORT_ALL) and the engine
 * reads no files, so the archive need not be unpacked again.
 */
export function restoreEngine(pyodide, digest) {
  const held = pyodide.globals.get(SNAPSHOT_DIGEST_NAME);
  if (held !== digest) {
    throw new Error(`The snapshot holds engine ${String(held).slice(0, 12)}, not ${digest.slice(0, 12)}.`);
  }
  const handle = pyodide.globals.get(SNAPSHOT_HANDLE_NAME);
  if (typeof handle !== "function") throw new Error("The snapshot holds no engine handle.");
  return (line) => handle(line);
}

// A few requests that run the luck and the page's ops once, so the first
// luck after a reveal does not pay for the first run's compiling (about
// 135 ms against 70 in Node). Their answers are dropped.
const WARM_UP = [
  { op: "luck", cards: "As Ah 8d 8c Ks 7h 4d", mode: "solo" },
  { op: "luck_detail", cards: "Kh Qh 9d 3d Kc 6c 4c", mode: "friend" },
  { op: "house_way_detail", cards: "9s 2s Th 5h 2h Kd Kc" },
  { op: "describe", front: "9s 9h", back: "Ks Qd 7c 4h 2s" },
];

/** Run the warm-up requests through `handle` (answers dropped). */
export function warmUp(handle) {
  for (const request of WARM_UP) handle(JSON.stringify(request));
}

/**
 * Boot Pyodide and the engine, from the snapshot when there is one. The
 * worker and the Node harness share this, so tests see the worker's path.
 *
 * @param {Function} loadPyodide  Pyodide's own, from its pyodide.mjs
 * @param {object} options  loadPyodide's options (indexURL, ...)
 * @param {Promise<ArrayBuffer|Uint8Array>} archive  the engine archive's bytes
 * @param {Promise<ArrayBuffer|Uint8Array>|null} snapshot  the snapshot's bytes, or null
 * @returns {Promise<{pyodide, handle, boot, refused, phases}>}  boot: "snapshot", "python"
 *   or "fallback" (a snapshot was given and refused: `refused` says why); phases: ms
 *   from the call to the snapshot's bytes, Pyodide loaded and the engine installed
 */
export async function bootEngine(loadPyodide, options, archive, snapshot = null) {
  let refused = null;
  const started = performance.now();
  const phases = {}; // ms from the start of the boot: benchmarks/boot.py reports them
  const lap = (name) => { phases[name] = Math.round(performance.now() - started); };
  if (snapshot) {
    // Pyodide awaits the bytes late; a failed fetch is a refusal, never unhandled.
    Promise.resolve(snapshot).then(() => lap("snapshotBytes"), () => {});
    // The archive's digest while Pyodide restores the heap.
    const digest = Promise.resolve(archive).then(archiveDigest);
    digest.catch(() => {});
    try {
      const pyodide = await loadPyodide({ ...options, _loadSnapshot: snapshot });
      lap("pyodide");
      const handle = restoreEngine(pyodide, await digest);
      lap("engine");
      return { pyodide, handle, boot: "snapshot", refused, phases };
    } catch (error) {
      refused = String(error?.message ?? error);
      await archive; // a missing archive fails the boot, with or without a snapshot
    }
  }
  const pyodide = await loadPyodide(options);
  lap("pyodide");
  const handle = installEngine(pyodide, await archive);
  lap("engine");
  return { pyodide, handle, boot: snapshot ? "fallback" : "python", refused, phases };
}

// ------------------------------------------------- a snapshot kept, sparse
//
// Half of a snapshot's heap is pages of zeros. The worker keeps it in a kept
// file (engine-worker.mjs) without them: a header (SPARSE_MAGIC, the heap's length, the page
// size, the page count), one byte a page (1: stored), then the stored pages.
// Reading 16 MB back instead of 31 is what the next visit waits for.

const SPARSE_MAGIC = 0x50475331; // "PGS1"
const SPARSE_PAGE = 65536;

/** The snapshot without its zero pages (a Uint8Array). */
export function sparseSnapshot(snapshot) {
  const bytes = plainBytes(snapshot);
  const pages = Math.ceil(bytes.length / SPARSE_PAGE);
  const stored = new Uint8Array(pages);
  let kept = 0;
  for (let page = 0; page < pages; page++) {
    const start = page * SPARSE_PAGE;
    const end = Math.min(start + SPARSE_PAGE, bytes.length);
    for (let at = start; at < end; at++) {
      if (bytes[at] !== 0) {
        stored[page] = 1;
        kept += end - start;
        break;
      }
    }
  }
  const header = 16;
  const out = new Uint8Array(header + pages + kept);
  new DataView(out.buffer).setUint32(0, SPARSE_MAGIC, true);
  new DataView(out.buffer).setUint32(4, bytes.length, true);
  new DataView(out.buffer).setUint32(8, SPARSE_PAGE, true);
  new DataView(out.buffer).setUint32(12, pages, true);
  out.set(stored, header);
  let offset = header + pages;
  for (let page = 0; page < pages; page++) {
    if (!stored[page]) continue;
    const start = page * SPARSE_PAGE;
    const chunk = bytes.subarray(start, Math.min(start + SPARSE_PAGE, bytes.length));
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The whole snapshot back from sparseSnapshot's bytes; throws on anything else. */
export function denseSnapshot(sparse) {
  const bytes = plainBytes(sparse);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 16 || view.getUint32(0, true) !== SPARSE_MAGIC) {
    throw new Error("Not a kept snapshot.");
  }
  const length = view.getUint32(4, true);
  const pageSize = view.getUint32(8, true);
  const pages = view.getUint32(12, true);
  if (pages !== Math.ceil(length / pageSize)) throw new Error("A kept snapshot with a bad header.");
  const out = new Uint8Array(length);
  let offset = 16 + pages;
  for (let page = 0; page < pages; page++) {
    if (!bytes[16 + page]) continue;
    const start = page * pageSize;
    const size = Math.min(pageSize, length - start);
    if (offset + size > bytes.length) throw new Error("A kept snapshot cut short.");
    out.set(bytes.subarray(offset, offset + size), start);
    offset += size;
  }
  if (offset !== bytes.length) throw new Error("A kept snapshot with bytes to spare.");
  return out;
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
