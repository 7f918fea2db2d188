// The log as a timeline the GM rewinds from (docs/protocol.md, `peek` and `Rewind`).
//
// The GM picks an event; the page asks the server for the fight as it was just after
// it (`peek`, which changes nothing) and shows it: its map and each combatant's
// numbers then, beside what they are now. "Rewind to here" then sends `Rewind` with
// the `to_version` the answer gives (`view.version`), and the fight plays on from
// there; "Close" leaves everything as it is.
//
// A rewind can go only to where a command's events end. Every table and update the
// page receives ends at such a point (an update is one command's events), so those
// events are marked ◆; the history a page was sent on joining carries no such mark,
// and the server says where a rewind can go if one of them is not such a point.

import { useLayoutEffect, useRef, useState } from "../vendor/htm-preact-standalone.js";
import { BattleMap } from "./map.js";
import { nameOf } from "./store.js";
import { html } from "./ui.js";

const SHOWN = 120; // the latest events listed; the store keeps more

/** Seqs known to end a command's events, remembered per store for the page's life. */
const ENDS = new WeakMap();

function endsOf(store) {
  let ends = ENDS.get(store);
  if (!ends) {
    ends = new Set();
    ENDS.set(store, ends);
    const mark = (state) => {
      if (state.seq !== null && state.seq !== undefined) ends.add(state.seq);
    };
    mark(store.state);
    store.subscribe(mark);
  }
  return ends;
}

/** A map that only shows: clicks select nothing on the live page. */
const STILL = { state: { ui: { picking: null, selected: null } }, setUi() {} };
const NO_UI = { picking: null, selected: null };

function numbers(pair) {
  return pair ? `${pair.now} / ${pair.max}` : "—";
}

function conditionsOf(card) {
  return card.conditions.length ? card.conditions.map((c) => c.name).join(", ") : "—";
}

/** One combatant then and now: a cell that changed says what it is now. */
function Row({ then, now, table }) {
  const cells = [
    ["Health", numbers(then.health) + (then.health ? "" : ` (${then.health_word})`), now ? numbers(now.health) + (now.health ? "" : ` (${now.health_word})`) : "gone"],
    ["Mana", numbers(then.mana), now ? numbers(now.mana) : "gone"],
    ["Cell", `(${then.position.join(", ")})`, now ? `(${now.position.join(", ")})` : "gone"],
    ["Conditions", conditionsOf(then), now ? conditionsOf(now) : "gone"],
  ];
  return html`<tr data-combatant=${then.id}>
    <th scope="row">${nameOf(table, then.id)}</th>
    ${cells.map(([label, was, is]) => html`<td key=${label} data-field=${label.toLowerCase()} class=${was !== is ? "changed" : ""}>
      ${was}${was !== is ? html`<span class="now"> (now ${is})</span>` : null}
    </td>`)}
  </tr>`;
}

function Preview({ preview, table, onRewind, onClose, busy }) {
  const heading = useRef(null);
  useLayoutEffect(() => {
    if (heading.current) heading.current.focus();
  }, [preview.seq]);
  const dialog = useRef(null);
  const onKey = (event) => {
    // A modal dialog: the page's own keys (1-9 and Esc answer a prompt, P pauses) wait,
    // and Tab goes round its own buttons.
    event.stopPropagation();
    if (event.key === "Escape") {
      event.preventDefault();
      onClose();
      return;
    }
    if (event.key !== "Tab" || !dialog.current) return;
    const stops = Array.from(dialog.current.querySelectorAll("button:not([disabled]), [tabindex='0']"));
    if (!stops.length) return;
    const [first, last] = [stops[0], stops[stops.length - 1]];
    if (event.shiftKey && (document.activeElement === first || document.activeElement === heading.current)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };
  const view = preview.view;
  return html`<div class="gm-preview-backdrop" onKeyDown=${onKey}>
    <section class="gm-preview panel" ref=${dialog} role="dialog" aria-modal="true" aria-labelledby="gm-preview-title" data-seq=${preview.seq}>
      <h2 id="gm-preview-title" tabindex="-1" ref=${heading}>The fight after event ${preview.seq}</h2>
      ${preview.line ? html`<p class="gm-preview-line">${preview.line.text}</p>` : null}
      ${preview.error
        ? html`<p class="error" role="alert">${preview.error}</p>`
        : !view
          ? html`<p class="muted" role="status">Looking back…</p>`
          : html`<p class="gm-preview-summary">
                ${view.phase === "setup" ? "Before the fight started" : view.phase === "ended" ? "The fight had ended" : `Round ${view.round}`}${view.turn ? `, ${nameOf(view, view.turn)}'s turn` : ""}${view.window ? `, a ${view.window.kind} window open` : ""}${view.paused_by ? `, paused by ${nameOf(view, view.paused_by)}` : ""}.
              </p>
              <div class="gm-preview-body">
                <div class="gm-preview-map"><${BattleMap} store=${STILL} table=${view} ui=${NO_UI} controls=${[]} /></div>
                <div class="gm-then-now-frame"><table class="gm-then-now">
                  <caption>Then, and what changed since</caption>
                  <thead><tr><th scope="col">Combatant</th><th scope="col">Health</th><th scope="col">Mana</th><th scope="col">Cell</th><th scope="col">Conditions</th></tr></thead>
                  <tbody>
                    ${Object.values(view.combatants).map((card) => html`<${Row} key=${card.id} then=${card} now=${table.combatants[card.id]} table=${view} />`)}
                  </tbody>
                </table></div>
              </div>`}
      <div class="gm-preview-actions">
        <button class="primary" disabled=${!view || busy} onClick=${onRewind}>Rewind to here</button>
        <button onClick=${onClose}>Close (Esc)</button>
      </div>
    </section>
  </div>`;
}

export function Timeline({ store, state }) {
  const ends = endsOf(store);
  const [preview, setPreview] = useState(null); // {seq, line, view, error}
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState(null);
  const asked = useRef(0);
  const opener = useRef(null);
  const { table } = state;
  const lines = state.log.slice(-SHOWN).reverse();
  const startShown = state.log.length > 0 && state.log[0].seq === 1;

  async function look(seq, line, button) {
    opener.current = button;
    asked.current = seq;
    setSaid(null);
    setPreview({ seq, line, view: null, error: "" });
    const answer = await store.request({ type: "peek", seq });
    if (asked.current !== seq) return;
    if (answer.type === "peeked") setPreview({ seq, line, view: answer.view, error: "" });
    else setPreview({ seq, line, view: null, error: `No rewind to here: ${answer.message || answer.code}` });
  }

  function close() {
    asked.current = 0;
    setPreview(null);
    if (opener.current) opener.current.focus();
  }

  async function rewind() {
    const { seq, view } = preview;
    setBusy(true);
    const answer = await store.send({ type: "Rewind", to_version: view.version });
    setBusy(false);
    if (answer.type === "ack") {
      setPreview(null);
      setSaid({ kind: "done", text: `Rewound to after event ${seq}: play on from there.` });
    } else {
      setPreview({ ...preview, error: `The rewind was refused (${answer.code}): ${answer.message}` });
    }
  }

  return html`<details class="gm-more gm-timeline">
    <summary>Timeline: look back, rewind</summary>
    <p class="muted">Pick an event to see the fight just after it, then rewind there or not. ◆ marks where a command's events end.</p>
    ${said ? html`<p class=${`gm-status ${said.kind}`} role="status">${said.text}</p>` : null}
    <ol class="gm-events" aria-label="Events, latest first">
      ${lines.map((line) => html`<li key=${line.seq}>
        <button class=${`gm-event${ends.has(line.seq) ? " point" : ""}`} data-seq=${line.seq}
          aria-label=${`Look at the fight after event ${line.seq}: ${line.text}`}
          onClick=${(e) => look(line.seq, line, e.currentTarget)}>
          <span class="seq">${ends.has(line.seq) ? "◆ " : ""}${line.seq}</span> <span class="text">${line.text}</span>
        </button>
      </li>`)}
      ${startShown
        ? html`<li><button class="gm-event point" data-seq="0" onClick=${(e) => look(0, null, e.currentTarget)}>
            <span class="seq">◆ 0</span> <span class="text">Before the first event</span></button></li>`
        : null}
    </ol>
    ${preview ? html`<${Preview} preview=${preview} table=${table} onRewind=${rewind} onClose=${close} busy=${busy} />` : null}
  </details>`;
}
