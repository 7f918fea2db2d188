// The countdown ring of the open window: the time left counted down from the server's
// `remaining_ms` and the moment its `window` message came (so every page shows the same
// countdown without agreeing on a clock), frozen while the fight is paused, and who the
// window still waits on. It ticks by itself: nothing else on the page is drawn again
// for it.

import { useEffect, useState } from "../vendor/htm-preact-standalone.js";
import { nameOf } from "./store.js";
import { html } from "./ui.js";

const KINDS = {
  planning: "Planning",
  reaction: "Reaction",
  counter: "Counter",
  adapt: "Adapt",
};

export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Milliseconds left of `countdown` ({message, at}) at `now` (performance.now()). */
export function remainingMs(countdown, now) {
  const { message, at } = countdown;
  if (!message.running) return message.remaining_ms;
  return Math.max(0, message.remaining_ms - (now - at));
}

export function Ring({ countdown, table, big = false }) {
  const [now, setNow] = useState(performance.now());
  const running = Boolean(countdown && countdown.message.running && !table.paused_by);
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => setNow(performance.now()), reducedMotion() ? 1000 : 200);
    return () => clearInterval(timer);
  }, [running, countdown]);

  const open = table.window;
  if (!open) return null;
  const asked = countdown ? countdown.message.asked.map((a) => a.combatant) : open.asked;
  const answered = new Set(countdown ? countdown.message.answered : open.answered);
  const waiting = asked.filter((id) => !answered.has(id));
  const total = countdown ? countdown.message.total_ms : open.seconds * 1000;
  const left = countdown ? remainingMs(countdown, running ? Math.max(now, countdown.at) : countdown.at) : total;
  const share = total > 0 ? left / total : 0;
  const radius = 26;
  const around = 2 * Math.PI * radius;
  const seconds = Math.ceil(left / 1000);
  const paused = Boolean(table.paused_by);
  const about = open.about ? ` · ${nameOf(table, open.about)}` : "";
  return html`<section class=${`ring panel${paused ? " frozen" : ""}${big ? " big" : ""}`} aria-label="Open window">
    <svg class="dial" viewBox="0 0 64 64" role="img" aria-label=${`${seconds} seconds left${paused ? ", frozen by the pause" : ""}`}>
      <circle class="track" cx="32" cy="32" r=${radius} />
      <circle
        class="left"
        cx="32"
        cy="32"
        r=${radius}
        stroke-dasharray=${around.toFixed(2)}
        stroke-dashoffset=${(around * (1 - share)).toFixed(2)}
        transform="rotate(-90 32 32)"
      />
      ${paused
        ? html`<path class="paused-mark" d="M24 22h6v20h-6zM34 22h6v20h-6z" />`
        : html`<text x="32" y="37" class="seconds">${seconds}</text>`}
    </svg>
    <div class="about">
      <p class="kind"><strong>${KINDS[open.kind] || open.kind}</strong>${about}</p>
      <p class="time">${paused ? `Paused: frozen at ${seconds}s` : `${seconds}s left`}</p>
      <p class="waiting">${waiting.length ? `waiting on: ${waiting.map((id) => nameOf(table, id)).join(", ")}` : "everyone has answered"}</p>
    </div>
  </section>`;
}
