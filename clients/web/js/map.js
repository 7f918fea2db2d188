// The battle map: an SVG grid, square or hexagon (`table.grid.kind`), and one token per
// combatant with its name, side (colour and shape), facing arrow, Ascension badge, and
// a health bar where the table gives numbers or the health word (by icon and word)
// otherwise.
//
// Smooth with many tokens: the grid is one path drawn again only when its extent
// changes, tokens are keyed by id and each is drawn again only when its own card (or
// whether it is picked, selected, on turn) changes, since patches keep untouched cards
// as the same objects.
//
// While a choice has a hole open (`state.ui.picking`), the combatants and cells it may
// take are marked and take a click (or Enter) to fill it; otherwise a click selects a
// token, whose card the side panel shows.

import { useEffect, useMemo, useRef, useState } from "../vendor/htm-preact-standalone.js";
import { nameOf } from "./store.js";
import { healthIcon, html, memo, sideMark, sidesOf } from "./ui.js";

const SQUARE = 56; // a square cell's side, in map units
const HEX = 40; // a hexagon's radius (centre to corner), in map units
const SQRT3 = Math.sqrt(3);
const TAP_CELL = 64; // px a cell gets when the board is drawn larger to be tapped

/** Where a cell's centre lies on the map, and the outline of a cell, per grid kind. */
export function geometry(kind) {
  if (kind === "hex") {
    return {
      kind,
      unit: HEX * SQRT3,
      // Rows are closer than columns: a smaller token leaves its labels clear of the row below.
      token: HEX * 0.45,
      centre: (x, y) => [HEX * SQRT3 * (x + y / 2), HEX * 1.5 * y],
      outline: (x, y) => {
        const [cx, cy] = [HEX * SQRT3 * (x + y / 2), HEX * 1.5 * y];
        const points = [];
        for (let k = 0; k < 6; k += 1) {
          const a = (Math.PI / 180) * (60 * k + 30);
          points.push(`${(cx + HEX * Math.cos(a)).toFixed(1)},${(cy + HEX * Math.sin(a)).toFixed(1)}`);
        }
        return `M${points.join("L")}Z`;
      },
      // Facing 0 looks along +x; each step turns 60 degrees, as the engine counts.
      facingAngle: (facing) => facing * 60,
    };
  }
  return {
    kind,
    unit: SQUARE,
    token: SQUARE * 0.3,
    centre: (x, y) => [x * SQUARE + SQUARE / 2, y * SQUARE + SQUARE / 2],
    outline: (x, y) => `M${x * SQUARE},${y * SQUARE}h${SQUARE}v${SQUARE}h${-SQUARE}Z`,
    facingAngle: (facing) => facing * 45,
  };
}

/** The cell a hole's option stands for: a `Cell`, or a path of them (its last cell). */
export function cellOf(value) {
  if (Array.isArray(value) && value.length) value = value[value.length - 1];
  if (value && typeof value === "object" && Number.isInteger(value.x) && Number.isInteger(value.y)) {
    return [value.x, value.y];
  }
  return null;
}

const NARROW = "(max-width: 700px)";

/** Whether the screen is a phone's (one column), following it as it changes. */
function useNarrow() {
  const [small, setSmall] = useState(() => matchMedia(NARROW).matches);
  useEffect(() => {
    const query = matchMedia(NARROW);
    const follow = () => setSmall(query.matches);
    query.addEventListener("change", follow);
    return () => query.removeEventListener("change", follow);
  }, []);
  return small;
}

/** The cells to draw: every cell within a margin of one cell around `cells` (and at
 * least a 7 x 5 board on a wide screen, so a small fight is not a close-up). */
function gridCells(kind, cells, small) {
  const g = geometry(kind);
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  let [left, right] = [Infinity, -Infinity];
  for (const [x, y] of cells) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
    const [cx] = g.centre(x, y);
    left = Math.min(left, cx);
    right = Math.max(right, cx);
  }
  if (minX === Infinity) [minX, minY, maxX, maxY, left, right] = [0, 0, 0, 0, 0, 0];
  // On a phone's narrow screen a smaller board keeps the tokens large enough to tap.
  const [wide, high] = small ? [3, 3] : [7, 5];
  const padX = Math.max(1, Math.ceil((wide - (maxX - minX + 1)) / 2));
  const padY = Math.max(1, Math.ceil((high - (maxY - minY + 1)) / 2));
  const found = [];
  for (let y = minY - padY; y <= maxY + padY; y += 1) {
    if (kind === "hex") {
      // A row of hexagons whose centres fall between the outermost ones, plus the margin.
      const first = Math.floor((left - padX * g.unit) / g.unit - y / 2);
      const last = Math.ceil((right + padX * g.unit) / g.unit - y / 2);
      for (let x = first; x <= last; x += 1) found.push([x, y]);
    } else {
      for (let x = minX - padX; x <= maxX + padX; x += 1) found.push([x, y]);
    }
  }
  return found;
}

const Grid = memo(function Grid({ kind, cells }) {
  const g = geometry(kind);
  const d = cells.map(([x, y]) => g.outline(x, y)).join("");
  return html`<path class="grid" d=${d} />`;
});

function viewBox(kind, cells) {
  const g = geometry(kind);
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of cells) {
    const [cx, cy] = g.centre(x, y);
    minX = Math.min(minX, cx);
    minY = Math.min(minY, cy);
    maxX = Math.max(maxX, cx);
    maxY = Math.max(maxY, cy);
  }
  const half = g.unit / 2 + 4;
  return [minX - half, minY - half, maxX - minX + 2 * half, maxY - minY + 2 * half];
}

function shortName(card, twins) {
  const letters = card.name.replace(/[^\p{L}\p{N}]/gu, "");
  if (twins) {
    const digits = card.id.match(/\d+$/);
    return (letters.slice(0, 1) + (digits ? digits[0] : card.id.slice(-1))).slice(0, 3);
  }
  return letters.slice(0, 2) || card.id.slice(0, 2);
}

const Token = memo(function Token({ card, kind, mark, label, twins, onTurn, mine, selected, pick, act }) {
  const g = geometry(kind);
  const [cx, cy] = g.centre(card.position[0], card.position[1]);
  const r = g.token;
  const angle = (g.facingAngle(card.facing) * Math.PI) / 180;
  const [ax, ay] = [Math.cos(angle), Math.sin(angle)];
  const tip = [ax * (r + 9), ay * (r + 9)];
  const base1 = [ax * r - ay * 6, ay * r + ax * 6];
  const base2 = [ax * r + ay * 6, ay * r - ax * 6];
  const down = !card.active || card.health_word === "down";
  const health = card.health;
  const share = health && health.max > 0 ? Math.max(0, Math.min(1, health.now / health.max)) : 0;
  const words = [
    label,
    `side ${card.side}`,
    health ? `health ${health.now} of ${health.max}` : card.health_word,
    card.ascension ? `Ascension ${card.ascension}` : "",
    card.mounted_on ? `riding ${card.mounted_on}` : "",
    ...card.conditions.map((c) => (c.rounds_left === null ? c.name : `${c.name} (${c.rounds_left} rounds)`)),
    ...card.notes,
    onTurn ? "its turn" : "",
    mine ? "yours" : "",
    pick ? `choose: ${pick.label}` : "",
  ].filter(Boolean);
  const classes = ["token", down ? "down" : "", onTurn ? "on-turn" : "", mine ? "mine" : "", selected ? "selected" : "", pick ? "pickable" : ""];
  const onKey = (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      act(card.id, pick);
    }
  };
  return html`<g
    class=${classes.filter(Boolean).join(" ")}
    transform=${`translate(${cx.toFixed(1)},${cy.toFixed(1)})`}
    role="button"
    tabindex="0"
    aria-label=${words.join(", ")}
    data-combatant=${card.id}
    onClick=${() => act(card.id, pick)}
    onKeyDown=${onKey}
  >
    <title>${words.join(", ")}</title>
    ${onTurn ? html`<circle class="turn-ring" r=${r + 6} />` : null}
    ${pick ? html`<circle class="pick-ring" r=${r + 10} />` : null}
    <path class="facing" d=${`M${tip[0].toFixed(1)},${tip[1].toFixed(1)}L${base1[0].toFixed(1)},${base1[1].toFixed(1)}L${base2[0].toFixed(1)},${base2[1].toFixed(1)}Z`} />
    <circle class="body" r=${r} fill=${mark.colour} />
    <text class="initials" y="3">${shortName(card, twins)}</text>
    <text class="side-mark" y=${(r - 3).toFixed(1)}>${mark.mark}</text>
    ${card.ascension
      ? html`<g class="ascension" transform=${`translate(${r},${-r})`}>
          <circle r="8" /><text y="3.5">${card.ascension > 0 ? "↑" : "↓"}${Math.abs(card.ascension)}</text>
        </g>`
      : null}
    ${down ? html`<text class="down-mark" y="6">✖</text>` : null}
    ${card.conditions.length
      ? html`<g class="conditions" transform=${`translate(${-r},${r - 2})`}>
          <circle r="7" /><text y="3">${card.conditions.length}</text>
        </g>`
      : null}
    <text class="name" y=${r + 11}>${label.length > 14 ? `${label.slice(0, 13)}…` : label}</text>
    ${health
      ? html`<g class="health-bar" transform=${`translate(${-r},${r + 14})`}>
          <rect class="track" width=${2 * r} height="4" />
          <rect class="fill" width=${(2 * r * share).toFixed(1)} height="4" />
        </g>`
      : html`<text class=${`health-word ${card.health_word}`} y=${r + 21}>${healthIcon(card.health_word)} ${card.health_word}</text>`}
  </g>`;
});

const PickCell = memo(function PickCell({ kind, x, y, option, act }) {
  const g = geometry(kind);
  const onKey = (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      act(null, option);
    }
  };
  return html`<path
    class="pick-cell"
    d=${g.outline(x, y)}
    role="button"
    tabindex="0"
    aria-label=${option.label}
    data-cell=${`${x},${y}`}
    onClick=${() => act(null, option)}
    onKeyDown=${onKey}
  ><title>${option.label}</title></path>`;
});

/** What the open hole lets the map pick: combatant id -> option, "x,y" -> [x, y, option]. */
function pickables(picking, table) {
  const combatants = new Map();
  const cells = new Map();
  if (!picking) return { combatants, cells };
  for (const option of picking.options) {
    if (typeof option.value === "string" && table.combatants[option.value]) {
      combatants.set(option.value, option);
      continue;
    }
    const cell = cellOf(option.value);
    if (cell && !cells.has(`${cell[0]},${cell[1]}`)) cells.set(`${cell[0]},${cell[1]}`, [cell[0], cell[1], option]);
  }
  return { combatants, cells };
}

export function BattleMap({ store, table, ui, controls }) {
  const kind = table.grid.kind === "hex" ? "hex" : "square";
  const combatants = table.combatants;
  const picking = ui.picking;
  const { combatants: pickIds, cells: pickCells } = useMemo(() => pickables(picking, table), [picking, combatants]);
  const sides = useMemo(() => sidesOf(table), [combatants]);
  const twinNames = useMemo(() => {
    const counts = new Map();
    for (const card of Object.values(combatants)) counts.set(card.name, (counts.get(card.name) || 0) + 1);
    return counts;
  }, [combatants]);
  const cells = useMemo(() => {
    const found = Object.values(combatants).map((card) => card.position);
    for (const [x, y] of pickCells.values()) found.push([x, y]);
    return found;
  }, [combatants, pickCells]);
  // The board: drawn again only when the cells it covers change.
  const small = useNarrow();
  const board = useMemo(() => gridCells(kind, cells, small), [kind, cells, small]);
  const boardKey = `${kind}:${board.length}:${board[0]}:${board[board.length - 1]}`;
  const stable = useRef({ key: "", board });
  if (stable.current.key !== boardKey) stable.current = { key: boardKey, board };
  const [vx, vy, vw, vh] = useMemo(() => viewBox(kind, stable.current.board), [stable.current.board]);

  // One function for every token and cell, so a token's props stay the same objects.
  const actRef = useRef(null);
  actRef.current = (id, option) => {
    const now = store.state.ui.picking;
    if (option && now) now.choose(option);
    else if (id) store.setUi({ selected: store.state.ui.selected === id ? null : id });
  };
  const act = useRef((id, option) => actRef.current(id, option)).current;

  const mine = new Set(controls);
  const frame = useRef(null);
  const [frameWidth, setFrameWidth] = useState(0);
  const [zoom, setZoom] = useState(null); // null: larger cells when the board is too small
  useEffect(() => {
    const el = frame.current;
    if (!el || typeof ResizeObserver !== "function") return undefined;
    const watch = new ResizeObserver(() => setFrameWidth(el.clientWidth));
    watch.observe(el);
    return () => watch.disconnect();
  }, []);
  // A board too big for the screen to tap (cells under 44 px) is drawn larger inside a
  // frame that scrolls; the button switches between that and the whole board.
  const across = vw / geometry(kind).unit;
  const fitted = frameWidth ? frameWidth / across : TAP_CELL;
  const tooSmall = fitted < 44;
  const zoomed = zoom === null ? tooSmall : zoom;
  const size = zoomed && tooSmall ? { width: `${Math.round(across * TAP_CELL)}px`, maxHeight: "none" } : null;
  return html`<figure class="map-frame">
    ${tooSmall
      ? html`<button class="zoom" aria-pressed=${zoomed ? "true" : "false"} onClick=${() => setZoom(!zoomed)}>
          ${zoomed ? "Whole map" : "Larger cells"}
        </button>`
      : null}
    <div class="map-scroll" ref=${frame}>
    <svg
      class=${`map ${kind}${picking ? " picking" : ""}`}
      style=${size}
      viewBox=${`${vx.toFixed(1)} ${vy.toFixed(1)} ${vw.toFixed(1)} ${vh.toFixed(1)}`}
      preserveAspectRatio="xMidYMid meet"
      role="group"
      aria-label=${`Battle map, ${kind === "hex" ? "hexagon" : "square"} grid, ${table.grid.cell_ft} ft a cell`}
    >
      <${Grid} kind=${kind} cells=${stable.current.board} />
      <g class="pick-cells">
        ${Array.from(pickCells.entries(), ([key, [x, y, option]]) => html`<${PickCell} key=${key} kind=${kind} x=${x} y=${y} option=${option} act=${act} />`)}
      </g>
      <g class="tokens">
        ${Object.values(combatants).map(
          (card) => html`<${Token}
            key=${card.id}
            card=${card}
            kind=${kind}
            mark=${sideMark(sides, card.side)}
            label=${nameOf(table, card.id)}
            twins=${twinNames.get(card.name) > 1}
            onTurn=${table.turn === card.id}
            mine=${mine.has(card.id)}
            selected=${ui.selected === card.id}
            pick=${pickIds.get(card.id) || null}
            act=${act}
          />`,
        )}
      </g>
    </svg>
    </div>
    <figcaption class="legend">
      ${sides.map((side) => {
        const m = sideMark(sides, side);
        return html`<span class="legend-side"><span class="swatch" style=${{ color: m.colour }} aria-hidden="true">${m.mark}</span> ${side}</span>`;
      })}
      ${picking ? html`<span class="legend-pick">Choose ${picking.label} on the map or in the list</span>` : null}
    </figcaption>
  </figure>`;
}
