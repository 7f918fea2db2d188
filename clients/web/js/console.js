// The GM's console: what the server's `choices` seat "gm" offers (docs/protocol.md,
// "Choices"), as buttons and inline forms, plus the timeline (rewind, js/timeline.js),
// the "see as" links (js/gm_seeas.js) and the room's settings. No rule is known here:
//
// * an option without holes is a button (start, pause, resume, refuse a pause, close
//   the window, skip the turn; removing a condition is one button per condition);
// * an option with holes is a form, one field per hole: a pick hole is a select (its
//   combatant may also be picked by clicking a token on the map), a number hole a
//   number input within the hole's bounds, prefilled with the card's value where the
//   table shows one (health, mana, the cell);
// * adding a combatant from a sheet file (js/gm_add.js) is offered where the seat
//   offers adding one ("reinforce:" options): a room whose rules take no newcomer
//   (World of Tael) would refuse the file;
// * ending the fight ("end", "end_agreed") stands apart and asks to be confirmed;
// * settings: one field per entry of the table's `settings`, typed as its value, sent
//   as `SetSetting`.
//
// Everything is a native button, select or input, so Tab, Enter and Space do it all;
// Esc closes an open form or the end confirmation. What the server answered is said
// in a status line (a polite live region; a refusal is an alert).

import { useEffect, useLayoutEffect, useRef, useState } from "../vendor/htm-preact-standalone.js";
import { AddFromSheet } from "./gm_add.js";
import { useGmStyle } from "./gm_style.js";
import { SeeAs } from "./gm_seeas.js";
import { getAt, setAt } from "./patch.js";
import { nameOf } from "./store.js";
import { Timeline } from "./timeline.js";
import { html, useStore } from "./ui.js";

export const GM_SEAT = "gm";
const ENDS = new Set(["end", "end_agreed"]);

/** The console's options sorted into what the panel draws. */
export function sortOptions(seat) {
  const found = { room: [], overrides: [], adds: [], conditions: [], ends: [] };
  for (const option of seat ? seat.options : []) {
    if (!option.command) continue;
    if (ENDS.has(option.key)) found.ends.push(option);
    else if (option.key.startsWith("reinforce:")) found.adds.push(option);
    else if (option.key.startsWith("remove_condition:") || option.key.startsWith("remove_status:")) found.conditions.push(option);
    else if (option.holes.length) found.overrides.push(option);
    else found.room.push(option);
  }
  return found;
}

/** Card fields a hole's path names otherwise: World of Tael's hit points are the
 * card's `health`. */
const CARD_FIELDS = { hit_points: "health" };

/** A number hole's first value: the card's own number where the table shows it, else
 * the number the server put in the command (a free cell for a newcomer). */
function numberDefault(hole, card, command) {
  const last = hole.path.split("/").pop();
  if (card) {
    const held = card[CARD_FIELDS[last] || last];
    if (held && typeof held === "object" && Number.isInteger(held.now)) return held.now;
    if (last === "x" && card.position) return card.position[0];
    if (last === "y" && card.position) return card.position[1];
  }
  const given = getAt(command, hole.path);
  if (Number.isInteger(given)) return given;
  if (hole.least !== null && hole.least !== undefined) return hole.least;
  return 0;
}

function isCombatantHole(hole, table) {
  return hole.kind !== "number" && hole.options.length > 0 && hole.options.every((o) => typeof o.value === "string" && table.combatants[o.value]);
}

/** The card an option's form is about: its first combatant hole's value. */
function cardOf(option, values, table) {
  const index = option.holes.findIndex((hole) => isCombatantHole(hole, table));
  return index >= 0 ? table.combatants[values[index]] : null;
}

/** The number holes of a cell (`.../x` and `.../y` side by side), as [xIndex, yIndex]. */
export function cellHoles(option) {
  const holes = option.holes;
  for (let i = 0; i + 1 < holes.length; i += 1) {
    const [a, b] = [holes[i], holes[i + 1]];
    if (a.kind === "number" && b.kind === "number" && a.path.endsWith("/x") && b.path === `${a.path.slice(0, -2)}/y`) return [i, i + 1];
  }
  return null;
}

/** Cells to pick a place from on the map: around everyone, three cells beyond. */
function cellsAround(table) {
  const cards = Object.values(table.combatants);
  const xs = cards.map((c) => c.position[0]);
  const ys = cards.map((c) => c.position[1]);
  const cells = [];
  if (!cards.length) return cells;
  for (let y = Math.min(...ys) - 3; y <= Math.max(...ys) + 3; y += 1) {
    for (let x = Math.min(...xs) - 3; x <= Math.max(...xs) + 3; x += 1) cells.push({ value: { x, y }, label: `(${x}, ${y})` });
  }
  return cells;
}

function firstValues(option, table, selected) {
  const values = option.holes.map((hole) => {
    if (hole.kind === "number") return null;
    const chosen = hole.options.find((o) => o.value === selected);
    return (chosen || hole.options[0] || { value: "" }).value;
  });
  const card = cardOf(option, values, table);
  return values.map((value, i) => (option.holes[i].kind === "number" ? numberDefault(option.holes[i], card, option.command) : value));
}

function OverrideForm({ store, option, table, say, onClose }) {
  const [values, setValues] = useState(() => firstValues(option, table, store.state.ui.selected));
  const [busy, setBusy] = useState(false);
  const first = useRef(null);
  // Focus moves in as the form is put on the page, not a frame later: an Esc or a key
  // pressed right after opening is the form's.
  useLayoutEffect(() => {
    if (first.current) first.current.focus();
    return () => {
      const picking = store.state.ui.picking;
      if (picking && picking.owner === GM_SEAT) store.setUi({ picking: null });
    };
  }, []);

  function choose(index, value) {
    setValues((now) => {
      const next = now.slice();
      next[index] = value;
      if (isCombatantHole(option.holes[index], table)) {
        const card = table.combatants[value];
        option.holes.forEach((hole, i) => {
          if (hole.kind === "number") next[i] = numberDefault(hole, card, option.command);
        });
      }
      return next;
    });
  }

  function pickOnMap(index) {
    const hole = option.holes[index];
    store.setUi({
      picking: {
        owner: GM_SEAT,
        label: hole.label,
        options: hole.options,
        choose: (picked) => {
          store.setUi({ picking: null });
          choose(index, picked.value);
        },
      },
    });
  }

  function pickCellOnMap([xi, yi]) {
    store.setUi({
      picking: {
        owner: GM_SEAT,
        label: "the cell",
        options: cellsAround(table),
        choose: (picked) => {
          store.setUi({ picking: null });
          setValues((now) => {
            const next = now.slice();
            next[xi] = picked.value.x;
            next[yi] = picked.value.y;
            return next;
          });
        },
      },
    });
  }

  async function submit(event) {
    event.preventDefault();
    let command = option.command;
    option.holes.forEach((hole, i) => {
      const value = hole.kind === "number" ? Number.parseInt(values[i], 10) : values[i];
      command = setAt(command, hole.path, value);
    });
    const card = cardOf(option, values, table);
    setBusy(true);
    const done = await say(command, card ? `${option.label}: ${nameOf(table, card.id)}` : option.label);
    setBusy(false);
    if (done) onClose();
  }

  const onKey = (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    }
  };
  const picking = store.state.ui.picking;
  const cell = cellHoles(option);
  return html`<form class="gm-form" data-key=${option.key} onSubmit=${submit} onKeyDown=${onKey} aria-label=${option.label}>
    ${option.holes.map((hole, i) => {
      const id = `gm-${option.key}-${i}`;
      if (hole.kind === "number") {
        return html`<label key=${id} for=${id}>${hole.label}
          <input id=${id} ref=${i === 0 ? first : undefined} type="number" inputmode="numeric" step="1" required
            name=${hole.label} value=${values[i]}
            min=${hole.least ?? undefined} max=${hole.most ?? undefined}
            onInput=${(e) => choose(i, e.target.value)} />
        </label>`;
      }
      const onMap = isCombatantHole(hole, table);
      return html`<label key=${id} for=${id}>${hole.label}
        <span class="gm-pick">
          <select id=${id} ref=${i === 0 ? first : undefined} name=${hole.label} value=${String(values[i])}
            onChange=${(e) => choose(i, hole.options[e.target.selectedIndex].value)}>
            ${hole.options.map((o, k) => html`<option key=${k} value=${String(o.value)}>${o.label}</option>`)}
          </select>
          ${onMap
            ? html`<button type="button" class=${`gm-map-pick${picking && picking.owner === GM_SEAT ? " active" : ""}`}
                aria-label=${`Pick the ${hole.label} on the map`} title="Pick on the map" onClick=${() => pickOnMap(i)}>Map</button>`
            : null}
        </span>
      </label>`;
    })}
    ${cell
      ? html`<button type="button" class="gm-map-pick" aria-label="Pick the cell on the map" title="Pick the cell on the map"
          onClick=${() => pickCellOnMap(cell)}>Cell on map</button>`
      : null}
    <span class="gm-form-actions">
      <button type="submit" class="primary" disabled=${busy}>Apply</button>
      <button type="button" onClick=${onClose}>Cancel</button>
    </span>
  </form>`;
}

function EndZone({ options, say }) {
  const [asking, setAsking] = useState(null);
  const keep = useRef(null);
  useLayoutEffect(() => {
    if (asking && keep.current) keep.current.focus();
  }, [asking]);
  if (!options.length) return null;
  const onKey = (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation(); // the page's own Esc (passing a prompt) is not meant
      setAsking(null);
    }
  };
  return html`<section class="gm-end" aria-label="End the fight" onKeyDown=${onKey}>
    ${asking
      ? html`<div class="gm-confirm" role="alertdialog" aria-label="Confirm the end" aria-describedby="gm-end-words">
          <p id="gm-end-words"><strong>${asking.label}?</strong> Everyone's fight stops here; only a rewind brings it back.</p>
          <button class="danger" onClick=${async () => {
            const option = asking;
            setAsking(null);
            await say(option.command, option.label);
          }}>Yes: ${asking.label.toLowerCase()}</button>
          <button ref=${keep} onClick=${() => setAsking(null)}>No, keep playing</button>
        </div>`
      : options.map((option) => html`<button key=${option.key} class="gm-end-ask" data-key=${option.key} onClick=${() => setAsking(option)}>${option.label}…</button>`)}
  </section>`;
}

function SettingsForm({ table, say }) {
  const names = Object.keys(table.settings || {}).sort();
  const [name, setName] = useState(names[0] || "");
  const current = table.settings ? table.settings[name] : undefined;
  const [value, setValue] = useState(current);
  useEffect(() => setValue(current), [name, current]);
  if (!names.length) return null;
  const kind = typeof current;
  async function submit(event) {
    event.preventDefault();
    let sent = value;
    if (kind === "number") sent = Number(value);
    if (kind === "boolean") sent = value === true || value === "true";
    await say({ type: "SetSetting", name, value: sent }, `Set ${name} to ${sent}`);
  }
  return html`<form class="gm-form gm-settings" onSubmit=${submit} aria-label="Settings">
    <label for="gm-setting-name">setting
      <select id="gm-setting-name" value=${name} onChange=${(e) => setName(e.target.value)}>
        ${names.map((n) => html`<option key=${n} value=${n}>${n}</option>`)}
      </select>
    </label>
    <label for="gm-setting-value">value
      ${kind === "boolean"
        ? html`<select id="gm-setting-value" value=${String(value)} onChange=${(e) => setValue(e.target.value === "true")}>
            <option value="true">true</option><option value="false">false</option>
          </select>`
        : html`<input id="gm-setting-value" type=${kind === "number" ? "number" : "text"} step="any" required
            value=${value ?? ""} onInput=${(e) => setValue(e.target.value)} />`}
    </label>
    <span class="gm-form-actions"><button type="submit" class="primary">Set</button></span>
  </form>`;
}

export function Console({ store }) {
  useGmStyle();
  const state = useStore(store);
  const [open, setOpen] = useState(null); // the key of the override whose form is open
  const [status, setStatus] = useState(null); // {kind, text}
  const { table } = state;
  if (!table) return null;
  const seat = state.choices.find((s) => s.combatant === GM_SEAT);
  const { room, overrides, adds, conditions, ends } = sortOptions(seat);
  const openOption = overrides.concat(adds).find((o) => o.key === open);
  const form = (option) =>
    html`<${OverrideForm} key=${option.key} store=${store} option=${option} table=${table} say=${say} onClose=${() => setOpen(null)} />`;
  const toggle = (option) => html`<button key=${option.key} data-key=${option.key} aria-expanded=${open === option.key}
    class=${open === option.key ? "open" : ""} onClick=${() => setOpen(open === option.key ? null : option.key)}>${option.label}</button>`;

  async function say(command, what) {
    setStatus({ kind: "sending", text: `${what}…` });
    const answer = await store.send(command);
    if (answer.type === "ack") {
      setStatus({ kind: "done", text: `${what}: done.` });
      return true;
    }
    setStatus({ kind: "refused", text: `${what}: refused (${answer.code}) ${answer.message}` });
    return false;
  }

  return html`<div class="gm-console">
    <h2>GM console</h2>
    ${status
      ? html`<p class=${`gm-status ${status.kind}`} role=${status.kind === "refused" ? "alert" : "status"}>${status.text}</p>`
      : html`<p class="gm-status" role="status"></p>`}
    <div class="gm-room" role="group" aria-label="Run the fight">
      ${room.length
        ? room.map((option) => html`<button key=${option.key} class=${option.key === "start" ? "primary" : ""} data-key=${option.key}
            onClick=${() => say(option.command, option.label)}>${option.label}</button>`)
        : html`<p class="muted">Nothing to run right now.</p>`}
    </div>
    ${overrides.length || adds.length
      ? html`<section class="gm-overrides" aria-label="Overrides">
          <h3>Overrides</h3>
          <div class="gm-override-list" role="group" aria-label="Choose an override">${overrides.map(toggle)}</div>
          ${openOption && overrides.includes(openOption) ? form(openOption) : null}
          ${adds.length
            ? html`<h3>Add a combatant</h3>
                <div class="gm-override-list gm-adds" role="group" aria-label="Add a combatant">${adds.map(toggle)}</div>`
            : null}
          ${openOption && adds.includes(openOption) ? form(openOption) : null}
        </section>`
      : null}
    ${conditions.length
      ? html`<section class="gm-conditions" aria-label="Conditions in play">
          <h3>Conditions in play</h3>
          <div class="gm-condition-list">
            ${conditions.map((option) => html`<button key=${option.key} data-key=${option.key} onClick=${() => say(option.command, option.label)}>✕ ${option.label}</button>`)}
          </div>
        </section>`
      : null}
    ${adds.length ? html`<${AddFromSheet} store=${store} table=${table} say=${say} />` : null}
    <details class="gm-more">
      <summary>Settings</summary>
      <${SettingsForm} table=${table} say=${say} />
    </details>
    <${Timeline} store=${store} state=${state} />
    <${SeeAs} store=${store} />
    <${EndZone} options=${ends} say=${say} />
  </div>`;
}
