// The engine self-test page (engine-selftest.html): loads the engine worker
// and answers a fixed set of requests. A file of its own, not an inline
// script, so the page runs under the site's Content-Security-Policy.
import { engineFromManifest } from "./engine-client.mjs";
import { LUCK_SAMPLES } from "./rules.mjs";

const HANDS = [
  "As Ah 8d 8c Ks 7h 4d",
  "9s 2s Th 5h 2h Kd Kc",
  "Kh Qh 9d 3d Kc 6c 4c",
  "As Ah Kh Ad Kd Ac JK",
  "Js Ts 9h 4d 3c 2c JK",
];
const REQUESTS = [
  ...HANDS.map((cards) => ({ op: "house_way", cards })),
  ...HANDS.flatMap((cards) => [
    { op: "luck", cards, mode: "solo", side: "player", samples: LUCK_SAMPLES },
    { op: "luck", cards, mode: "solo", side: "dealer", samples: LUCK_SAMPLES },
    { op: "luck", cards, mode: "friend", side: "player", samples: LUCK_SAMPLES },
  ]),
  { op: "settle", mode: "solo", front: "8h 6d", back: "Js Qh 5d Tc JK",
    other_front: "Ac 5c", other_back: "Ks 3s Ah 9h 6c" },
  { op: "house_way_detail", cards: HANDS[0] },
  { op: "settings", cards: HANDS[1] },
  { op: "describe", front: "9s 9h", back: "Ks Qd 7c 4h 2s" },
  { op: "luck_detail", cards: HANDS[2], mode: "friend" },
  { op: "explore", cards: HANDS[0], mode: "solo" },
  { op: "explore", cards: HANDS[1], mode: "solo", side: "dealer", samples: LUCK_SAMPLES },
  { op: "explore", cards: HANDS[4], mode: "friend", samples: LUCK_SAMPLES },
  { op: "explore", cards: HANDS[0], mode: "solo", samples: 0 },
  { op: "house_way", cards: "As As 8d 8c Ks 7h 4d" },
  { op: "luck", cards: HANDS[0], mode: "friend", side: "dealer" },
  { op: "dance" },
];

const status = document.getElementById("status");
const results = document.getElementById("results");
try {
  // This page is /static/js/engine-selftest.html, so the static root is one up.
  const staticUrl = new URL("../", document.baseURI).href;
  const engine = await engineFromManifest({ staticUrl });
  window.engine = engine;
  const ready = await engine.ready;
  const started = performance.now();
  const answers = [];
  for (const request of REQUESTS) answers.push({ request, answer: await engine.call(request) });
  results.textContent = JSON.stringify(answers);
  results.dataset.count = String(answers.length);
  status.dataset.ms = String(ready.ms);
  status.dataset.pyodide = ready.pyodide;
  status.dataset.boot = ready.boot;
  status.dataset.answerMs = String(Math.round(performance.now() - started));
  status.dataset.state = "done";
  status.textContent = `Engine ready in ${ready.ms} ms (Pyodide ${ready.pyodide}, boot: ${ready.boot}); `
    + `${answers.length} answers in ${status.dataset.answerMs} ms.`;
} catch (error) {
  status.dataset.state = "error";
  status.textContent = `The engine failed: ${error?.message ?? error}`;
}
