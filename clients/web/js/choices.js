// What the combatants this page plays may do now, built only from the server's
// `choices` (docs/protocol.md, "Choices"): no rule is known here.
//
// * An option with holes is filled by picking, for each hole in turn, one of its
//   options: on the map (a token or a cell), on the rail, or in the list shown here;
//   a number hole takes a number within its bounds.
// * In a planning window (a seat with `compose`), each filled `part` is gathered into
//   the declaration (at most `compose.most`), which is sent as `compose.command` with
//   the parts at `compose.into`; sending again replaces it, and the server's options
//   to withdraw or pass are offered beside it, until the window closes.
// * Any other seat is a prompt: one-tap answers, keys 1-9 for the first nine and Esc
//   for passing, a short beep and a flashing title when it opens.

import { useEffect, useRef, useState } from "../vendor/htm-preact-standalone.js";
import { getAt, setAt } from "./patch.js";
import { nameOf } from "./store.js";
import { html } from "./ui.js";

let audio = null;

/** Browsers let a page make sound only after a person touched it: the audio is made
 * ready at the first touch or key, so the first prompt's beep is heard. */
function readyAudio() {
  try {
    audio = audio || new AudioContext();
    if (audio.state === "suspended") audio.resume();
  } catch {
    audio = null;
  }
}
if (typeof window !== "undefined") {
  window.addEventListener("pointerdown", readyAudio, { once: true });
  window.addEventListener("keydown", readyAudio, { once: true });
}

/** A short beep, made on the spot (no sound file); silent where the browser will not. */
export function beep() {
  try {
    readyAudio();
    if (!audio) return;
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.18);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.2);
  } catch {
    // no audio here: the title and the prompt still tell
  }
}

let flashing = null;

/** The page's title alternates with `words` until the page is looked at (or 15 s). */
export function flashTitle(words) {
  if (flashing) clearInterval(flashing.timer);
  const title = flashing ? flashing.title : document.title;
  let count = 0;
  const stop = () => {
    if (!flashing) return;
    clearInterval(flashing.timer);
    document.title = flashing.title;
    flashing = null;
    window.removeEventListener("focus", stop);
    window.removeEventListener("pointerdown", stop);
    window.removeEventListener("keydown", stop);
  };
  flashing = {
    title,
    timer: setInterval(() => {
      count += 1;
      document.title = count % 2 ? words : title;
      if (count > 30) stop();
    }, 500),
  };
  document.title = words;
  window.addEventListener("pointerdown", stop);
  window.addEventListener("keydown", stop);
  if (document.hasFocus()) setTimeout(stop, 3000);
  else window.addEventListener("focus", stop);
}

function typing(event) {
  const tag = event.target && event.target.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}

/** The parts gathered into a compose command, at `compose.into`. */
export function composed(compose, parts) {
  const already = getAt(compose.command, compose.into) || [];
  return setAt(compose.command, compose.into, already.concat(parts));
}

function NumberHole({ hole, onPick, onCancel }) {
  const [value, setValue] = useState(hole.least !== null && hole.least !== undefined ? hole.least : 0);
  const submit = (event) => {
    event.preventDefault();
    onPick({ value: Number(value), label: `${hole.label} ${value}` });
  };
  return html`<form class="number-hole" onSubmit=${submit}>
    <label>${hole.label}
      <input type="number" step="1" value=${value} min=${hole.least ?? undefined} max=${hole.most ?? undefined}
        onInput=${(e) => setValue(e.target.value)} required />
    </label>
    <button type="submit">OK</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

/** The open hole: its options as buttons (the map and the rail take them too). */
function HolePicker({ filling, onPick, onCancel }) {
  const hole = filling.option.holes[filling.index];
  if (hole.kind === "number") return html`<${NumberHole} hole=${hole} onPick=${onPick} onCancel=${onCancel} />`;
  return html`<div class="hole" role="group" aria-label=${`Choose ${hole.label}`}>
    <p class="hole-title">${filling.option.label}: choose ${hole.label}${filling.index > 0 ? ` (${filling.index + 1} of ${filling.option.holes.length})` : ""}</p>
    <div class="hole-options">
      ${hole.options.map((o, i) => html`<button key=${i} class="hole-option" onClick=${() => onPick(o)}>${o.label}</button>`)}
    </div>
    <button class="cancel" onClick=${onCancel}>Cancel (Esc)</button>
  </div>`;
}

const lastStatus = new Map(); // "combatant:window or turn" -> {kind, text}

function SeatPanel({ store, seat, table, paused, first }) {
  const [draft, setDraft] = useState([]); // [{label, part}]
  const [filling, setFilling] = useState(null); // {option, value, index, labels}
  // What came of the last command, kept per combatant: a window between two actions of
  // a turn takes the panel down and brings it back.
  const moment = `${seat.combatant}:${seat.window ?? `turn-${table.round}-${table.turn}`}`;
  const [status, setOwnStatus] = useState(() => lastStatus.get(moment) || null);
  const setStatus = (value) => {
    lastStatus.clear(); // only the moment on screen is worth keeping
    lastStatus.set(moment, value);
    setOwnStatus(value);
  };
  const [declared, setDeclared] = useState(null); // labels of the declaration sent
  const fillingRef = useRef(null);
  fillingRef.current = filling;
  const name = nameOf(table, seat.combatant);
  const compose = seat.compose;

  async function send(command, what) {
    setStatus({ kind: "sending", text: `Sending ${what}…` });
    const answer = await store.send(command);
    if (answer.type === "ack") {
      setStatus({ kind: "done", text: `${what}: done` });
      return true;
    }
    setStatus({ kind: "refused", text: `${what}: refused (${answer.code}) ${answer.message}` });
    return false;
  }

  function stopPicking() {
    setFilling(null);
    fillingRef.current = null; // a second click before the next render fills nothing
    const picking = store.state.ui.picking;
    if (picking && picking.owner === seat.combatant) store.setUi({ picking: null });
  }

  function finish(option, value, labels) {
    stopPicking();
    const label = labels.length ? labels[labels.length - 1] : option.label;
    if (option.part) {
      // Functional: the map may call this from the render the pick began in.
      if (compose) setDraft((now) => (now.length < compose.most ? now.concat([{ label, part: value }]) : now));
      return;
    }
    send(value, label).then((done) => {
      if (done && /^withdraw/.test(option.key)) setDeclared(null);
      if (done && option.key === "pass" && compose) setDeclared(["nothing"]);
    });
  }

  /** Fill the open hole with `o` (a hole option, or a number), then open the next hole
   * or, with none left, finish the option. */
  function fill(o) {
    const now = fillingRef.current;
    if (!now) return;
    openHole({
      option: now.option,
      value: setAt(now.value, now.option.holes[now.index].path, o.value),
      index: now.index + 1,
      labels: now.labels.concat([o.label]),
    });
  }

  function openHole(next) {
    if (next.index >= next.option.holes.length) {
      finish(next.option, next.value, next.labels);
      return;
    }
    setFilling(next);
    fillingRef.current = next;
    const hole = next.option.holes[next.index];
    // A pick hole is offered on the map and the rail too; a number hole only here.
    store.setUi({
      picking:
        hole.kind === "number" ? null : { owner: seat.combatant, label: hole.label, options: hole.options, choose: fill },
    });
  }

  function start(option) {
    if (paused) return;
    setStatus(null);
    openHole({ option, value: option.part || option.command, index: 0, labels: [] });
  }

  async function declare() {
    const command = composed(compose, draft.map((d) => d.part));
    const labels = draft.map((d) => d.label);
    if (await send(command, compose.label)) {
      setDeclared(labels.length ? labels : ["nothing"]);
      setDraft([]);
    }
  }

  // Let go of the map when this seat's choices go away.
  useEffect(() => () => {
    const picking = store.state.ui.picking;
    if (picking && picking.owner === seat.combatant) store.setUi({ picking: null });
  }, []);

  // Keys: 1-9 answer a prompt, Esc cancels a pick or passes.
  const prompt = !compose;
  useEffect(() => {
    if (!first) return undefined;
    const onKey = (event) => {
      // A key another part of the page took (a form's Esc) is not the prompt's.
      if (event.defaultPrevented || typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "Escape") {
        if (fillingRef.current) {
          stopPicking();
          event.preventDefault();
          return;
        }
        const pass = seat.options.find((o) => o.key === "pass");
        if (prompt && pass && !paused) {
          event.preventDefault();
          start(pass);
        }
        return;
      }
      if (prompt && !fillingRef.current && /^[1-9]$/.test(event.key)) {
        const option = seat.options[Number(event.key) - 1];
        if (option) {
          event.preventDefault();
          start(option);
        }
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [first, seat, paused, prompt]);

  const others = compose ? seat.options.filter((o) => !o.part) : [];
  const parts = compose ? seat.options.filter((o) => o.part) : seat.options;
  const title = compose
    ? `${name}: ${compose.label}`
    : seat.window !== null && seat.window !== undefined
      ? `${name}: answer now`
      : `${name}: your turn`;
  const full = compose && draft.length >= compose.most;
  return html`<section class=${`seat panel${prompt ? " prompt" : " planning"}`} data-combatant=${seat.combatant} data-window=${seat.window ?? ""} aria-label=${title}>
    <h2>${title}</h2>
    ${paused ? html`<p class="muted">Paused: choices wait until the fight resumes.</p>` : null}
    ${declared && compose ? html`<p class="declared-now">✓ Declared: ${declared.join("; ")}. You may change it until the window closes.</p>` : null}
    ${filling ? html`<${HolePicker} filling=${filling} onPick=${fill} onCancel=${stopPicking} />` : null}
    <div class="options" role="group" aria-label="Options">
      ${parts.map(
        (option, i) => html`<button
          key=${option.key}
          class="option"
          data-key=${option.key}
          disabled=${paused || full || (filling && filling.option === option)}
          aria-keyshortcuts=${prompt && i < 9 ? String(i + 1) : undefined}
          onClick=${() => start(option)}
        >${prompt && i < 9 ? html`<kbd aria-hidden="true">${i + 1}</kbd> ` : null}${option.label}</button>`,
      )}
    </div>
    ${compose
      ? html`<div class="compose" aria-label="Your declaration">
          <h3>Declaration ${draft.length ? `(${draft.length} of at most ${compose.most})` : ""}</h3>
          ${draft.length
            ? html`<ol class="parts">
                ${draft.map(
                  (d, i) => html`<li key=${i}><span>${d.label}</span>
                    <button class="remove" aria-label=${`remove ${d.label}`} onClick=${() => setDraft(draft.filter((_, j) => j !== i))}>✕</button></li>`,
                )}
              </ol>`
            : html`<p class="muted">Pick actions above to gather them here.</p>`}
          <div class="compose-actions">
            <button class="send primary" disabled=${paused || !draft.length} onClick=${declare}>Send: ${compose.label}</button>
            ${others.map(
              (option) => html`<button key=${option.key} class="option" data-key=${option.key} disabled=${paused} onClick=${() => start(option)}>${option.label}</button>`,
            )}
          </div>
        </div>`
      : null}
    ${status ? html`<p class=${`status ${status.kind}`} role=${status.kind === "refused" ? "alert" : "status"}>${status.text}</p>` : null}
  </section>`;
}

/** The key of the moment a seat is asked: a beep and a title flash once per key. */
function momentOf(seat, table) {
  if (seat.compose) return null;
  return `${seat.combatant}:${seat.window ?? `turn-${table.round}-${table.turn}`}`;
}

const ALL_OPEN = 3; // more seats than this (a GM's big fight): one at a time, by a tab

export function Choices({ store, seats, table }) {
  const alerted = useRef(new Set());
  const [chosen, setChosen] = useState(null);
  const [announced, setAnnounced] = useState("");
  const paused = Boolean(table.paused_by);
  useEffect(() => {
    const fresh = seats.filter((s) => {
      const m = momentOf(s, table);
      return m && !alerted.current.has(m);
    });
    if (!fresh.length) return;
    for (const s of fresh) alerted.current.add(momentOf(s, table));
    // Said at once by a screen reader, as the beep and the title tell everyone else.
    setAnnounced(
      fresh
        .map((s) => `${nameOf(table, s.combatant)}: ${s.window !== null && s.window !== undefined ? "answer now" : "your turn"}`)
        .join(". "),
    );
    beep();
    flashTitle("⚠ Your move!");
    document.body.dataset.alerts = String(Number(document.body.dataset.alerts || 0) + 1);
  }, [seats]);
  const say = html`<p class="sr-only" aria-live="assertive">${announced}</p>`;
  if (!seats.length) return html`<div class="choices idle">${say}</div>`;
  const firstPrompt = seats.findIndex((s) => !s.compose);
  const panel = (seat, first) => html`<${SeatPanel}
    key=${`${seat.combatant}:${seat.window}:${seat.compose ? seat.compose.command.turn : ""}`}
    store=${store}
    seat=${seat}
    table=${table}
    paused=${paused}
    first=${first}
  />`;
  if (seats.length <= ALL_OPEN) {
    return html`<div class="choices">
      ${say} ${seats.map((seat, i) => panel(seat, i === (firstPrompt >= 0 ? firstPrompt : 0)))}
    </div>`;
  }
  // Many seats: a tab for each (a prompt first), the chosen one's panel open.
  const shown =
    seats.find((s) => s.combatant === chosen) || seats[firstPrompt >= 0 ? firstPrompt : 0];
  return html`<div class="choices">
    ${say}
    <div class="seat-tabs" role="group" aria-label="Act for">
      ${seats.map(
        (seat) => html`<button
          key=${seat.combatant}
          class=${`seat-tab${seat.compose ? "" : " asked"}`}
          aria-pressed=${seat === shown ? "true" : "false"}
          onClick=${() => setChosen(seat.combatant)}
        >${seat.compose ? "" : "⚠ "}${nameOf(table, seat.combatant)}${table.declared.includes(seat.combatant) ? " ✓" : ""}</button>`,
      )}
    </div>
    ${panel(shown, true)}
  </div>`;
}
