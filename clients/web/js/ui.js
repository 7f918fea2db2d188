// Small pieces every view uses: the Preact binding, a hook on the store, `memo` (the
// standalone Preact has none) and the words and marks of sides and health.

import { Component, h, html, useEffect, useState } from "../vendor/htm-preact-standalone.js";

export { html };

/** The store's state, redrawn on every change. */
export function useStore(store) {
  const [state, setState] = useState(store.state);
  useEffect(() => {
    setState(store.state);
    return store.subscribe(setState);
  }, [store]);
  return state;
}

function shallowEqual(a, b) {
  for (const key in a) if (a[key] !== b[key]) return false;
  for (const key in b) if (!(key in a)) return false;
  return true;
}

/** `view` drawn again only when one of its props is another object than before: a
 * token whose card the last patch did not touch keeps its drawing. */
export function memo(view) {
  class Memo extends Component {
    shouldComponentUpdate(next) {
      return !shallowEqual(this.props, next);
    }
    render(props) {
      return h(view, props);
    }
  }
  Memo.displayName = `memo(${view.name})`;
  return Memo;
}

/** Sides get a colour and a shape each, in the order they first appear in the table,
 * so no side is told from another by colour alone. */
const SIDE_MARKS = [
  { colour: "#2f6fd6", mark: "●" },
  { colour: "#c8332b", mark: "▲" },
  { colour: "#2f9a4a", mark: "■" },
  { colour: "#a35ac8", mark: "◆" },
  { colour: "#c97a10", mark: "★" },
  { colour: "#238a8a", mark: "⬟" },
];

export function sidesOf(table) {
  const sides = [];
  for (const card of Object.values(table.combatants)) {
    if (!sides.includes(card.side)) sides.push(card.side);
  }
  return sides;
}

export function sideMark(sides, side) {
  const index = Math.max(0, sides.indexOf(side));
  return SIDE_MARKS[index % SIDE_MARKS.length];
}

/** An icon for a health word, so the state is read without its colour. */
export const HEALTH_ICONS = {
  unhurt: "♥",
  wounded: "♡",
  bloodied: "✚",
  down: "✖",
};

export function healthIcon(word) {
  return HEALTH_ICONS[word] || "•";
}

const ICONS = {
  pause: "M5 3h4v14H5zM11 3h4v14h-4z",
  play: "M5 3l11 7-11 7z",
};

/** A small icon drawn as SVG (no font needs to have the glyph); hidden from screen
 * readers, which read the word beside it. */
export function Icon({ name }) {
  return html`<svg class="icon" viewBox="0 0 20 20" width="16" height="16" aria-hidden="true" focusable="false"><path d=${ICONS[name]} fill="currentColor" /></svg>`;
}

/** The handlers of a place files may be dropped on: `setOver` says whether a drag is
 * over it (to draw it so), `take` gets the files dropped, when there are any. */
export function dropZone(setOver, take) {
  return {
    onDragOver: (e) => {
      e.preventDefault();
      setOver(true);
    },
    onDragLeave: () => setOver(false),
    onDrop: (e) => {
      e.preventDefault();
      setOver(false);
      if (e.dataTransfer && e.dataTransfer.files.length) take(e.dataTransfer.files);
    },
  };
}
