// Charts for the history pages, drawn with uPlot (a small canvas chart
// library, pinned in package.json and served by the site from
// build/vendor/). Each <figure class="chart" data-chart="kind"
// data-source="id"> reads its numbers from the <script type="application/json"
// id="id"> the server rendered, draws, and is marked data-drawn="true";
// the labels uPlot drew on each axis are kept in data-axis-x and data-axis-y.

const INK = "#1d1d1f";
const FELT = "#0b5d3b";
const GOLD = "#d4a017";
const RED = "#c8102e";
const GREY = "#8a8a85";

const NUMBER = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
/** A tick's number as the pages show numbers: the minus sign is U+2212. */
export const shown = (value) => (value == null ? "" : NUMBER.format(value).replace("-", "\u2212"));
const numbers = (_, ticks) => ticks.map(shown);

const axis = (label, extra = {}) => ({
  label, stroke: INK, grid: { stroke: "#ecece8" }, values: numbers, ...extra,
});
// A time axis keeps uPlot's own date and time labels.
const timeAxis = (label) => ({ label, stroke: INK, grid: { stroke: "#ecece8" }, space: 70 });
// A deal axis counts deals: whole-number steps only.
const DEAL_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
const dealAxis = (label = "Deal") => axis(label, { incrs: DEAL_STEPS });

// The height an axis of upright labels up to `longest` characters needs:
// about 6.5 px a character at uPlot's 12 px font, plus the axis title.
// Upright, a label never runs past the chart's sides, however long.
export const rowAxisSize = (longest) => Math.ceil(34 + longest * 6.5);

function sized(el, height = 240) {
  return { width: Math.max(260, Math.floor(el.clientWidth || 320)), height };
}

function dots(stroke, fill) {
  return { stroke, fill, width: 0, paths: () => null, points: { show: true, size: 9, stroke, fill } };
}

const builders = {
  // Both ledgers' balances over the deals of a session.
  ledgers(data) {
    const x = [0, ...data.deal];
    return {
      opts: {
        scales: { x: { time: false } },
        axes: [dealAxis(), axis("Chips", { size: 60 })],
        series: [
          { label: "Deal" },
          { label: "Actual", stroke: FELT, width: 2 },
          { label: "With 5%", stroke: GOLD, width: 2, dash: [6, 4] },
        ],
      },
      data: [x, [data.start, ...data.actual], [data.start, ...data.with_5]],
    };
  },
  // Luck (x) against the outcome's score (y): one dot per deal, by result.
  "luck-outcome"(data) {
    const points = data.luck
      .map((luck, i) => [luck, data.score[i]])
      .filter(([luck]) => luck !== null)
      .sort((a, b) => a[0] - b[0]);
    const x = points.map(([luck]) => luck);
    const only = (score) => points.map(([, s]) => (s === score ? s : null));
    return {
      empty: points.length === 0 ? "No completed luck estimates yet." : "",
      opts: {
        scales: { x: { time: false, range: [1, 10] }, y: { range: [-0.25, 1.25] } },
        axes: [
          axis("Luck"),
          axis("Outcome", {
            size: 60,
            splits: () => [0, 0.5, 1],
            values: (_, ticks) => ticks.map((t) => ({ 0: "loss", 0.5: "push", 1: "win" })[t] ?? ""),
          }),
        ],
        series: [
          { label: "Luck" },
          { label: "Win", ...dots(FELT, "rgba(11,93,59,.55)") },
          { label: "Push", ...dots(GREY, "rgba(138,138,133,.55)") },
          { label: "Loss", ...dots(RED, "rgba(200,16,46,.55)") },
        ],
      },
      data: [x, only(1), only(0.5), only(0)],
    };
  },
  // The running total of decision skill over deals.
  "skill-running"(data) {
    return {
      opts: {
        scales: { x: { time: false } },
        axes: [dealAxis(), axis("Skill", { size: 50 })],
        series: [{ label: "Deal" }, { label: "Skill so far", stroke: FELT, width: 2, fill: "rgba(11,93,59,.08)" }],
      },
      data: [data.deal, data.skill],
    };
  },
  // Skill by house-way row: one bar per row (sum), the mean as dots. The rows
  // come in words ("Two pair, kept together"), upright, with room below the
  // plot for the longest so that none is cut.
  "skill-rows"(data) {
    const x = data.rows.map((_, i) => i);
    const bars = window.uPlot.paths.bars({ size: [0.6, 80] });
    const below = rowAxisSize(Math.max(0, ...data.rows.map((row) => row.length)));
    return {
      height: 180 + below,
      opts: {
        scales: { x: { time: false, range: [-0.6, Math.max(0.6, x.length - 0.4)] } },
        axes: [
          axis("House-way row", {
            splits: () => x,
            values: (_, ticks) => ticks.map((t) => data.rows[t] ?? ""),
            size: below,
            rotate: -90,
          }),
          axis("Skill", { size: 50 }),
        ],
        series: [
          { label: "Row", value: (_, i) => (i == null ? "" : data.rows[i] ?? "") },
          { label: "Skill sum", stroke: FELT, fill: "rgba(11,93,59,.6)", paths: bars, points: { show: false } },
          { label: "Per deal", ...dots(GOLD, GOLD) },
        ],
      },
      data: [x, data.sum, data.mean],
    };
  },
  // Practice (games.practice.selectors.practice_progress): the running
  // accuracy (%) and the running average loss after each hand, by hand number.
  "practice-accuracy"(data) {
    return {
      opts: {
        scales: { x: { time: false }, y: { range: [0, 100] } },
        axes: [dealAxis("Hand"), axis("Accuracy (%)", { size: 60 })],
        series: [{ label: "Hand" }, { label: "Accuracy", stroke: FELT, width: 2, points: { show: true } }],
      },
      data: [data.hand, data.accuracy],
    };
  },
  "practice-loss"(data) {
    return {
      opts: {
        scales: { x: { time: false }, y: { range: (u, min, max) => [0, Math.max(0.05, max * 1.1)] } },
        axes: [dealAxis("Hand"), axis("Average loss", { size: 60 })],
        series: [{ label: "Hand" }, { label: "Average loss", stroke: RED, width: 2, points: { show: true } }],
      },
      data: [data.hand, data.average_loss],
    };
  },
  // The running total of skill at each deal's real reveal time (seconds).
  "skill-time"(data) {
    return {
      opts: {
        scales: { x: { time: true } },
        axes: [timeAxis("Revealed"), axis("Skill", { size: 50 })],
        series: [{ label: "Revealed" }, { label: "Skill so far", stroke: FELT, width: 2, points: { show: true } }],
      },
      data: [data.at, data.cumulative],
    };
  },
};

function draw(figure) {
  const build = builders[figure.dataset.chart];
  const source = document.getElementById(figure.dataset.source);
  const target = figure.querySelector(".chart-canvas");
  if (!build || !source || !target || !window.uPlot) return;
  const { opts, data, empty, height } = build(JSON.parse(source.textContent));
  if (empty) {
    target.innerHTML = `<p class="chart-empty">${empty}</p>`;
    figure.dataset.drawn = "empty";
    return;
  }
  // The labels drawn on each axis (uPlot keeps them as axis._values), for tests and tools.
  const keepLabels = (u) => {
    u.axes.forEach((a, i) => { figure.dataset[i ? "axisY" : "axisX"] = JSON.stringify(a._values ?? []); });
  };
  const hooks = { draw: [keepLabels] };
  const chart = new window.uPlot({ ...sized(target, height), ...opts, hooks, legend: { live: false } }, data, target);
  figure.dataset.drawn = "true";
  new ResizeObserver(() => {
    const size = sized(target, height);
    if (size.width !== chart.width) chart.setSize(size);
  }).observe(target);
}

for (const figure of document.querySelectorAll("figure.chart[data-chart]")) {
  try {
    draw(figure);
  } catch (error) {
    figure.dataset.drawn = "error";
    console.error("chart", figure.dataset.chart, error);
  }
}
