// The sparse copy of a snapshot the worker keeps (its kept file) comes back
// byte for byte, and anything else is refused (the worker then fetches it).
import assert from "node:assert/strict";
import { test } from "node:test";

import { denseSnapshot, sparseSnapshot } from "../src/js/engine-core.mjs";

function heap(length, filled) {
  const bytes = new Uint8Array(length);
  for (const [start, end] of filled) {
    for (let at = start; at < end; at++) bytes[at] = (at * 7 + 3) % 251 || 1;
  }
  return bytes;
}

test("a snapshot comes back byte for byte without storing its zero pages", () => {
  const page = 65536;
  const bytes = heap(page * 10 + 123, [[5, 9], [page * 3, page * 3 + 1], [page * 10, page * 10 + 123]]);
  const sparse = sparseSnapshot(bytes);
  assert.ok(sparse.length < page * 4, `${sparse.length} bytes kept`);
  assert.deepEqual(denseSnapshot(sparse), bytes);
});

test("an empty and a full heap come back too", () => {
  for (const bytes of [new Uint8Array(70000), heap(140000, [[0, 140000]])]) {
    assert.deepEqual(denseSnapshot(sparseSnapshot(bytes)), bytes);
  }
});

test("bytes that are not a kept snapshot are refused", () => {
  const sparse = sparseSnapshot(heap(200000, [[10, 20], [150000, 150001]]));
  assert.throws(() => denseSnapshot(new Uint8Array(64)), /Not a kept snapshot/);
  assert.throws(() => denseSnapshot(sparse.subarray(0, sparse.length - 1)), /cut short/);
  const longer = new Uint8Array(sparse.length + 1);
  longer.set(sparse);
  assert.throws(() => denseSnapshot(longer), /bytes to spare/);
});
