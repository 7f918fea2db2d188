// The initiative rail: the round, the turn order with one entry per turn (a combatant
// with two turns is listed twice), whose turn it is now, and who has declared. While a
// hole that takes a combatant is open, an entry of one it may take is a button that
// fills it, as a token on the map is; otherwise a button that shows its card.

import { useRef } from "../vendor/htm-preact-standalone.js";
import { nameOf } from "./store.js";
import { healthIcon, html, sideMark, sidesOf } from "./ui.js";

/** The slot being played: `table.turn` names a combatant, and one with several turns
 * is on the first of its slots after the last one played this round. */
function currentSlot(order, turn, last) {
  if (!turn) return -1;
  for (let i = Math.max(0, last); i < order.length; i += 1) if (order[i].combatant === turn) return i;
  return order.findIndex((slot) => slot.combatant === turn);
}

/** `onSelect(id)`, when given, makes each entry a button that selects its combatant
 * (the side panel shows its card), as a click on its token does. */
export function Rail({ table, ui, onSelect = null }) {
  const memory = useRef({ round: -1, slot: -1 });
  if (memory.current.round !== table.round) memory.current = { round: table.round, slot: -1 };
  const slot = currentSlot(table.order, table.turn, memory.current.slot);
  if (slot >= 0) memory.current.slot = slot;
  const sides = sidesOf(table);
  const declared = new Set(table.declared);
  const picks = new Map();
  if (ui.picking) for (const option of ui.picking.options) if (typeof option.value === "string") picks.set(option.value, option);
  const phase =
    table.phase === "setup" ? "not started" : table.phase === "ended" ? "ended" : table.mode === "live" ? "Live Combat" : "turn based";
  return html`<section class="rail panel" aria-label="Turn order">
    <h2>Round ${table.round || "–"} <span class="phase">${phase}</span></h2>
    ${table.result ? html`<p class="result">${table.result}</p>` : null}
    <ol class="order">
      ${table.order.map((entry, index) => {
        const card = table.combatants[entry.combatant];
        const mark = sideMark(sides, card ? card.side : "");
        const now = index === slot;
        const pick = picks.get(entry.combatant);
        const word = card ? card.health_word : "";
        const body = html`
          <span class="mark" style=${{ color: mark.colour }} aria-hidden="true">${mark.mark}</span>
          <span class="who">${nameOf(table, entry.combatant)}</span>
          ${entry.initiative !== undefined && entry.initiative !== null
            ? html`<span class="init" title="initiative">${entry.initiative}</span>`
            : null}
          <span class=${`health ${word}`}>${healthIcon(word)}<span class="sr-only"> ${word}</span></span>
          ${declared.has(entry.combatant) ? html`<span class="declared" title="declared">✓<span class="sr-only"> declared</span></span>` : null}
          ${now ? html`<span class="now">▶ now</span>` : null}`;
        return html`<li key=${`${index}:${entry.combatant}`} class=${`${now ? "on-turn" : ""} ${card && !card.active ? "out" : ""}`}>
          ${pick
            ? html`<button class="pick" onClick=${() => ui.picking && ui.picking.choose(pick)} aria-label=${`choose ${pick.label}`}>${body}</button>`
            : onSelect && card
              ? html`<button class="entry" aria-pressed=${ui.selected === entry.combatant ? "true" : "false"} onClick=${() => onSelect(entry.combatant)}>${body}</button>`
              : html`<div class="entry">${body}</div>`}
        </li>`;
      })}
    </ol>
    ${table.order.length === 0 ? html`<p class="muted">The order is rolled when the fight starts.</p>` : null}
  </section>`;
}
