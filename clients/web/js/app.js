// The table's layout, by the role the server welcomed the page as.
//
// Every face: the map, the turn rail, the open window's ring, the log, a pause banner
// and the connection badge. A player adds its choices (declarations, prompts), its
// sheets whole and a pause button (key P); a spectator only watches (`overlay`: a
// transparent page in large type, for streaming software); the GM sees everything the
// table gives it, the prompts of the combatants it plays, and the console panel.
//
// For the GM console (js/console.js) and other faces, this module exports:
//   App({store, overlay})   the whole page for the store's role
//   mountApp(root, store, {overlay})   render App into `root` and start the store
//   Header, PauseButton, PauseBanner, ConnectionBadge, SheetPanel, Layout pieces:
//     BattleMap (map.js), Rail (rail.js), Ring (ring.js), Log (log.js),
//     Choices (choices.js)
//   useStore(store)         the store's state as a hook (ui.js)
// The GM's face imports `Console` from js/console.js when that file is there and draws
// `<Console store=${store} />` in its own panel; its choices seat "gm" is the console's,
// every other seat of the GM's choices is drawn here as a player's would be.
// From js/store.js: createStore, nameOf, LOG_KEPT.
// Keys: the page listens on `window` for 1-9 and Esc (the first prompt) and P (pause),
// skipping a key typed in a field or one whose event is `defaultPrevented`: a panel that
// takes a key for itself (a form's Esc) calls `preventDefault()`.

import { render, useEffect, useMemo, useRef, useState } from "../vendor/htm-preact-standalone.js";
import { Choices } from "./choices.js";
import { Log } from "./log.js";
import { BattleMap } from "./map.js";
import { Rail } from "./rail.js";
import { Ring } from "./ring.js";
import { nameOf } from "./store.js";
import { healthIcon, html, Icon, useStore } from "./ui.js";

export { BattleMap, Choices, Log, Rail, Ring, useStore };

const STATUS = {
  connecting: ["…", "Connecting"],
  online: ["●", "Connected"],
  reconnecting: ["↻", "Reconnecting"],
  closed: ["✕", "Disconnected"],
};

export function ConnectionBadge({ status, reason }) {
  const [icon, word] = STATUS[status] || ["?", status];
  return html`<span class=${`badge connection ${status}`} role="status" title=${reason || word}>
    <span aria-hidden="true">${icon}</span> ${word}${reason && status === "closed" ? html`<span class="reason">: ${reason}</span>` : null}
  </span>`;
}

/** The command that pauses or resumes now for this page, from what the server allows
 * it: the GM's console options, or a player's own combatants (docs/protocol.md, "What
 * the server enforces": a player may pause and resume naming one it controls). */
export function pauseCommands(state) {
  const { table, welcome, choices } = state;
  if (!table || !welcome || table.phase !== "combat") return null;
  const paused = table.paused_by;
  if (welcome.role === "gm") {
    const gmSeat = choices.find((seat) => seat.combatant === "gm");
    const byKey = (key) => gmSeat && gmSeat.options.find((o) => o.key === key && o.command && !o.holes.length);
    const pause = byKey("pause");
    const resume = byKey("resume");
    if (!paused) return pause ? { label: "Pause", command: pause.command } : { label: "Pause", command: { type: "Pause", by: "gm" } };
    const refuse = byKey("refuse_pause");
    return {
      label: "Resume",
      command: resume ? resume.command : { type: "Resume", by: "gm" },
      refuse: refuse ? refuse.command : null,
    };
  }
  if (welcome.role !== "player" || !welcome.controls.length) return null;
  if (!paused) return { label: "Pause", command: { type: "Pause", by: welcome.controls[0] } };
  if (welcome.controls.includes(paused)) return { label: "Resume", command: { type: "Resume", by: paused } };
  return { label: "Resume", command: null };
}

export function PauseButton({ store, state }) {
  const [note, setNote] = useState("");
  const commands = pauseCommands(state);
  const act = async () => {
    if (!commands || !commands.command) return;
    const answer = await store.send(commands.command);
    setNote(answer.type === "refused" ? `${commands.label} refused: ${answer.message}` : "");
  };
  useEffect(() => {
    const onKey = (event) => {
      const tag = event.target && event.target.tagName;
      if (event.defaultPrevented || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      if ((event.key === "p" || event.key === "P") && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        act();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  if (!commands) return null;
  const paused = Boolean(state.table.paused_by);
  return html`<span class="pause-control">
    <button class=${`pause ${paused ? "resume" : ""}`} disabled=${!commands.command} onClick=${act} aria-keyshortcuts="p">
      <${Icon} name=${paused ? "play" : "pause"} /> ${commands.label} <kbd aria-hidden="true">P</kbd>
    </button>
    ${note ? html`<span class="note" role="alert">${note}</span>` : null}
  </span>`;
}

export function PauseBanner({ store, state }) {
  const { table } = state;
  if (!table || !table.paused_by) return null;
  const commands = pauseCommands(state);
  const refuse = commands && commands.refuse && table.paused_by !== "gm";
  return html`<div class="pause-banner" role="status">
    <${Icon} name="pause" />
    <span class="pause-words">Paused by ${nameOf(table, table.paused_by)}: every timer is frozen.</span>
    ${refuse ? html`<button onClick=${() => store.send(commands.refuse)}>Refuse the pause</button>` : null}
  </div>`;
}

function Stat({ label, value }) {
  return html`<div class="stat"><dt>${label}</dt><dd>${value}</dd></div>`;
}

/** A combatant's card: numbers where the table gives them, its sheet rows where the
 * role may read the sheet. */
export function SheetPanel({ table, id, heading }) {
  const card = table.combatants[id];
  if (!card) return null;
  const health = card.health ? `${card.health.now} / ${card.health.max} (${card.health_word})` : card.health_word;
  const list = (items) => (items.length ? items.join(", ") : "—");
  return html`<section class="sheet panel" aria-label=${`${card.name}'s card`} data-combatant=${id}>
    <h2>${heading || nameOf(table, id)} <span class="side">(${card.side})</span></h2>
    <dl class="stats">
      <${Stat} label="Health" value=${html`${healthIcon(card.health_word)} ${health}`} />
      ${card.mana ? html`<${Stat} label="Mana" value=${`${card.mana.now} / ${card.mana.max}`} />` : null}
      <${Stat} label="Cell" value=${`(${card.position[0]}, ${card.position[1]})${card.ascension ? `, Ascension ${card.ascension}` : ""}`} />
      <${Stat} label="Conditions" value=${list(card.conditions.map((c) => (c.rounds_left === null ? c.name : `${c.name} (${c.rounds_left})`)))} />
      <${Stat} label="In hand" value=${list(card.hands)} />
      ${card.dropped.length ? html`<${Stat} label="Dropped" value=${list(card.dropped)} />` : null}
      ${card.broken.length ? html`<${Stat} label="Broken" value=${list(card.broken)} />` : null}
      ${card.notes.length ? html`<${Stat} label="Notes" value=${list(card.notes)} />` : null}
    </dl>
    ${card.details.length
      ? html`<details class="details" open>
          <summary>Sheet</summary>
          <dl>${card.details.map(([label, value], i) => html`<${Stat} key=${i} label=${label} value=${value} />`)}</dl>
        </details>`
      : null}
  </section>`;
}

function useConsole(role) {
  const [found, setFound] = useState({ Console: null, missing: false });
  useEffect(() => {
    if (role !== "gm") return;
    import("./console.js")
      .then((module) => setFound({ Console: module.Console, missing: !module.Console }))
      .catch(() => setFound({ Console: null, missing: true }));
  }, [role]);
  return found;
}

function Waiting({ state }) {
  const closed = state.status === "closed";
  return html`<main class="waiting-page">
    <h1>Verse combat</h1>
    <p>${closed ? "Could not join the fight." : "Joining the fight…"}</p>
    ${state.statusReason ? html`<p class="error" role="alert">${state.statusReason}</p>` : null}
    ${state.error ? html`<p class="error" role="alert">${state.error}</p>` : null}
    <${ConnectionBadge} status=${state.status} reason=${state.statusReason} />
  </main>`;
}

export function Header({ store, state }) {
  const { welcome, table } = state;
  const role = welcome.role === "player" ? `Player: ${welcome.controls.map((id) => nameOf(table, id)).join(", ")}` : welcome.role === "gm" ? "GM" : "Spectator";
  return html`<header class="top">
    <h1><span class="room">${welcome.room}</span> <span class="role">${role}</span></h1>
    <div class="top-controls">
      <${PauseButton} store=${store} state=${state} />
      <${ConnectionBadge} status=${state.status} reason=${state.statusReason} />
    </div>
  </header>`;
}

export function App({ store, overlay = false }) {
  const state = useStore(store);
  const { welcome, table } = state;
  const role = welcome ? welcome.role : "";
  const { Console, missing } = useConsole(role);
  const select = useMemo(
    () => (id) => store.setUi({ selected: store.state.ui.selected === id ? null : id }),
    [store],
  );
  const held = useRef(table);
  held.current = table;
  const who = useMemo(() => (id) => nameOf(held.current, id), []);
  useEffect(() => {
    document.body.classList.toggle("overlay", overlay);
    if (welcome && table) document.title = `${welcome.role === "gm" ? "GM" : welcome.role === "player" ? "Player" : "Watching"}: ${welcome.room}`;
  }, [overlay, welcome && welcome.room, Boolean(table)]);
  if (!welcome || !table) return html`<${Waiting} state=${state} />`;

  if (overlay) {
    return html`<main class="overlay-page">
      <${PauseBanner} store=${store} state=${state} />
      <div class="overlay-grid">
        <${BattleMap} store=${store} table=${table} ui=${state.ui} controls=${[]} />
        <div class="overlay-side">
          <${Ring} countdown=${state.window} table=${table} big=${true} />
          <${Rail} table=${table} ui=${state.ui} />
          <${Log} log=${state.log} who=${who} compact=${true} />
        </div>
      </div>
    </main>`;
  }

  const controls = welcome.role === "player" ? welcome.controls : [];
  const seats = welcome.role === "spectator" ? [] : state.choices.filter((seat) => seat.combatant !== "gm");
  const selected = state.ui.selected;
  const sheets = controls.filter((id) => table.combatants[id]);
  const extra = selected && !sheets.includes(selected) ? selected : null;
  return html`<div class=${`page role-${welcome.role}`}>
    <${Header} store=${store} state=${state} />
    <${PauseBanner} store=${store} state=${state} />
    ${state.error ? html`<p class="server-error" role="alert">${state.error}</p>` : null}
    <main class="table-layout">
      <div class="area-map"><${BattleMap} store=${store} table=${table} ui=${state.ui} controls=${controls} /></div>
      <div class="area-side">
        <${Ring} countdown=${state.window} table=${table} />
        <${Choices} store=${store} seats=${seats} table=${table} />
        ${welcome.role === "gm"
          ? Console
            ? html`<section class="console panel" aria-label="GM console"><${Console} store=${store} /></section>`
            : missing
              ? html`<section class="console panel muted">The GM console is not available on this server.</section>`
              : null
          : null}
        <${Rail} table=${table} ui=${state.ui} onSelect=${select} />
      </div>
      <div class=${`area-info${sheets.length || extra ? "" : " log-only"}`}>
        ${sheets.length || extra
          ? html`<div class="sheets">
              ${sheets.map((id) => html`<${SheetPanel} key=${id} table=${table} id=${id} />`)}
              ${extra ? html`<${SheetPanel} key=${extra} table=${table} id=${extra} />` : null}
            </div>`
          : null}
        <${Log} log=${state.log} who=${who} />
      </div>
    </main>
  </div>`;
}

export function mountApp(root, store, { overlay = false } = {}) {
  render(html`<${App} store=${store} overlay=${overlay} />`, root);
  store.start();
}
