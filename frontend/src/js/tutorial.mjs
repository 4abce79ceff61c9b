// The first-table walkthrough: a small coach panel on the real table that
// follows the real deal from the frames (docs/protocol.md, "state"): the
// stake before the deal; front and back, the foul rule, the house way and
// Lock while the cards are set; what happened at the reveal. The names and
// reasons are the frame's own (deal.you.guide, deal.results), never made up
// here. Skipped, or finished at the reveal, it is kept for the account
// (POST accounts:walkthrough) and no table page shows it again.
//
// The steps are pure functions of the frame and the walkthrough's progress
// (tested by frontend/test/tutorial.test.mjs); createTutorial draws them into
// the template's #walkthrough region and posts its end. table.mjs calls
// `update(state)` after each render.

import { guide, lower, partWord, signed, WORDS } from "./table-state.mjs";

/** The walkthrough's progress on this page: the stage and step shown, the
 * deal it followed while unrevealed, the deal whose reveal it explained, and
 * how it ended ("done", "skipped" or null). */
export function freshProgress() {
  return { key: null, index: 0, followed: null, explained: null, ended: null };
}

/** Where the deal in view stands for the walkthrough: "invite" (a friend
 * table waiting), "stake" (agree a stake and deal), "choosing", "locked",
 * "revealed" (a deal the walkthrough followed: one revealed before it
 * started waits for the next deal), or null (the table is finished). */
export function stage(state, progress) {
  const { table, deal } = state;
  if (table.status === "finished" && !(deal?.revealed && progress.followed === deal.number)) return null;
  if (table.status === "waiting") return "invite";
  if (deal && !deal.revealed) return deal.you.locked ? "locked" : "choosing";
  if (deal && deal.revealed && progress.followed === deal.number) return "revealed";
  return "stake";
}

/** The progress after a frame: the deal followed, the step reset when the
 * stage moves on, and "done" once a new deal follows the reveal explained. */
export function observe(progress, state) {
  if (progress.ended) return progress;
  const deal = state.deal;
  let next = { ...progress };
  if (deal && !deal.revealed) next.followed = deal.number;
  if (next.explained !== null && deal && deal.number > next.explained) return { ...next, ended: "done" };
  const now = stage(state, next);
  const key = `${now}|${deal ? deal.number : ""}`;
  if (key !== next.key) next = { ...next, key, index: 0 };
  if (now === "revealed") next.explained = deal.number;
  return next;
}

/** "Next" pressed: the following step of the stage (the last stays). */
export function advanced(progress, state) {
  const steps = stepsOf(state, progress);
  return { ...progress, index: Math.min(progress.index + 1, Math.max(steps.length - 1, 0)) };
}

/** The walkthrough ended on this page (skipped, or finished at the reveal). */
export const ended = (progress, outcome) => ({ ...progress, ended: outcome });

/** The step to show, or null: {id, title, lines, next, finish, target}.
 * `next` is the Next button's label (null: the table's own action moves on),
 * `finish` whether it ends the walkthrough, `target` the id of the control
 * it points at (or null). */
export function step(state, progress) {
  if (progress.ended) return null;
  const steps = stepsOf(state, progress);
  if (!steps.length) return null;
  return steps[Math.min(progress.index, steps.length - 1)];
}

const solo = (state) => state.table.mode === "solo";

function stepsOf(state, progress) {
  const now = stage(state, progress);
  if (now === "invite") return [inviteStep()];
  if (now === "stake") return [stakeStep(state)];
  if (now === "choosing") return choosingSteps(state);
  if (now === "locked") return [lockedStep()];
  if (now === "revealed") return [revealStep(state)];
  return [];
}

function inviteStep() {
  return {
    id: "invite", title: "First, your friend",
    lines: [
      "Send your friend the invite link. Once they sit down, you agree a stake and deal.",
      "This walkthrough then follows your first deal, step by step.",
    ],
    next: null, finish: false, target: "invite-button",
  };
}

function stakeStep(state) {
  const how = solo(state)
    ? "Type a stake and press Deal: the dealer accepts any stake up to the smaller stack."
    : "Propose a stake, or accept your friend's: the cards are dealt as soon as a stake is accepted.";
  return {
    id: "stake", title: "The stake",
    lines: [
      "Each deal is played for a stake: the chips you win or lose on it. Both sides start with 1,000 play chips.",
      "A win adds the stake to your stack, a loss takes it away, a push changes nothing. "
        + "No commission is charged: “With 5%” only shows what a 5% commission on wins would have cost.",
      how,
    ],
    next: null, finish: false, target: "stake",
  };
}

/** The first of the deal's settings that fouls, as the guide explains it, or null. */
export function foulExample(state) {
  const rows = guide(state)?.settings ?? [];
  return rows.find((row) => row.foul_reason)?.foul_reason ?? null;
}

function choosingSteps(state) {
  const shown = guide(state);
  const house = shown?.house_way;
  const example = foulExample(state);
  const other = solo(state) ? "the dealer's" : "your friend's";
  const steps = [
    {
      id: "cards", title: "Front and back",
      lines: [
        "You have seven cards. Pick two for the front; the other five make the back.",
        "The front is only a pair or a high card; the back is a five-card poker hand.",
        `At the reveal your front meets ${other} front and your back meets ${other} back.`,
      ],
      next: "Next", finish: false, target: "cards",
    },
    {
      id: "foul", title: "The back must beat the front",
      lines: [
        "Your back must rank at least as high as your front. If the front is stronger, the hand fouls, and a foul loses the deal.",
        example ? `With these cards, for example: ${example}` : "None of the ways to set these seven cards fouls.",
        "The page warns you before you lock a foul.",
      ],
      next: "Next", finish: false, target: "labels",
    },
  ];
  if (house) {
    steps.push({
      id: "house", title: "What House way suggests",
      lines: [
        `House way sets ${lower(house.front_name)} in front and ${lower(house.back_name)} behind.`,
        `Why (${lower(house.row_words ?? house.row)}): ${house.reason}`,
        solo(state)
          ? "The dealer sets by the house way too, and your decision skill is measured against it. Press House way to pick it, or pick your own."
          : "Your decision skill is measured against it. Press House way to pick it, or pick your own.",
      ],
      next: "Next", finish: false, target: "house-way",
    });
  }
  steps.push({
    id: "lock", title: "Lock",
    lines: [
      "When the front and back are as you want them, press Lock: the setting is final.",
      solo(state)
        ? "The dealer has already set by the house way, so the reveal comes at once."
        : "Both settings stay hidden until you have both locked, then both are revealed together.",
    ],
    next: null, finish: false, target: "lock",
  });
  return steps;
}

function lockedStep() {
  return {
    id: "locked", title: "Locked",
    lines: ["Your setting is locked. Your friend is still setting theirs: neither of you sees the other's cards before both have locked."],
    next: null, finish: false, target: null,
  };
}

const backOf = (side) => side.back_words ?? lower(side.back_name);

/** The reveal explained from the frame's results. */
export function revealStep(state) {
  const deal = state.deal;
  const mine = deal.results.you;
  const theirs = deal.results.other;
  const who = solo(state) ? "the dealer's" : `${state.seats.other.name || "your friend"}'s`;
  // A foul loses the whole bet: its parts are not played, so none is called a win.
  const fouled = mine.foul || theirs.foul;
  const part = (result) => (fouled ? "not played, a foul decides the deal" : partWord(state, result));
  const lines = [
    `Front: your ${lower(mine.front_name)} against ${who} ${lower(theirs.front_name)}: ${part(mine.front_result)}.`,
    `Back: your ${backOf(mine)} against ${who} ${backOf(theirs)}: ${part(mine.back_result)}.`,
  ];
  if (mine.foul) lines.push("Your setting fouled (the front beat the back), so it lost whatever the other side held.");
  else if (theirs.foul) lines.push("The other side fouled, so it lost the deal.");
  const copies = [mine.front_result, mine.back_result].includes("copy");
  if (copies) {
    lines.push(solo(state)
      ? "A copy is the same hand on both sides: in solo it goes to the dealer."
      : "A copy is the same hand on both sides: with a friend it ties.");
  }
  const money = { win: `+${deal.stake} chips`, loss: `−${deal.stake} chips`, push: "no chips change hands" }[mine.result];
  const why = {
    win: "you won both parts",
    loss: "you lost both parts",
    push: !solo(state) && copies ? "a copied part ties, so it is a push" : "the parts were split",
  }[mine.result];
  lines.push(`${WORDS[mine.result]}: ${mine.foul || theirs.foul ? "a foul decided it" : why}, ${money}.`);
  lines.push(`Decision skill ${signed(mine.skill)}: your setting's score minus the house way's against the same ${solo(state) ? "dealer setting" : "setting of your friend"}.`);
  return { id: "reveal", title: "The reveal", lines, next: "Finish the walkthrough", finish: true, target: "result" };
}

// ---------------------------------------------------------------- the DOM

/** The walkthrough panel in `doc` (absent when the template did not ask
 * for it); `post(form, outcome)` sends its end (fetch by default). */
export function createTutorial(doc = document, { post = postEnd } = {}) {
  const root = doc.getElementById("walkthrough");
  if (!root) return { update() {}, progress: () => null };
  const body = doc.getElementById("walkthrough-step");
  const next = doc.getElementById("walkthrough-next");
  const form = doc.getElementById("walkthrough-form");
  const note = doc.getElementById("walkthrough-note");
  let progress = freshProgress();
  let state = null;
  let shownKey = null;
  let pointed = null;

  function point(id) {
    if (pointed && pointed.id !== id) pointed.classList.remove("walkthrough-target");
    pointed = id ? doc.getElementById(id) : null;
    if (pointed) pointed.classList.add("walkthrough-target");
  }

  function draw() {
    const shown = state ? step(state, progress) : null;
    root.hidden = !shown;
    if (!shown) {
      point(null);
      return;
    }
    point(shown.target);
    next.hidden = !shown.next;
    if (shown.next) next.textContent = shown.next;
    const key = JSON.stringify([shown.id, shown.lines]);
    if (key === shownKey) return; // a live region: said again only when it changes
    shownKey = key;
    const title = doc.createElement("h3");
    title.textContent = shown.title;
    const lines = shown.lines.map((text) => {
      const p = doc.createElement("p");
      p.textContent = text;
      return p;
    });
    body.replaceChildren(title, ...lines);
  }

  async function end(outcome) {
    note.textContent = "";
    try {
      await post(form, outcome);
    } catch (error) {
      note.textContent = `That was not saved (${error?.message ?? error}): try again.`;
      return;
    }
    progress = ended(progress, outcome);
    draw();
  }

  next.addEventListener("click", () => {
    const shown = state && step(state, progress);
    if (!shown) return;
    if (shown.finish) {
      end("done");
      return;
    }
    progress = advanced(progress, state);
    draw();
    if (next.hidden) body.focus(); // the table's own control moves on from here
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    end("skipped");
  });

  return {
    /** A new frame (or choice) was rendered. */
    update(frame) {
      state = frame;
      const before = progress.ended;
      progress = observe(progress, frame);
      draw();
      // A new deal after the reveal explained: the walkthrough is done.
      if (!before && progress.ended === "done") post(form, "done").catch(() => {});
    },
    progress: () => progress,
  };
}

/** POST the end to the form's action with its CSRF token; throws on a refusal. */
export async function postEnd(form, outcome) {
  const data = new FormData(form);
  data.set("outcome", outcome);
  // keepalive: an end sent as the player reloads or leaves (the next deal's
  // "done" comes unasked) still reaches the server.
  const answer = await fetch(form.action, {
    method: "POST", body: data, credentials: "same-origin", headers: { Accept: "application/json" },
    keepalive: true,
  });
  if (!answer.ok) {
    let detail = `HTTP ${answer.status}`;
    try {
      detail = (await answer.json()).detail || detail;
    } catch {
      // not JSON (a CSRF refusal page): the status says it
    }
    throw new Error(detail);
  }
  return answer.json();
}
