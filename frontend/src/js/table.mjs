// The table client. The server is the authority for the table (stakes, deals,
// locks, results, ledgers: docs/protocol.md) and sends each seat only what it
// may see, with the guide of its own cards (hand names, the foul check, the
// house way and what the coach compares, computed by the engine on the
// server): they work from the first frame. The engine worker (engine-client.mjs,
// the same Python engine under Pyodide) runs what must run on the device: luck
// after the reveal and the setting explorer. When it cannot load, the page
// says so once and plays on; luck is computed and sent once it loads.
//
// This file wires three modules: table-transport.mjs (the socket: send()
// returns a promise; unanswered messages are resent with the same id after a
// reconnect), table-state.mjs (what the page shows, as pure functions of the
// state frame and the page's choices) and table-view.mjs (the DOM).

import * as explorer from "./explorer.mjs";
import * as shows from "./table-state.mjs";
import { createTransport } from "./table-transport.mjs";
import { createView } from "./table-view.mjs";
import { createTutorial } from "./tutorial.mjs";

const view = createView(document);
const tutorial = createTutorial(document); // the first-table walkthrough, when the page has it
const { el } = view;
const FACES_KEY = "paigow.faces";
const facesUrl = el.root.dataset.facesUrl || "";
const facesBase = () => (facesUrl && localStorage.getItem(FACES_KEY) === "pack" ? facesUrl : "");

// Everything the page knows: the server's last frame, the page's choices for
// the deal in view, the socket (its status, and the actions pressed and not
// yet answered: table-state.mjs, freshLink), the engine ("loading", "ready"
// or "failed").
const page = {
  state: JSON.parse(document.getElementById("table-state").textContent),
  choices: shows.freshChoices(),
  link: shows.freshLink(),
  engine: null,
  engineState: "loading",
  engineReady: false,
  faces: facesBase(),
};

// Timings for benchmarks/client.py and anyone curious (performance marks too).
// explorer: [{opponents, ms}] after each chunk, ms from the click.
const timings = (window.paigowTimings = { engineReady: null, luck: null, explore: null, explorer: [], exact: null });

// ---------------------------------------------------------------- socket

const scheme = location.protocol === "https:" ? "wss" : "ws";
let backTimer = null;
const transport = createTransport({
  url: `${scheme}://${location.host}/ws/tables/${el.root.dataset.tableId}/`,
  onState(frame) {
    const { type, id, replayed, ...state } = frame;
    const before = page.state.deal;
    if (state.deal?.revealed && !(before?.revealed && before.number === state.deal.number)) {
      performance.mark("paigow-reveal"); // benchmarks/boot.py: reveal frame to luck shown
    }
    page.state = state;
    if (page.link.status !== "live") connected();
    page.choices = { ...page.choices, error: "" };
    render();
  },
  onError: (error) => refused(error),
  onStatus(status) {
    clearTimeout(backTimer);
    page.link = { ...page.link, status, back: false };
    view.renderControls(page);
  },
});

/** Live (again): after a drop, "Connected again." for a moment. */
function connected() {
  const back = page.link.status !== "connecting";
  page.link = { ...page.link, status: "live", back };
  if (!back) return;
  clearTimeout(backTimer);
  backTimer = setTimeout(() => {
    page.link = { ...page.link, back: false };
    view.renderControls(page);
  }, shows.BACK_MS);
}

// What an action is called while it waits for the table ("Lock will be sent
// when you are back"); messages not named here (luck, state) wait unsaid.
const ACTIONS = {
  deal: "Deal", accept_stake: "Accept stake", rebet: "Rebet", lock: "Lock",
  invite_new: "New link", invite_revoke: "Withdraw",
};

/** Send a message; `then` gets the reply's state frame; a refusal is shown
 * unless its code is in `quiet`. Until its answer comes, `action` names it
 * (shown as waiting while the table cannot be reached). */
function send(message, { then = () => {}, quiet = [], action = ACTIONS[message.type] } = {}) {
  const answered = action ? waitFor(action) : () => {};
  transport.send(message)
    .finally(answered)
    .then(then, (error) => refused(error, quiet));
}

function waitFor(action) {
  page.link = { ...page.link, waiting: [...page.link.waiting, action] };
  view.renderControls(page);
  return () => {
    const waiting = [...page.link.waiting];
    waiting.splice(waiting.indexOf(action), 1);
    page.link = { ...page.link, waiting };
    view.renderControls(page);
  };
}

function refused(error, quiet = []) {
  if (error.error === "closed" || quiet.includes(error.error)) return; // the connection line says it
  if (error.error === "stake_changed") {
    // Show the table as it is now (the new stake), then the sentence on it.
    send({ type: "state" }, { then: () => showError(error.detail) });
    return;
  }
  if (error.error === "foul_unconfirmed") {
    // The server's sentence is whole (its reason and the choice); the alert
    // shows the guide's reason instead when it has one, never both.
    page.choices = { ...page.choices, lockTried: true, error: "", serverFoul: error.detail };
    view.renderAlert(page);
    view.focusLockAnyway();
    return;
  }
  showError(error.detail);
}

function showError(text) {
  page.choices = { ...page.choices, error: text };
  view.renderAlert(page);
}

// ---------------------------------------------------------------- engine

// The worker was started by engine-start.mjs from the page's <head> (or is
// started here, if that did not run): the same engine either way. Its client
// module is imported on its own, not with the page's: a page whose engine
// files are refused or missing still plays from the frames.
const engineStarted = performance.now();
import("./engine-client.mjs")
  .then(({ sharedEngine }) => sharedEngine({ staticUrl: el.root.dataset.staticUrl || "/static/" }))
  .then((started) => {
    page.engine = started;
    return started.ready;
  })
  .then((ready) => {
    page.engineReady = true;
    page.engineState = "ready";
    timings.engineReady = Math.round(performance.now() - engineStarted);
    timings.engineBoot = ready.boot; // "snapshot", "python" or "fallback"
    timings.workerMs = ready.ms;
    timings.workerPhases = ready.phases;
    timings.snapshotFrom = ready.snapshotFrom;
    timings.wasmFrom = ready.wasmFrom;
    // The worker's first line, ms after this page's navigation (benchmarks/boot.py)
    timings.workerStartedAt = ready.startedAt - performance.timeOrigin;
    performance.mark("paigow-engine-ready");
    view.showEngine(true);
    render();
  })
  .catch((error) => {
    // Said once; everything but luck and the explorer goes on from the frames.
    page.engineState = "failed";
    view.showEngine(false, error, shows.ENGINE_UNAVAILABLE);
    render();
  });

/** The one guard against stale engine answers: `fresh()` is true while the
 * question asked now (about the deal, or the setting in view) is the page's. */
function asking(about) {
  const asked = shows.question(page.state, page.choices, about);
  return () => shows.stillAsked(asked, page.state, page.choices);
}

// ---------------------------------------------------------------- render

function render() {
  page.choices = shows.forDeal(page.choices, page.state);
  view.render(page);
  view.showCoach(shows.coachLines(page.state, page.choices));
  tutorial.update(page.state);
  renderLuck();
  followPlay();
}

// Focus and scroll follow the play: to the cards of a new deal, to your
// locked setting, to the result at the reveal (not on the first render).
let phaseShown = null;
function followPlay() {
  const now = shows.phase(page.state);
  const target = shows.focusAfter(phaseShown, now);
  phaseShown = now;
  view.follow(target);
}

// Luck after the reveal: computed on this device once, shown, and sent (the
// transport keeps it until a socket is live).
function renderLuck() {
  const line = shows.luck(page.state, page.choices, page.engineState);
  if (!line) return;
  view.showLuck(line);
  if (!line.ask) return;
  page.choices = { ...page.choices, luckAsked: true };
  const fresh = asking("deal");
  const number = page.state.deal.number;
  const started = performance.now();
  page.engine.run(shows.luckRequest(page.state))
    .then((estimate) => {
      timings.luck = Math.round(performance.now() - started);
      performance.mark("paigow-luck");
      if (!fresh()) return;
      view.showLuck(shows.computedLuck(page.state, estimate));
      performance.mark("paigow-luck-shown");
      send(shows.luckMessage(number, estimate), { quiet: ["luck_already_recorded"] });
    })
    .catch((error) => {
      if (!fresh()) return;
      page.choices = { ...page.choices, luckAsked: false };
      view.showLuck({ text: `Luck could not be computed: ${error?.message ?? error}` });
    });
}

// The setting explorer (explorer.mjs): chunk after chunk of opponents, the
// table drawn again after each; a new deal stops it.
const refiner = explorer.createRefiner();
const exactPoller = explorer.createExactPoller();

async function getJson(url) {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
  return { status: response.status, body: await response.json().catch(() => null) };
}

// The exact figures, computed on the server (a Celery task): asked every
// EXACT_POLL_MS while pending; a new deal stops it. The device's estimate
// refines below meanwhile.
async function runExact() {
  if (!page.state.deal) return;
  const number = page.state.deal.number;
  const fresh = asking("deal");
  timings.exact = null;
  const started = performance.now();
  view.exactMessage(explorer.EXACT_PENDING);
  await exactPoller.poll({
    get: getJson,
    url: explorer.exactUrl(page.state),
    fresh,
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    show(answer) {
      view.showExact(number, explorer.exactModel(answer, page.state));
      timings.exact = Math.round(performance.now() - started);
    },
  });
}

async function runExplorer() {
  if (!page.state.deal || !page.engineReady) return;
  runExact().catch((error) => view.exactMessage(`The exact figures could not be fetched: ${error?.message ?? error}`));
  const number = page.state.deal.number;
  const fresh = asking("deal");
  const started = performance.now();
  timings.explore = null;
  timings.explorer = [];
  view.explorerMessage(explorer.statusText(null, false));
  await refiner.refine({
    run: (request) => page.engine.run(request),
    base: explorer.exploreBase(page.state),
    fresh,
    show: (totals, done) => view.showExplorer(number, explorer.explorerModel(totals, page.state, { done })),
    onStep(opponents) {
      timings.explorer.push({ opponents, ms: Math.round(performance.now() - started) });
      if (timings.explore === null) {
        timings.explore = Math.round(performance.now() - started); // the first table (luck's opponents)
        performance.mark("paigow-explore");
      }
    },
  });
}

// ---------------------------------------------------------------- actions

function choose(choices) {
  if (choices === page.choices) return;
  page.choices = choices;
  render();
}

el.cards.addEventListener("click", (event) => {
  const button = event.target.closest("button.card");
  // A lock waiting to be sent holds the cards it names.
  if (button && !page.link.waiting.includes(ACTIONS.lock)) {
    choose(shows.toggled(page.choices, page.state, button.dataset.code));
  }
});

if (el.facesChoice) {
  el.facesChoice.value = page.faces ? "pack" : "svg";
  el.facesChoice.addEventListener("change", () => {
    localStorage.setItem(FACES_KEY, el.facesChoice.value);
    page.faces = facesBase();
    render();
  });
}

el.stakeForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const { amount, error } = shows.stakeEntry(el.stake.value);
  if (error) {
    showError(error);
    return;
  }
  // Propose the stake; once it is agreed (at once in solo), deal.
  const solo = page.state.table.mode === "solo";
  send({ type: "stake", amount }, {
    action: solo ? ACTIONS.deal : "Your stake",
    then: (frame) => shows.dealsAfter("stake", frame, amount) && send({ type: "deal" }),
  });
});

const dealNow = () => send({ type: "deal" }, { quiet: ["deal_in_progress"] });

el.acceptStake.addEventListener("click", () => {
  const message = shows.acceptMessage(page.state);
  if (message) send(message, { then: (frame) => shows.dealsAfter("accept_stake", frame) && dealNow() });
});

el.dealAgreed.addEventListener("click", dealNow);

el.rebet.addEventListener("click", () => {
  send(shows.rebetMessage(page.state), { then: (frame) => shows.dealsAfter("rebet", frame) && dealNow() });
});

el.houseWay.addEventListener("click", () => {
  const house = shows.houseWay(page.state);
  if (house) choose(shows.withHouseWay(page.choices, house));
});

el.lock.addEventListener("click", () => {
  const message = shows.lockMessage(page.state, page.choices);
  if (!message) return;
  if (shows.foulOf(page.state, page.choices)) {
    // Explained already; a foul needs a second, explicit "Lock anyway".
    page.choices = { ...page.choices, lockTried: true };
    view.renderAlert(page);
    view.focusLockAnyway();
    return;
  }
  send(message);
});

el.lockAnyway.addEventListener("click", () => {
  const message = shows.lockMessage(page.state, page.choices, { confirmFoul: true });
  if (message) send(message);
});

el.explore.addEventListener("click", () => {
  runExplorer().catch((error) => view.explorerMessage(`The explorer failed: ${error?.message ?? error}`));
});

if (el.inviteButton) {
  el.inviteButton.addEventListener("click", () => {
    el.inviteBox.hidden = false;
    const shown = () => {
      view.renderInvite(page);
      view.focusInvite();
    };
    if (page.state.table.invite && page.state.table.invite.url) shown();
    else send({ type: "invite_new" }, { then: shown });
  });
}

// The host's invite link: a new one (the old one stops working), or none.
if (el.inviteNew) {
  el.inviteNew.addEventListener("click", () => {
    send({ type: "invite_new" }, { then: () => view.inviteChanged(page, "made") });
  });
  el.inviteWithdraw.addEventListener("click", () => {
    send({ type: "invite_revoke" }, { then: () => view.inviteChanged(page, "withdrawn") });
  });
}

render();
transport.connect();
