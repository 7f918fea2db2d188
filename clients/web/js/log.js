// The log: each event's line as the server tells it, its rolls as roll cards with the
// total first (or the faces, or "hidden", as much as the role may see) and the
// breakdown (dice, multiplier, modifiers, what it was rolled against) behind a button:
// a tap, a click, or Enter. The list is a polite live region, so a screen reader reads
// each new line as it comes.

import { useEffect, useRef, useState } from "../vendor/htm-preact-standalone.js";
import { html, memo } from "./ui.js";

const SHOWN = 150; // lines kept on the page; the store keeps more

const OUTCOMES = {
  hit: "✔ hit",
  critical: "★ critical",
  miss: "✘ miss",
  success: "✔ success",
  failure: "✘ failure",
};

function diceWords(dice) {
  return dice
    .map((d) => `${d.negative ? "−" : ""}${d.faces.length}d${d.sides} [${d.faces.join(", ")}]`)
    .join(" ");
}

/** The total when the role sees it; else the faces, marked as such; else "hidden". */
function headline(roll) {
  if (roll.total !== null && roll.total !== undefined) return { text: String(roll.total), kind: "total" };
  if (roll.dice && roll.dice.length) {
    return { text: roll.dice.map((d) => `d${d.sides} ${d.faces.join("+")}`).join(" · "), kind: "faces" };
  }
  return { text: "hidden", kind: "hidden" };
}

function Breakdown({ roll }) {
  const parts = [];
  if (roll.dice) parts.push(diceWords(roll.dice));
  else parts.push("dice hidden");
  if (roll.multiplier && roll.multiplier !== 1) parts.push(`× ${roll.multiplier}`);
  if (roll.modifiers) {
    for (const m of roll.modifiers) parts.push(`${m.value < 0 ? "−" : "+"} ${m.name} ${Math.abs(m.value)}`);
  } else parts.push("(modifiers hidden)");
  if (roll.total !== null && roll.total !== undefined) parts.push(`= ${roll.total}`);
  if (roll.against) {
    parts.push(`vs ${roll.against.name}${roll.against.value !== null && roll.against.value !== undefined ? ` ${roll.against.value}` : ""}`);
  }
  return html`<p class="breakdown">${parts.join(" ")}</p>`;
}

function RollCard({ roll, who }) {
  const [open, setOpen] = useState(false);
  const outcome = OUTCOMES[roll.outcome] || roll.outcome;
  const head = headline(roll);
  return html`<div class=${`roll ${roll.outcome || "plain"}`}>
    <button class="roll-head" aria-expanded=${open ? "true" : "false"} onClick=${() => setOpen(!open)}>
      <span class=${`total ${head.kind}`}>${head.text}</span>
      <span class="label">${roll.label}${roll.by ? ` · ${who(roll.by)}` : ""}</span>
      ${outcome ? html`<span class="outcome">${outcome}</span>` : null}
      <span class="more" aria-hidden="true">${open ? "▾" : "▸"}</span>
    </button>
    ${open ? html`<${Breakdown} roll=${roll} />` : null}
  </div>`;
}

const LogLine = memo(function LogLine({ line, who, cards }) {
  return html`<li class=${`line kind-${line.kind}`} data-seq=${line.seq}>
    <span class="seq" aria-hidden="true">${line.seq}</span>
    <div class="text">${line.text}</div>
    ${cards && line.rolls.length ? html`<div class="rolls">${line.rolls.map((roll, i) => html`<${RollCard} key=${i} roll=${roll} who=${who} />`)}</div>` : null}
  </li>`;
});

/** `who(id)`: a combatant's name for the roll cards (the log keeps ids). `compact`:
 * the last few lines, without roll cards (the overlay). */
export function Log({ log, who = (id) => id, compact = false }) {
  const shown = log.slice(-(compact ? 6 : SHOWN));
  const list = useRef(null);
  // Follow the newest line, unless the reader has scrolled up to read an older one. A
  // scroll the page made itself (its event may come after more lines) changes nothing.
  const follow = useRef({ on: true, set: -1 });
  useEffect(() => {
    const el = list.current;
    if (!el || !follow.current.on) return;
    el.scrollTop = el.scrollHeight;
    follow.current.set = el.scrollTop;
  }, [log]);
  const onScroll = () => {
    const el = list.current;
    if (!el || Math.abs(el.scrollTop - follow.current.set) < 2) return;
    follow.current = { on: el.scrollHeight - el.scrollTop - el.clientHeight < 40, set: -1 };
  };
  return html`<section class="log panel" aria-label="Fight log">
    <h2>Log</h2>
    <ol class="lines" ref=${list} onScroll=${onScroll} aria-live="polite" aria-relevant="additions">
      ${shown.map((line) => html`<${LogLine} key=${line.seq} line=${line} who=${who} cards=${!compact} />`)}
    </ol>
  </section>`;
}
