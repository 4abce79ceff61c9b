"""The engine worker in real Chromium: Pyodide from our own origin, same answers as CPython.

The page is the static self-test /static/js/engine-selftest.html, which starts
engine-worker.mjs through engine-client.mjs with the URLs of build/manifest.json.
The server is Django's live-server thread *without* its static-files shortcut,
so /static/ goes through the real middleware stack and whitenoise serves the
files with production's types (.mjs as JavaScript, .wasm as application/wasm;
Pyodide hangs on a wrong one). A route guard aborts and records every request
that would leave 127.0.0.1: there must be none (no CDN).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest

from tests.frontend.engine_support import BUILD, batch_cpython, ensure_build

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def _passthrough(app: Any) -> Any:
    return app


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """http://127.0.0.1:<port> served by Django with whitenoise (no static shortcut)."""
    from django.test.testcases import LiveServerThread

    ensure_build()
    thread = LiveServerThread("127.0.0.1", _passthrough)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    try:
        yield f"http://127.0.0.1:{thread.port}"
    finally:
        thread.terminate()


class Guarded:
    """A fresh context and page whose every request is checked for its origin."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(service_workers="block")
        self.offsite: list[str] = []
        self.seen: list[str] = []
        self.responses: dict[str, tuple[int, str]] = {}
        self.console: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("response", self._response)
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
        self.page.on("worker", lambda w: w.on(
            "console", lambda m: self.console.append(f"worker {m.type}: {m.text}")
        ))

    def _route(self, route: Any) -> None:
        url = route.request.url
        self.seen.append(url)
        if urlparse(url).hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            self.offsite.append(url)
            route.abort()

    def _response(self, response: Any) -> None:
        self.responses[urlparse(response.url).path] = (
            response.status, response.headers.get("content-type", ""))

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def guarded(browser: Any) -> Iterator[Guarded]:
    g = Guarded(browser)
    try:
        yield g
    finally:
        g.close()


def test_worker_answers_like_cpython_without_leaving_the_site(site: str, guarded: Guarded) -> None:
    manifest = ensure_build()
    page = guarded.page
    started = time.perf_counter()
    page.goto(f"{site}/static/js/engine-selftest.html")
    page.wait_for_selector(
        '#status[data-state="done"], #status[data-state="error"]', timeout=180_000
    )
    wall = time.perf_counter() - started
    status = page.locator("#status")
    assert status.get_attribute("data-state") == "done", (status.text_content(), guarded.console)
    # The build's memory snapshot, made in Node, restores in Chromium's worker.
    assert status.get_attribute("data-boot") == "snapshot", (status.text_content(), guarded.console)
    print(f"\nChromium: {status.text_content()} (page open to answers: {wall:.1f} s)")

    results: list[dict[str, Any]] = json.loads(page.locator("#results").text_content() or "[]")
    assert len(results) >= 20
    cpython = batch_cpython([r["request"] for r in results])
    assert len(cpython) == len(results)
    for item, want in zip(results, cpython, strict=True):
        assert item["answer"] == want, item["request"]
    ops = {r["request"]["op"] for r in results if "error" not in r["answer"]}
    assert {"describe", "house_way_detail", "settings", "luck_detail", "explore"} <= ops, ops
    lucks = [r for r in results if r["request"]["op"] == "luck" and "error" not in r["answer"]]
    assert {(r["request"]["mode"], r["request"]["side"]) for r in lucks} == {
        ("solo", "player"), ("solo", "dealer"), ("friend", "player")}

    assert guarded.offsite == [], guarded.offsite
    assert all(urlparse(u).hostname in LOCAL_HOSTS for u in guarded.seen)
    # The worker's own fetches are visible and typed as browsers insist.
    pyodide = f"/static/{manifest['pyodide']}"
    expected_types = {
        "/static/js/engine-worker.mjs": "text/javascript",
        "/static/js/engine-core.mjs": "text/javascript",
        f"{pyodide}pyodide.mjs": "text/javascript",
        f"{pyodide}pyodide.asm.mjs": "text/javascript",
        f"{pyodide}pyodide.asm.wasm": "application/wasm",
        f"/static/{manifest['engine']}": "application/zip",
        f"/static/{manifest['snapshot']}": "application/octet-stream",
    }
    for path, content_type in expected_types.items():
        assert path in guarded.responses, (path, sorted(guarded.responses))
        status_code, got = guarded.responses[path]
        assert status_code == 200, (path, status_code, got)
        assert got.startswith(content_type), (path, status_code, got)


def test_worker_refuses_urls_off_the_site(site: str, guarded: Guarded) -> None:
    page = guarded.page
    page.goto(f"{site}/static/css/site.css")
    error = page.evaluate(
        """() => new Promise((resolve) => {
            const url = "/static/js/engine-worker.mjs?pyodide="
              + encodeURIComponent("https://offsite.example/pyodide/full/")
              + "&engine=/static/engine/none.zip";
            const worker = new Worker(url, { type: "module" });
            worker.onmessage = (event) => { worker.terminate(); resolve(event.data); };
            worker.onerror = (event) => resolve({ type: "onerror", error: String(event.message) });
        })"""
    )
    assert error["type"] == "error", error
    assert "must be on this site" in error["error"], error
    # The same through an init message, and a request before any URLs is answered with an error.
    replies = page.evaluate(
        """() => new Promise((resolve) => {
            const worker = new Worker("/static/js/engine-worker.mjs", { type: "module" });
            const replies = [];
            worker.onmessage = (event) => {
                replies.push(event.data);
                if (replies.length === 2) { worker.terminate(); resolve(replies); }
            };
            worker.postMessage(
                { id: 1, request: { op: "house_way", cards: "As Ah 8d 8c Ks 7h 4d" } });
            worker.postMessage({ type: "init", pyodideUrl: "https://example.com/pyodide/",
                                 engineUrl: "/static/engine/none.zip" });
        })"""
    )
    by_kind = {("reply" if "id" in r else r["type"]): r for r in replies}
    assert by_kind["reply"]["id"] == 1, replies
    assert "not given its URLs" in by_kind["reply"]["error"], replies
    assert "must be on this site" in by_kind["error"]["error"], replies
    assert guarded.offsite == []


def test_a_missing_archive_rejects_ready_and_calls(site: str, guarded: Guarded) -> None:
    manifest = ensure_build()
    page = guarded.page
    page.goto(f"{site}/static/js/engine-selftest.html")
    outcome = page.evaluate(
        """async (pyodide) => {
            const { createEngine } = await import("/static/js/engine-client.mjs");
            const engine = createEngine({ workerUrl: "/static/js/engine-worker.mjs",
                                          pyodideUrl: "/static/" + pyodide,
                                          engineUrl: "/static/engine/engine-missing.zip" });
            const call = engine.call({ op: "house_way", cards: "As Ah 8d 8c Ks 7h 4d" });
            const out = {};
            try { await engine.ready; out.ready = "resolved"; } catch (e) { out.ready = e.message; }
            try { await call; out.call = "resolved"; } catch (e) { out.call = e.message; }
            engine.terminate();
            return out;
        }""",
        manifest["pyodide"],
    )
    assert "did not load (404" in outcome["ready"], outcome
    assert "did not load (404" in outcome["call"], outcome
    assert guarded.offsite == []


@pytest.mark.parametrize("snapshot", ["engine/snapshot-000000000000.bin", "css/site.css"])
def test_a_refused_snapshot_falls_back_to_booting_python(
    site: str, guarded: Guarded, snapshot: str
) -> None:
    """A missing snapshot (404) or bytes that are not one: the worker boots Python."""
    manifest = ensure_build()
    page = guarded.page
    page.goto(f"{site}/static/js/engine-selftest.html")
    outcome = page.evaluate(
        """async ([manifest, snapshot]) => {
            const { createEngine } = await import("/static/js/engine-client.mjs");
            const engine = createEngine({ workerUrl: "/static/js/engine-worker.mjs",
                                          pyodideUrl: "/static/" + manifest.pyodide,
                                          engineUrl: "/static/" + manifest.engine,
                                          snapshotUrl: "/static/" + snapshot });
            const ready = await engine.ready;
            const answer = await engine.call({ op: "house_way", cards: "As Ah 8d 8c Ks 7h 4d" });
            engine.terminate();
            return { boot: ready.boot, refused: ready.refused, answer };
        }""",
        [manifest, snapshot],
    )
    assert outcome["boot"] == "fallback", outcome
    assert outcome["refused"], outcome
    assert [outcome["answer"]] == batch_cpython([{"op": "house_way",
                                                  "cards": "As Ah 8d 8c Ks 7h 4d"}])
    assert any("snapshot was refused" in line for line in guarded.console), guarded.console
    assert guarded.offsite == []


# The worker's kept files, read and written from the page as the worker lays
# them out (engine-worker.mjs, "kept files"): MAGIC "PGK1", the URL's and the
# payload's lengths, the URL, the payload.
KEPT_FILES = """
    const KEPT = "paigow-engine";
    async function keptDir() {
        return (await navigator.storage.getDirectory()).getDirectoryHandle(KEPT, { create: true });
    }
    async function readKept(name) {
        let bytes;
        try {
            const file = await (await (await keptDir()).getFileHandle(name)).getFile();
            bytes = new Uint8Array(await file.arrayBuffer());
        } catch { return null; }
        const view = new DataView(bytes.buffer);
        const urlLength = view.getUint32(4, true);
        return { magic: view.getUint32(0, true),
                 url: new TextDecoder().decode(bytes.subarray(12, 12 + urlLength)),
                 payload: view.getUint32(8, true), size: bytes.length - 12 - urlLength };
    }
    async function writeKept(name, url, payload) {
        const named = new TextEncoder().encode(url);
        const out = new Uint8Array(12 + named.length + payload.length);
        const view = new DataView(out.buffer);
        view.setUint32(0, 0x50474b31, true);
        view.setUint32(4, named.length, true);
        view.setUint32(8, payload.length, true);
        out.set(named, 12);
        out.set(payload, 12 + named.length);
        const handle = await (await keptDir()).getFileHandle(name, { create: true });
        const writable = await handle.createWritable();
        await writable.write(out);
        await writable.close();
    }
    async function keptNames() {
        const names = [];
        for await (const name of (await keptDir()).keys()) names.push(name);
        return names.sort();
    }
"""

# Boots a worker on the self-test page, with `garble` first kept as Pyodide's
# WebAssembly under `garbleUrl` (its own URL when null); returns how it
# booted, an answer, and the module the worker keeps afterwards (polled: it
# keeps it after its ready).
BOOT_AND_KEEP = """async ([manifest, garble, garbleUrl]) => {
    """ + KEPT_FILES + """
    const { createEngine } = await import("/static/js/engine-client.mjs");
    const wasmURL = new URL(`/static/${manifest.pyodide}pyodide.asm.wasm`, location.href).href;
    if (garble) await writeKept("runtime", garbleUrl ?? wasmURL, new Uint8Array(garble));
    const engine = createEngine({ workerUrl: "/static/js/engine-worker.mjs",
                                  pyodideUrl: "/static/" + manifest.pyodide,
                                  engineUrl: "/static/" + manifest.engine,
                                  snapshotUrl: "/static/" + manifest.snapshot });
    const ready = await engine.ready;
    const answer = await engine.call({ op: "house_way", cards: "As Ah 8d 8c Ks 7h 4d" });
    let kept = null;
    for (let tries = 0; tries < 200; tries++) {
        kept = await readKept("runtime");
        if (kept && kept.url === wasmURL && kept.size > 1000) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    let snapshot = null;
    for (let tries = 0; tries < 200 && !snapshot; tries++) {
        snapshot = await readKept("snapshot");
        if (!snapshot) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    engine.terminate();
    return { boot: ready.boot, wasmFrom: ready.wasmFrom, snapshotFrom: ready.snapshotFrom,
             phases: ready.phases, answer, wasmURL, kept, snapshot,
             snapshotURL: new URL("/static/" + manifest.snapshot, location.href).href,
             names: await keptNames() };
}"""
HOUSE_WAY = [{"op": "house_way", "cards": "As Ah 8d 8c Ks 7h 4d"}]


def _wasm_size(manifest: dict[str, str]) -> int:
    return (BUILD / manifest["pyodide"] / "pyodide.asm.wasm").stat().st_size


def _kept_whole(outcome: dict[str, Any], manifest: dict[str, str]) -> None:
    """The worker kept exactly Pyodide's module and a snapshot, each under its URL."""
    kept, snapshot = outcome["kept"], outcome["snapshot"]
    assert kept["magic"] == 0x50474B31, outcome
    assert (kept["url"], kept["size"], kept["payload"]) == (
        outcome["wasmURL"], _wasm_size(manifest), _wasm_size(manifest)), outcome
    assert snapshot["url"] == outcome["snapshotURL"], outcome
    assert snapshot["size"] == snapshot["payload"] > 1_000_000, outcome
    # one file a kind under its own name (a part file of a write still under
    # way may sit beside them; the next write removes any left over)
    assert [n for n in outcome["names"] if ".part-" not in n] == ["runtime", "snapshot"], outcome


def test_a_return_boot_restores_from_the_kept_files(site: str, guarded: Guarded) -> None:
    """The first boot fetches pyodide.asm.wasm and the snapshot from the site
    and keeps both whole in the origin's private file system; the next one in
    the same browser answers Pyodide's fetch of the module and reads the
    snapshot from those files, and still restores the snapshot and answers
    like CPython."""
    manifest = ensure_build()
    page = guarded.page
    page.goto(f"{site}/static/js/engine-selftest.html")
    first = page.evaluate(BOOT_AND_KEEP, [manifest, None, None])
    assert (first["boot"], first["wasmFrom"], first["snapshotFrom"]) == (
        "snapshot", "network", "network"), first
    _kept_whole(first, manifest)
    again = page.evaluate(BOOT_AND_KEEP, [manifest, None, None])
    assert (again["boot"], again["wasmFrom"], again["snapshotFrom"]) == (
        "snapshot", "kept", "kept"), again
    _kept_whole(again, manifest)
    # Pyodide instantiated the module the worker had compiled (its steps' clock).
    assert again["phases"]["wasmCompiled"] <= again["phases"]["instantiate"], again
    for outcome in (first, again):
        assert [outcome["answer"]] == batch_cpython(HOUSE_WAY)
    assert guarded.offsite == []


@pytest.mark.parametrize("garble", [[0, 97, 115, 109, 1, 0, 0, 0, 9, 9], [1, 2, 3]])
def test_a_kept_webassembly_that_does_not_compile_is_replaced(
    site: str, guarded: Guarded, garble: list[int]
) -> None:
    """Pyodide hangs on a module that does not compile, so the worker compiles a
    kept copy before answering with it: a broken one (a cut WebAssembly, or not
    one at all) is dropped, the site's is fetched and kept in its place."""
    manifest = ensure_build()
    page = guarded.page
    page.goto(f"{site}/static/js/engine-selftest.html")
    outcome = page.evaluate(BOOT_AND_KEEP, [manifest, garble, None])
    assert (outcome["boot"], outcome["wasmFrom"]) == ("snapshot", "network"), outcome
    assert [outcome["answer"]] == batch_cpython(HOUSE_WAY)
    _kept_whole(outcome, manifest)
    assert guarded.offsite == []


def test_a_module_kept_for_another_url_is_not_used_and_is_replaced(
    site: str, guarded: Guarded
) -> None:
    """A copy kept for another URL (an older Pyodide's module) is never handed
    to Pyodide: this one's is fetched and kept in its place."""
    manifest = ensure_build()
    page = guarded.page
    page.goto(f"{site}/static/js/engine-selftest.html")
    real = (BUILD / manifest["pyodide"] / "pyodide.asm.wasm").read_bytes()[:64]
    outcome = page.evaluate(
        BOOT_AND_KEEP, [manifest, list(real), f"{site}/static/pyodide/0.0.1/pyodide.asm.wasm"])
    assert (outcome["boot"], outcome["wasmFrom"]) == ("snapshot", "network"), outcome
    _kept_whole(outcome, manifest)


def test_a_boot_frees_what_an_earlier_release_kept_in_cache_storage(
    site: str, guarded: Guarded
) -> None:
    """The copies an earlier release kept in Cache Storage are deleted once a
    boot is done, so a returning player does not carry 26 MB twice."""
    manifest = ensure_build()
    page = guarded.page
    page.goto(f"{site}/static/js/engine-selftest.html")
    page.evaluate("""async () => {
        for (const name of ["paigow-engine-snapshot", "paigow-engine-runtime"]) {
            await (await caches.open(name)).put("/old", new Response("old"));
        }
    }""")
    outcome = page.evaluate(BOOT_AND_KEEP, [manifest, None, None])
    assert outcome["boot"] == "snapshot", outcome
    left = page.evaluate("""async () => {
        for (let tries = 0; tries < 100; tries++) {
            const names = await caches.keys();
            if (names.length === 0) return names;
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return caches.keys();
    }""")
    assert left == []
