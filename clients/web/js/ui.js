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

/** The names of the combatants `ids`, as the table shows them. */
export function names(table, ids, nameOf) {
  return ids.map((id) => nameOf(table, id)).join(", ");
}
