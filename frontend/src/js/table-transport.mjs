// The table's socket (docs/protocol.md): one WebSocket at a time, reconnected
// after a drop, and a send() whose promise the server's reply settles.
//
//   const transport = createTransport({ url, onState, onError, onStatus });
//   transport.connect();
//   const frame = await transport.send({ type: "stake", amount: 20 });
//
// - Every message gets an id: this page load's random prefix and a counter.
//   Its reply carries the same id: a `state` (or `pong`) frame resolves the
//   promise with the frame; an `error` frame rejects it with a SocketError
//   ({error, detail}).
// - A socket is live from its first `state` frame (an open socket alone is
//   not enough). Messages are written only to a live socket; one sent while
//   none is live waits for the next.
// - A message stays unanswered until its reply arrives. When a socket closes
//   before that, the next live socket sends it again unchanged, with the SAME
//   id: the server applies an action once per seat and id and answers the
//   resend with the same result (`"replayed": true`), which resolves the
//   promise. A promise is settled once; a second reply to its id is only a
//   state frame. A message unanswered after MAX_SENDS live sockets is given up
//   (`not_answered`).
// - An `outcome_unknown` error (the server lost its database while the
//   action was committing: it may or may not have been applied) settles
//   nothing: the message stays unanswered and goes again, same id, on the next
//   live socket (the server closes this one with 4500), whose answer says
//   which (`"replayed": true` if it had been applied).
// - Close codes: 4401 reconnects once if the socket had been live (a session
//   replaced by a password change in this browser), else it is final; 4403
//   and 4429 are final; any other close (4500: a fault on the server)
//   reconnects with a growing delay. A final close rejects what is
//   unanswered (`closed`).
// - A socket can die without a close: a network that went away, a server
//   that stopped answering. So the transport listens (heartbeat below): after
//   HEARTBEAT.idleMs without a frame it sends a `ping`, which the server
//   answers with a `pong`; no frame within HEARTBEAT.waitMs after that, and
//   the socket is given up as lost (status "lost") and a new one is opened.
//   The browser's `offline` event gives it up at once (status "offline"),
//   and no socket is tried while the browser says it is offline; `online`
//   opens a new socket at once. Messages unanswered by a socket
//   given up are resent as after any other drop.

export const MAX_SENDS = 3;
export const OUTCOME_UNKNOWN = "outcome_unknown";
/** The heartbeat (ms): a ping after idleMs without a frame; the socket is
 * lost when nothing comes within waitMs of it; checked every tickMs. */
export const HEARTBEAT = { idleMs: 3000, waitMs: 4000, tickMs: 500 };
export const REASON_TOO_MANY_SOCKETS = "Too many table sockets open for this account.";

/** An error frame's {error, detail} (or the transport's own: closed, not_answered). */
export class SocketError extends Error {
  constructor(error, detail, frame = null) {
    super(detail);
    this.name = "SocketError";
    this.error = error;
    this.detail = detail;
    this.frame = frame;
  }
}

/** A random id prefix for this page load, e.g. "9f2c41a07be3d815". */
export function randomPrefix(crypto = globalThis.crypto) {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What a close means: the status to show and the delay before the next
 * socket (null: none). `retry` is the how-many-th reconnect after a drop. */
export function closeOutcome({ code, reason }, { wasLive, retry }) {
  if (code === 4401) {
    return wasLive ? { status: "reconnecting", delay: 300 } : { status: "signed_out", delay: null };
  }
  if (code === 4429) {
    return { status: reason === REASON_TOO_MANY_SOCKETS ? "too_many_sockets" : "too_many_messages", delay: null };
  }
  if (code === 4403) return { status: "no_seat", delay: null };
  return { status: "lost", delay: 500 * retry };
}

export function createTransport({
  url,
  onState = () => {},
  onError = () => {},
  onStatus = () => {},
  idPrefix = randomPrefix(),
  WebSocket = globalThis.WebSocket,
  setTimeout = globalThis.setTimeout,
  // The heartbeat's clock, and where the browser says `online` / `offline`
  // (null: not told; tests pass their own).
  heartbeat = HEARTBEAT,
  setInterval = globalThis.setInterval,
  clearInterval = globalThis.clearInterval,
  now = () => Date.now(),
  network = globalThis.window ?? null,
}) {
  let socket = null;
  let live = false;
  let attempt = 0; // counts connect() calls: a reconnect scheduled for an older one is dropped
  let wasLive = false; // the last socket had been live: a 4401 may be a replaced session
  let retry = 0;
  let nextId = 1;
  // id -> {message, resolve, reject, sends, socket}: `socket` is the one it was
  // last written to (null: not written to the live one yet).
  const unanswered = new Map();

  function write(id, entry) {
    if (entry.sends >= MAX_SENDS) {
      unanswered.delete(id);
      entry.reject(new SocketError("not_answered", "The table did not answer. Reload the page to play on."));
      return;
    }
    entry.sends += 1;
    entry.socket = socket;
    socket.send(JSON.stringify({ ...entry.message, id }));
  }

  function flush() {
    for (const [id, entry] of [...unanswered]) if (entry.socket !== socket) write(id, entry);
  }

  function send(message) {
    const id = `${idPrefix}-${nextId++}`;
    return new Promise((resolve, reject) => {
      const entry = { message, resolve, reject, sends: 0, socket: null };
      unanswered.set(id, entry);
      if (live) write(id, entry);
    });
  }

  function settle(frame) {
    const entry = frame.id === undefined ? undefined : unanswered.get(frame.id);
    if (!entry) return false;
    if (frame.type === "error" && frame.error === OUTCOME_UNKNOWN) return true; // resent on the next socket
    unanswered.delete(frame.id);
    if (frame.type === "error") entry.reject(new SocketError(frame.error, frame.detail, frame));
    else entry.resolve(frame);
    return true;
  }

  function receive(frame) {
    if (frame.type === "state") {
      const first = !live;
      live = true;
      wasLive = true;
      onState(frame);
      settle(frame);
      if (first) flush();
      return;
    }
    if (!settle(frame) && frame.type === "error") onError(new SocketError(frame.error, frame.detail, frame));
  }

  let finished = false; // a final close: no socket again

  function fail(reason) {
    finished = true;
    for (const entry of unanswered.values()) entry.reject(new SocketError("closed", reason));
    unanswered.clear();
  }

  // ------------------------------------------------------------ heartbeat

  let ticker = null;
  let heardAt = 0; // the last frame (or the connect)
  let pingAt = null; // the ping not yet answered by any frame

  function heard() {
    heardAt = now();
    pingAt = null;
  }

  function startBeat(current) {
    stopBeat();
    heard();
    ticker = setInterval(() => beat(current), heartbeat.tickMs);
  }

  function stopBeat() {
    if (ticker !== null) clearInterval(ticker);
    ticker = null;
  }

  function beat(current) {
    if (socket !== current) return;
    const at = now();
    if (pingAt !== null && at - pingAt >= heartbeat.waitMs) {
      giveUp(current, "lost");
    } else if (pingAt === null && at - heardAt >= heartbeat.idleMs) {
      if (current.readyState !== 0) { // 0: CONNECTING
        pingAt = at;
        current.send(JSON.stringify({ type: "ping" }));
      } else if (at - heardAt >= heartbeat.idleMs + heartbeat.waitMs) {
        giveUp(current, "lost"); // still not open
      }
    }
  }

  // ------------------------------------------------------------ sockets

  const offline = () => network?.navigator?.onLine === false;

  /** The current socket is gone (closed, or given up): say so, then open
   * another after `delay` ms, or (null) reject what is unanswered. */
  function dropped(status, delay) {
    socket = null;
    live = false;
    stopBeat();
    const away = offline();
    onStatus(status === "lost" && away ? "offline" : status);
    if (delay === null) {
      fail("The connection to the table closed.");
      return;
    }
    if (away) return; // the `online` event opens the next socket
    const mine = attempt;
    setTimeout(() => {
      if (mine === attempt && socket === null) connect();
    }, delay);
  }

  /** A socket that says nothing (or a network that went away): close it
   * without waiting for its close, which may never come, and go on. */
  function giveUp(current, status) {
    if (socket !== current) return;
    retry = Math.min(retry + 1, 5);
    dropped(status, 500 * retry);
    try {
      current.close();
    } catch {
      // already closing
    }
  }

  function connect() {
    attempt += 1;
    const current = new WebSocket(url);
    socket = current;
    startBeat(current);
    current.addEventListener("open", () => {
      retry = 0;
      if (socket === current) heard();
    });
    current.addEventListener("message", (event) => {
      if (socket !== current) return;
      heard();
      receive(JSON.parse(event.data));
    });
    current.addEventListener("close", (event) => {
      if (socket !== current) return;
      const next = Math.min(retry + 1, 5);
      const { status, delay } = closeOutcome(event, { wasLive, retry: next });
      if (status === "lost") retry = next;
      if (status === "reconnecting") wasLive = false; // one new socket; refused again, it stops
      dropped(status, delay);
    });
  }

  if (network?.addEventListener) {
    network.addEventListener("offline", () => {
      if (socket !== null) giveUp(socket, "offline");
      else if (!finished) onStatus("offline");
    });
    network.addEventListener("online", () => {
      if (socket === null && !finished) {
        retry = 0;
        connect();
      }
    });
  }

  return {
    connect,
    send,
    get live() {
      return live;
    },
    get unanswered() {
      return unanswered.size;
    },
  };
}
