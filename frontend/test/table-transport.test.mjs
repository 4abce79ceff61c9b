// The table's transport against a fake WebSocket: ids, replies settling
// promises, resends after a reconnect with the same id, close codes.
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { closeOutcome, createTransport, HEARTBEAT, MAX_SENDS, OUTCOME_UNKNOWN, REASON_TOO_MANY_SOCKETS, SocketError } from "../src/js/table-transport.mjs";

class FakeSocket {
  static all = [];

  constructor(url) {
    this.url = url;
    this.sent = [];
    this.listeners = {};
    FakeSocket.all.push(this);
  }

  addEventListener(type, listener) {
    (this.listeners[type] ??= []).push(listener);
  }

  emit(type, event = {}) {
    for (const listener of this.listeners[type] ?? []) listener(event);
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  // The server's side.
  open() {
    this.emit("open");
  }

  reply(frame) {
    this.emit("message", { data: JSON.stringify(frame) });
  }

  live(extra = {}) {
    this.open();
    this.reply({ type: "state", table: { version: 1 }, ...extra });
  }

  close(code = 1006, reason = "") {
    this.emit("close", { code, reason });
  }

  /** What the page wrote, without the heartbeat's pings. */
  get messages() {
    return this.sent.filter((m) => m.type !== "ping");
  }
}

/** The browser's window for `online` / `offline`: navigator.onLine and the events. */
class FakeNetwork extends EventTarget {
  navigator = { onLine: true };

  go(onLine) {
    this.navigator.onLine = onLine;
    this.dispatchEvent(new Event(onLine ? "online" : "offline"));
  }
}

const latest = () => FakeSocket.all.at(-1);
const settled = () => new Promise((resolve) => setImmediate(resolve));

function harness() {
  const states = [];
  const errors = [];
  const statuses = [];
  const timers = [];
  // The heartbeat's clock: `clock.pass(ms)` moves time on and runs the ticks due.
  const clock = { at: 0, ticks: new Map(), next: 1 };
  clock.pass = (ms) => {
    for (let step = 0; step < ms; step += HEARTBEAT.tickMs) {
      clock.at += HEARTBEAT.tickMs;
      for (const fn of [...clock.ticks.values()]) fn();
    }
  };
  const network = new FakeNetwork();
  const transport = createTransport({
    url: "ws://test/ws/tables/1/",
    idPrefix: "p",
    WebSocket: FakeSocket,
    setTimeout: (fn, ms) => timers.push({ fn, ms }),
    setInterval: (fn) => {
      clock.ticks.set(clock.next, fn);
      return clock.next++;
    },
    clearInterval: (id) => clock.ticks.delete(id),
    now: () => clock.at,
    network,
    onState: (frame) => states.push(frame),
    onError: (error) => errors.push(error),
    onStatus: (status) => statuses.push(status),
  });
  const reconnect = () => {
    const timer = timers.shift();
    assert.ok(timer, "no reconnect was scheduled");
    timer.fn();
    return timer.ms;
  };
  return { transport, states, errors, statuses, timers, reconnect, clock, network };
}

/** A promise's outcome so far: {value} / {error} / "pending". */
function watch(promise) {
  const seen = { outcome: "pending", count: 0 };
  promise.then(
    (value) => Object.assign(seen, { outcome: "resolved", value, count: seen.count + 1 }),
    (error) => Object.assign(seen, { outcome: "rejected", error, count: seen.count + 1 }),
  );
  return seen;
}

beforeEach(() => {
  FakeSocket.all = [];
});

describe("send", () => {
  test("waits for the first state frame, then writes the message with a fresh id", async () => {
    const { transport, states } = harness();
    transport.connect();
    assert.equal(latest().url, "ws://test/ws/tables/1/");
    const early = watch(transport.send({ type: "stake", amount: 20 }));
    latest().open();
    assert.deepEqual(latest().sent, [], "an open socket is not live yet");
    latest().reply({ type: "state", table: { version: 1 } });
    assert.equal(transport.live, true);
    assert.equal(states.length, 1);
    assert.deepEqual(latest().sent, [{ type: "stake", amount: 20, id: "p-1" }]);
    transport.send({ type: "deal" });
    assert.deepEqual(latest().sent.map((m) => m.id), ["p-1", "p-2"]);
    await settled();
    assert.equal(early.outcome, "pending");
  });

  test("the reply with the same id resolves the promise with that frame", async () => {
    const { transport, states } = harness();
    transport.connect();
    latest().live();
    const stake = watch(transport.send({ type: "stake", amount: 20 }));
    const deal = watch(transport.send({ type: "deal" }));
    latest().reply({ type: "state", id: "p-2", table: { version: 3 } });
    await settled();
    assert.equal(deal.outcome, "resolved");
    assert.equal(deal.value.table.version, 3);
    assert.equal(stake.outcome, "pending");
    assert.equal(states.length, 2, "every state frame reaches the page");
    assert.equal(transport.unanswered, 1);
  });

  test("an error frame rejects with {error, detail} and is not shown twice", async () => {
    const { transport, errors } = harness();
    transport.connect();
    latest().live();
    const lock = watch(transport.send({ type: "lock", front: ["As", "Ah"], deal: 1 }));
    latest().reply({ type: "error", error: "foul_unconfirmed", detail: "Your front beats your back.", id: "p-1" });
    await settled();
    assert.equal(lock.outcome, "rejected");
    assert.ok(lock.error instanceof SocketError);
    assert.equal(lock.error.error, "foul_unconfirmed");
    assert.equal(lock.error.detail, "Your front beats your back.");
    assert.deepEqual(errors, [], "an answered error goes to its promise only");
    assert.equal(transport.unanswered, 0);
  });

  test("an error frame that answers no message goes to onError", () => {
    const { transport, errors } = harness();
    transport.connect();
    latest().live();
    latest().reply({ type: "error", error: "bad_message", detail: "Not JSON." });
    latest().reply({ type: "error", error: "too_many_messages", detail: "Slow down.", id: "someone-else" });
    assert.deepEqual(errors.map((e) => e.error), ["bad_message", "too_many_messages"]);
  });

  test("a pong resolves a ping", async () => {
    const { transport } = harness();
    transport.connect();
    latest().live();
    const ping = watch(transport.send({ type: "ping" }));
    latest().reply({ type: "pong", id: "p-1" });
    await settled();
    assert.equal(ping.outcome, "resolved");
  });
});

describe("reconnect", () => {
  test("resends the unanswered messages with the same ids once the new socket is live", async () => {
    const { transport, statuses, reconnect } = harness();
    transport.connect();
    latest().live();
    const answered = watch(transport.send({ type: "stake", amount: 20 }));
    const lost = watch(transport.send({ type: "deal" }));
    const luck = watch(transport.send({ type: "luck", deal: 1, wins: 60, pushes: 10, losses: 50 }));
    latest().reply({ type: "state", id: "p-1", table: { version: 2 } });
    latest().close(1006);
    assert.deepEqual(statuses, ["lost"]);
    assert.equal(transport.live, false);

    assert.equal(reconnect(), 500);
    const second = latest();
    second.open();
    assert.deepEqual(second.sent, [], "nothing is resent before the socket is live");
    second.reply({ type: "state", table: { version: 2 } });
    assert.deepEqual(second.sent, [
      { type: "deal", id: "p-2" },
      { type: "luck", deal: 1, wins: 60, pushes: 10, losses: 50, id: "p-3" },
    ]);

    // The server applied the deal before the drop: its resend is replayed.
    second.reply({ type: "state", id: "p-2", replayed: true, table: { version: 3 } });
    second.reply({ type: "state", id: "p-3", table: { version: 4 } });
    await settled();
    assert.equal(answered.outcome, "resolved");
    assert.equal(lost.outcome, "resolved");
    assert.equal(lost.value.replayed, true);
    assert.equal(luck.outcome, "resolved");
    assert.equal(transport.unanswered, 0);
  });

  test("an outcome_unknown answer keeps the message: resent with its id on the next socket", async () => {
    const { transport, errors, statuses, reconnect } = harness();
    transport.connect();
    latest().live();
    const lock = watch(transport.send({ type: "lock", front: ["As", "Kd"] }));
    latest().reply({ type: "error", id: "p-1", error: OUTCOME_UNKNOWN, detail: "It may have been applied." });
    await settled();
    assert.equal(lock.outcome, "pending");
    assert.deepEqual(errors, [], "nothing to show: the page resends it");
    latest().close(4500);
    assert.deepEqual(statuses, ["lost"]);
    reconnect();
    latest().live();
    assert.deepEqual(latest().sent, [{ type: "lock", front: ["As", "Kd"], id: "p-1" }]);
    latest().reply({ type: "state", id: "p-1", replayed: true, table: { version: 3 } });
    await settled();
    assert.equal(lock.outcome, "resolved");
    assert.equal(lock.value.replayed, true);
    assert.equal(transport.unanswered, 0);
  });

  test("a message sent while the socket is down goes out once a socket is live", () => {
    const { transport, reconnect } = harness();
    transport.connect();
    latest().live();
    latest().close(1006);
    transport.send({ type: "luck", deal: 2, wins: 1, pushes: 1, losses: 118 });
    reconnect();
    latest().live();
    assert.deepEqual(latest().sent.map((m) => m.id), ["p-1"]);
  });

  test("a promise is settled once: a second answer to its id is only a state frame", async () => {
    const { transport, states, errors, reconnect } = harness();
    transport.connect();
    latest().live();
    const deal = watch(transport.send({ type: "deal" }));
    latest().close(1006);
    reconnect();
    latest().live();
    latest().reply({ type: "state", id: "p-1", replayed: true, table: { version: 5 } });
    latest().reply({ type: "state", id: "p-1", replayed: true, table: { version: 6 } });
    latest().reply({ type: "error", id: "p-1", error: "server_error", detail: "Something failed." });
    await settled();
    assert.equal(deal.count, 1);
    assert.equal(deal.outcome, "resolved");
    assert.equal(deal.value.table.version, 5);
    assert.equal(states.length, 4, "both answers still show the table");
    assert.deepEqual(errors.map((e) => e.error), ["server_error"]);
  });

  test("a message written to a socket that never went live is written again to the next", () => {
    const { transport, reconnect } = harness();
    transport.connect();
    latest().live();
    transport.send({ type: "deal" });
    latest().close(1006);
    reconnect();
    latest().open(); // open, but silent: it never sends the state
    latest().close(1006);
    reconnect();
    latest().live();
    assert.deepEqual(latest().sent, [{ type: "deal", id: "p-1" }]);
  });

  test(`a message unanswered after ${MAX_SENDS} live sockets is given up`, async () => {
    const { transport, reconnect } = harness();
    transport.connect();
    latest().live();
    const deal = watch(transport.send({ type: "deal" }));
    for (let socket = 1; socket < MAX_SENDS; socket += 1) {
      latest().close(1011);
      reconnect();
      latest().live();
      assert.deepEqual(latest().sent.map((m) => m.id), ["p-1"]);
    }
    latest().close(1011);
    reconnect();
    latest().live();
    assert.deepEqual(latest().sent, []);
    await settled();
    assert.equal(deal.outcome, "rejected");
    assert.equal(deal.error.error, "not_answered");
  });

  test("frames from a socket already replaced are ignored", () => {
    const { transport, states, reconnect } = harness();
    transport.connect();
    const first = latest();
    first.live();
    first.close(1006);
    reconnect();
    first.reply({ type: "state", table: { version: 9 } });
    first.close(1006);
    assert.equal(states.length, 1);
    assert.equal(transport.live, false);
  });

  test("waits longer after each drop, up to 2.5 s, and starts again once a socket opens", () => {
    const { transport, reconnect } = harness();
    transport.connect();
    const delays = [];
    for (let i = 0; i < 6; i += 1) {
      latest().close(1006);
      delays.push(reconnect());
    }
    assert.deepEqual(delays, [500, 1000, 1500, 2000, 2500, 2500]);
    latest().open();
    latest().close(1006);
    assert.equal(reconnect(), 500);
  });
});

describe("close codes", () => {
  test("4401 after a live socket reconnects once; refused again, it stops and rejects", async () => {
    const { transport, statuses, timers, reconnect } = harness();
    transport.connect();
    latest().live();
    const deal = watch(transport.send({ type: "deal" }));
    latest().close(4401);
    assert.deepEqual(statuses, ["reconnecting"]);
    assert.equal(reconnect(), 300);
    latest().open();
    latest().close(4401);
    assert.deepEqual(statuses, ["reconnecting", "signed_out"]);
    assert.equal(timers.length, 0);
    await settled();
    assert.equal(deal.outcome, "rejected");
    assert.equal(deal.error.error, "closed");
  });

  test("4401 before the socket was ever live is final", () => {
    const { transport, statuses, timers } = harness();
    transport.connect();
    latest().open();
    latest().close(4401);
    assert.deepEqual(statuses, ["signed_out"]);
    assert.equal(timers.length, 0);
  });

  test("4403 and 4429 are final", () => {
    for (const [code, reason, status] of [
      [4403, "", "no_seat"],
      [4429, REASON_TOO_MANY_SOCKETS, "too_many_sockets"],
      [4429, "Too many messages.", "too_many_messages"],
    ]) {
      const { transport, statuses, timers } = harness();
      transport.connect();
      latest().live();
      latest().close(code, reason);
      assert.deepEqual(statuses, [status]);
      assert.equal(timers.length, 0);
    }
  });

  test("closeOutcome is a pure table of what each close means", () => {
    assert.deepEqual(closeOutcome({ code: 1011 }, { wasLive: true, retry: 3 }), { status: "lost", delay: 1500 });
    assert.deepEqual(closeOutcome({ code: 4500 }, { wasLive: true, retry: 1 }), { status: "lost", delay: 500 });
    assert.deepEqual(closeOutcome({ code: 4401 }, { wasLive: false, retry: 1 }), { status: "signed_out", delay: null });
  });
});

describe("heartbeat", () => {
  test("a ping after a quiet spell; any frame answers it and the socket stays", () => {
    const { transport, statuses, clock } = harness();
    transport.connect();
    latest().live();
    clock.pass(HEARTBEAT.idleMs - HEARTBEAT.tickMs);
    assert.deepEqual(latest().sent, [], "no ping while frames come");
    clock.pass(HEARTBEAT.tickMs);
    assert.deepEqual(latest().sent, [{ type: "ping" }]);
    clock.pass(HEARTBEAT.waitMs - HEARTBEAT.tickMs);
    latest().reply({ type: "pong" });
    clock.pass(HEARTBEAT.waitMs);
    assert.deepEqual(statuses, []);
    assert.equal(transport.live, true);
  });

  test("a socket that stops answering is given up, said lost, and its messages resent", async () => {
    const { transport, statuses, clock, reconnect } = harness();
    transport.connect();
    const dead = latest();
    dead.live();
    const lock = watch(transport.send({ type: "lock", front: ["As", "Ah"], deal: 1 }));
    clock.pass(HEARTBEAT.idleMs);
    assert.deepEqual(dead.sent.map((m) => m.type), ["lock", "ping"]);
    clock.pass(HEARTBEAT.waitMs - HEARTBEAT.tickMs);
    assert.deepEqual(statuses, []);
    clock.pass(HEARTBEAT.tickMs);
    assert.deepEqual(statuses, ["lost"], `lost ${HEARTBEAT.idleMs + HEARTBEAT.waitMs} ms after the last frame`);
    assert.equal(transport.live, false);
    dead.reply({ type: "state", id: "p-1", table: { version: 9 } }); // too late: ignored
    dead.close(1006); // its own close, whenever it comes: ignored
    assert.deepEqual(statuses, ["lost"]);

    assert.equal(reconnect(), 500);
    latest().live();
    assert.deepEqual(latest().messages, [{ type: "lock", front: ["As", "Ah"], deal: 1, id: "p-1" }]);
    latest().reply({ type: "state", id: "p-1", table: { version: 9 } });
    await settled();
    assert.equal(lock.outcome, "resolved");
  });

  test("a socket that never opens is given up too", () => {
    const { transport, statuses, clock, timers } = harness();
    transport.connect();
    latest().readyState = 0;
    clock.pass(HEARTBEAT.idleMs + HEARTBEAT.waitMs);
    assert.deepEqual(latest().sent, []);
    assert.deepEqual(statuses, ["lost"]);
    assert.equal(timers.length, 1);
  });

  test("a final close stops the heartbeat", () => {
    const { transport, clock } = harness();
    transport.connect();
    latest().live();
    latest().close(4403);
    assert.equal(clock.ticks.size, 0);
  });
});

describe("online and offline", () => {
  test("offline gives the socket up at once; a message waits; online connects at once and sends it", async () => {
    const { transport, statuses, network, timers } = harness();
    transport.connect();
    const first = latest();
    first.live();
    network.go(false);
    assert.deepEqual(statuses, ["offline"]);
    assert.equal(transport.live, false);
    const lock = watch(transport.send({ type: "lock", front: ["As", "Ah"], deal: 1 }));
    assert.deepEqual(first.messages, [], "nothing is written to a socket given up");

    assert.deepEqual(timers, [], "no socket is tried while offline");

    network.go(true);
    assert.equal(FakeSocket.all.length, 2, "online opens a socket without waiting");
    latest().live();
    assert.deepEqual(latest().messages.map((m) => m.id), ["p-1"]);
    latest().reply({ type: "state", id: "p-1", table: { version: 3 } });
    await settled();
    assert.equal(lock.outcome, "resolved");
  });

  test("a socket that fails while the browser says offline is said offline, and waits for online", () => {
    const { transport, statuses, network, timers, reconnect } = harness();
    transport.connect();
    latest().live();
    latest().close(1006);
    assert.deepEqual(statuses, ["lost"]);
    network.navigator.onLine = false; // no event yet
    reconnect();
    latest().close(1006);
    assert.deepEqual(statuses, ["lost", "offline"]);
    assert.deepEqual(timers, []);
    network.go(true);
    assert.equal(FakeSocket.all.length, 3);
  });

  test("after a final close, online opens nothing", () => {
    const { transport, network } = harness();
    transport.connect();
    latest().live();
    latest().close(4403);
    network.go(false);
    network.go(true);
    assert.equal(FakeSocket.all.length, 1);
  });
});
