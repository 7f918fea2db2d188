// "Add a combatant from a sheet file": a creature of a kind not yet in play, from a
// sheet file the GM uploads, drops or pastes (docs/web.md, "The GM's console").
//
// The page has no TOML parser and knows no sheet's fields: it sends the file's text in
// `read_sheet` and the server answers with the combatant the sheet makes (`sheet_read`:
// the record `AddCombatant` takes, with an empty id and side), or refuses it with
// every problem, which the form lists. The GM's id, side, cell and facing are set on
// that record and it goes out as `AddCombatant` unchanged (docs/protocol.md,
// `read_sheet`, `sheet_read`, `AddCombatant`); the console's status line says how
// that went. Every control is a native input, select or button (Tab, Enter, Space);
// the cell may also be clicked on the map.

import { useEffect, useState } from "../vendor/htm-preact-standalone.js";
import { dropZone, html } from "./ui.js";

const OWNER = "gm-add"; // the map's picking, while this form has it
const MAX_TEXT = 60 * 1024; // a message is at most 64 KiB (docs/protocol.md)
const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const SQUARE_ARROWS = ["→", "↘", "↓", "↙", "←", "↖", "↑", "↗"];

/** A fresh combatant id from a file's name: `goblin.toml` -> `goblin`, or `goblin-2`
 * (the next number free) when a `goblin` is in play. */
export function freshId(fileName, combatants) {
  const stem = fileName.replace(/\.[^.]*$/, "").toLowerCase().replace(/[^a-z0-9_.-]+/g, "-").replace(/^[^a-z0-9]+/, "").slice(0, 56) || "newcomer";
  if (!combatants[stem]) return stem;
  let n = 2;
  while (combatants[`${stem}-${n}`]) n += 1;
  return `${stem}-${n}`;
}

function taken(table) {
  return new Set(Object.values(table.combatants).map((c) => `${c.position[0]},${c.position[1]}`));
}

/** The cells nobody stands on, around everyone and three cells beyond, row by row. */
export function freeCells(table) {
  const cards = Object.values(table.combatants);
  if (!cards.length) return [{ x: 0, y: 0 }];
  const xs = cards.map((c) => c.position[0]);
  const ys = cards.map((c) => c.position[1]);
  const full = taken(table);
  const cells = [];
  for (let y = Math.min(...ys) - 3; y <= Math.max(...ys) + 3; y += 1) {
    for (let x = Math.min(...xs) - 3; x <= Math.max(...xs) + 3; x += 1) if (!full.has(`${x},${y}`)) cells.push({ x, y });
  }
  return cells;
}

/** The first free cell of the rows the fight stands on, from the top left. */
function firstFree(table) {
  const cards = Object.values(table.combatants);
  const full = taken(table);
  const top = cards.length ? Math.min(...cards.map((c) => c.position[1])) : 0;
  const left = cards.length ? Math.min(...cards.map((c) => c.position[0])) : 0;
  for (let y = top; ; y += 1) for (let x = left; x < left + 64; x += 1) if (!full.has(`${x},${y}`)) return { x, y };
}

function sidesOf(table) {
  return Array.from(new Set(Object.values(table.combatants).map((c) => c.side))).sort();
}

function facingLabel(table, index) {
  const degrees = (360 / table.grid.directions) * index;
  const arrow = table.grid.directions === 8 ? `${SQUARE_ARROWS[index]} ` : "";
  return `${arrow}${index} (${degrees}°)`;
}

export function AddFromSheet({ store, table, say }) {
  const [file, setFile] = useState("");
  const [text, setText] = useState("");
  const [id, setId] = useState("");
  const [side, setSide] = useState(() => sidesOf(table).slice(-1)[0] || "");
  const [cell, setCell] = useState(() => firstFree(table));
  const [facing, setFacing] = useState(0);
  const [problems, setProblems] = useState(null);
  const [busy, setBusy] = useState(false);
  const [over, setOver] = useState(false);
  const picking = store.state.ui.picking;
  useEffect(
    () => () => {
      const now = store.state.ui.picking;
      if (now && now.owner === OWNER) store.setUi({ picking: null });
    },
    [],
  );

  function take(name, content) {
    setFile(name);
    setText(content);
    setId(freshId(name, table.combatants));
    setProblems(null);
  }

  async function readUpload(files) {
    if (!files || !files.length) return;
    const chosen = files[0];
    take(chosen.name, await chosen.text());
  }

  function pickCell() {
    if (picking && picking.owner === OWNER) {
      store.setUi({ picking: null });
      return;
    }
    store.setUi({
      picking: {
        owner: OWNER,
        label: "the newcomer's cell",
        options: freeCells(table).map((value) => ({ value, label: `(${value.x}, ${value.y})` })),
        choose: (picked) => {
          store.setUi({ picking: null });
          setCell({ x: picked.value.x, y: picked.value.y });
        },
      },
    });
  }

  async function submit(event) {
    event.preventDefault();
    const name = file.trim() || "sheet.toml";
    const wrong = [];
    if (!text.trim()) wrong.push("Upload, drop or paste a sheet file first.");
    if (new TextEncoder().encode(text).length > MAX_TEXT) wrong.push(`${name}: more than the ${MAX_TEXT / 1024} KiB a message may carry.`);
    if (!ID.test(id)) wrong.push("id: letters, digits, '_', '.' or '-', starting with a letter or digit (at most 64).");
    if (!ID.test(side)) wrong.push("side: letters, digits, '_', '.' or '-', starting with a letter or digit (at most 64).");
    if (wrong.length) {
      setProblems(wrong);
      return;
    }
    setBusy(true);
    setProblems(null);
    const answer = await store.request({ type: "read_sheet", file: name, text });
    if (answer.type !== "sheet_read") {
      setBusy(false);
      setProblems(answer.message ? answer.message.split("; ") : [answer.code]);
      return;
    }
    const combatant = { ...answer.combatant, id, side, position: { $type: "Cell", x: cell.x, y: cell.y }, facing };
    const label = `Add ${combatant.sheet && combatant.sheet.name ? combatant.sheet.name : name} (${id})`;
    const done = await say({ type: "AddCombatant", combatant }, label);
    setBusy(false);
    if (done) {
      setId(freshId(name, { ...table.combatants, [id]: true }));
      setCell(firstFree({ ...table, combatants: { ...table.combatants, [id]: { position: [cell.x, cell.y] } } }));
    }
  }

  const drop = dropZone(setOver, readUpload);
  const number = (value) => {
    const n = Number.parseInt(value, 10);
    return Number.isInteger(n) ? n : 0;
  };
  const sides = sidesOf(table);
  return html`<details class="gm-more gm-add-sheet">
    <summary>Add a combatant from a sheet file</summary>
    <form class="gm-form gm-add" onSubmit=${submit} aria-label="Add a combatant from a sheet file">
      <div class=${`gm-add-drop${over ? " over" : ""}`} ...${drop}>
        <label for="gm-add-upload">Sheet file (TOML or JSON)
          <input id="gm-add-upload" type="file" accept=".toml,.json,text/plain,application/json" onChange=${(e) => readUpload(e.target.files)} />
        </label>
        <span class="muted">or drop it here, or paste its text below</span>
      </div>
      <label for="gm-add-file">file name
        <input id="gm-add-file" type="text" placeholder="sheet.toml" value=${file} onInput=${(e) => setFile(e.target.value)} />
      </label>
      <label for="gm-add-text" class="gm-add-text">sheet text
        <textarea id="gm-add-text" spellcheck="false" placeholder=${'name = "Goblin"\nlevel = 1\n…'} value=${text}
          onInput=${(e) => setText(e.target.value)}></textarea>
      </label>
      <label for="gm-add-id">id
        <input id="gm-add-id" type="text" required value=${id} onInput=${(e) => setId(e.target.value.trim())} />
      </label>
      <label for="gm-add-side">side
        <input id="gm-add-side" type="text" required list="gm-add-sides" value=${side} onInput=${(e) => setSide(e.target.value.trim())} />
        <datalist id="gm-add-sides">${sides.map((s) => html`<option key=${s} value=${s} />`)}</datalist>
      </label>
      <label for="gm-add-x">x
        <input id="gm-add-x" type="number" inputmode="numeric" step="1" required value=${cell.x} onInput=${(e) => setCell({ ...cell, x: number(e.target.value) })} />
      </label>
      <label for="gm-add-y">y
        <input id="gm-add-y" type="number" inputmode="numeric" step="1" required value=${cell.y} onInput=${(e) => setCell({ ...cell, y: number(e.target.value) })} />
      </label>
      <button type="button" class=${`gm-map-pick${picking && picking.owner === OWNER ? " active" : ""}`}
        aria-label="Pick the newcomer's cell on the map" title="Pick the cell on the map" onClick=${pickCell}>Cell on map</button>
      <label for="gm-add-facing">facing
        <select id="gm-add-facing" value=${String(facing)} onChange=${(e) => setFacing(number(e.target.value))}>
          ${Array.from({ length: table.grid.directions }, (_, i) => html`<option key=${i} value=${String(i)}>${facingLabel(table, i)}</option>`)}
        </select>
      </label>
      <span class="gm-form-actions"><button type="submit" class="primary" disabled=${busy}>${busy ? "Adding…" : "Add"}</button></span>
      ${problems
        ? html`<div class="gm-add-problems" role="alert">
            <p><strong>The sheet was not added:</strong></p>
            <ul>${problems.map((p, i) => html`<li key=${i}>${p}</li>`)}</ul>
          </div>`
        : null}
    </form>
  </details>`;
}
