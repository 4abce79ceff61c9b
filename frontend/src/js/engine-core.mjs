// The engine under Pyodide: shared by the Web Worker (engine-worker.mjs) and
// the Node harness (frontend/tools/engine-node.mjs), so both run one code path.
//
// The rules live only in games/engine (the very same source the server runs).
// The Python below only marshals: a JSON line in, a JSON line out. Every op the
// engine's batch.answer knows goes straight to batch.answer_line, byte for byte
// what `python -m games.engine batch` writes. A few page-facing ops that batch
// does not offer yet call public engine functions and return their results
// unchanged (names, foul reasons, reasons, labels); when batch.OPS gains an op
// of the same name, batch wins.

/** Where the engine archive is unpacked inside Pyodide's file system. */
export const ENGINE_DIR = "/home/pyodide/engine";

/** Ops answered by the glue while games.engine.batch lacks them. */
export const WORKER_OPS = ["describe", "house_way_detail", "settings", "luck_detail"];

const GLUE = String.raw`
import json
import sys

if ENGINE_DIR not in sys.path:
    sys.path.insert(0, ENGINE_DIR)

from games.engine import batch
from games.engine import all_settings, back_name, foul_reason, front_name, house_way, is_foul, luck, parse_cards


def _describe(front, back):
    return {
        "front": " ".join(parse_cards(front, count=2)),
        "back": " ".join(parse_cards(back, count=5)),
        "front_name": front_name(front),
        "back_name": back_name(back),
        "foul": is_foul(front, back),
        "foul_reason": foul_reason(front, back),
    }


def _op_describe(r):
    return _describe(batch._cards(r, "front"), batch._cards(r, "back"))


def _op_house_way_detail(r):
    hw = house_way(batch._cards(r, "cards"))
    return {**_describe(hw.setting.front, hw.setting.back), "row": hw.row, "reason": hw.reason}


def _op_settings(r):
    cards = batch._cards(r, "cards")
    hw = house_way(cards).setting
    out = []
    for s in all_settings(cards):
        out.append({**_describe(s.front, s.back), "house_way": s == hw})
    return {"settings": out}


def _op_luck_detail(r):
    samples = r.get("samples", 120)
    e = luck(batch._cards(r, "cards"), mode=batch._field(r, "mode"),
             side=r.get("side", "player"), samples=samples)
    return {"samples": e.samples, "wins": e.wins, "pushes": e.pushes, "losses": e.losses,
            "luck": e.luck, "low": e.low, "high": e.high, "shown": e.shown,
            "shown_low": e.shown_low, "shown_high": e.shown_high, "label": e.label()}


WORKER_OPS = {
    "describe": _op_describe,
    "house_way_detail": _op_house_way_detail,
    "settings": _op_settings,
    "luck_detail": _op_luck_detail,
}


def handle(line):
    """One JSON request line in, one JSON answer line out (never raises for bad input)."""
    try:
        request = json.loads(line)
    except ValueError:
        return batch.answer_line(line)
    op = request.get("op") if isinstance(request, dict) else None
    glue = WORKER_OPS.get(op) if isinstance(op, str) and op not in batch.OPS else None
    if glue is None:
        return batch.answer_line(line)
    try:
        result = glue(request)
    except (ValueError, TypeError) as exc:
        result = {"error": str(exc)}
    return json.dumps(result, ensure_ascii=False)
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
