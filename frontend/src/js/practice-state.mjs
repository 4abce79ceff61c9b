// What the practice page shows while a hand is set (pure functions, tested
// by frontend/test/practice-state.test.mjs). `view` is the server's view of
// a practice hand (games.practice.selectors.practice_view): its cards, their
// names and, while unlocked, each setting's names and foul.

import { foulBack } from "./table-state.mjs";

const same = (a, b) => a.length === b.length && a.every((c) => b.includes(c));
const lower = (text) => text.charAt(0).toLowerCase() + text.slice(1);

/** The selection after a card is pressed: on, off, or it replaces the older of two. */
export function toggled(selected, code) {
  if (selected.includes(code)) return selected.filter((c) => c !== code);
  if (selected.length < 2) return [...selected, code];
  return [selected[1], code];
}

/** The view's setting whose front is the selection (two cards), or null. */
export function settingOf(view, selected) {
  if (selected.length !== 2 || !view.settings) return null;
  return view.settings.find((s) => same(s.front, selected)) ?? null;
}

/** The two labels under the cards: the front's and the back's names. */
export function labels(view, selected) {
  const setting = settingOf(view, selected);
  if (!setting) {
    const more = 2 - selected.length;
    return { front: `Front: pick ${more} more card${more === 1 ? "" : "s"}`, back: "Back: the other five cards" };
  }
  // A fouled back as the warning names it, in the table's words (table-state.mjs).
  return { front: `Front: ${lower(setting.front_name)}`, back: `Back: ${foulBack(setting.foul_reason) ?? lower(setting.back_name)}` };
}

/** The foul warning of the selection, or "" when it is legal (or incomplete). */
export function foulWarning(view, selected) {
  const reason = settingOf(view, selected)?.foul_reason;
  return reason ? `A foul: ${reason} A foul loses against any setting; you may still lock it to see what it costs.` : "";
}

/** Whether Lock can be pressed: two cards picked and nothing on its way. */
export const canLock = (view, selected, sending) => !view.locked && !sending && selected.length === 2;

/** A card button's accessible name: "K, King of spades" (the joker: "Joker"). */
export function cardLabel(view, code) {
  const name = view.names?.[code] ?? code;
  if (code === "JK") return name;
  return `${code[0] === "T" ? "10" : code[0]}, ${name}`;
}
