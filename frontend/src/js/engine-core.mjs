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
  // Pyodide wants a plain typed array (a Node Buffer is refused).
  const bytes = archive instanceof Uint8Array
    ? new Uint8Array(archive.buffer, archive.byteOffset, archive.byteLength)
    : new Uint8Array(archive);
  pyodide.unpackArchive(bytes, "zip", { extractDir: ENGINE_DIR });
  const namespace = pyodide.toPy({ ENGINE_DIR });
  pyodide.runPython(GLUE, { globals: namespace });
  const handle = namespace.get("handle");
  namespace.destroy();
  return (line) => handle(line);
}

/** Answer one request object with one answer object (a JSON round trip both ways). */
export function answerWith(handle, request) {
  const line = JSON.stringify(request);
  if (line === undefined) {
    throw new TypeError("A request must be a JSON value.");
  }
  return JSON.parse(handle(line));
}
