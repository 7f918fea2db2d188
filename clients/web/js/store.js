// The page's state: what the server said (welcome, table, seq, log lines, choices, the
// open window's countdown) and how the connection is, plus the little the page adds
// of its own (`ui`: what is being picked on the map, which token is selected). Views
// read it with `subscribe` (or the `useStore` hook of app.js) and act with `send`.
//
// The state object is replaced, never changed in place, on every change, and the table
// inside it is patched by copying only along each path (patch.js): a view may compare
// what it drew last by identity.
//
// Exported for the GM console and other faces:
//   createStore({url, token}) -> store
//   store.state           the state now (fields below)
//   store.subscribe(fn)   fn(state) after each change; returns the unsubscribe function
//   store.send(command)   an engine command; a promise of the server's `ack` or `refused`
//                         message (sent again with the same cid after a reconnection)
//   store.request(msg)    any other request with a cid (`invites`, `revoke`): a promise
//                         of the answer that carries its cid
//   store.setUi(part)     merge `part` into `state.ui`
//   store.start(), store.stop()
//   nameOf(table, id)     a combatant's name as the table shows it ("Goblin (g1)")
//   heldChoices(held, m)  the seats held once the `choices` message m is taken
//
// State fields: welcome (the `welcome` message, or null), table (the view, or null),
// seq (the table's seq, or null), log (lines, oldest first, at most LOG_KEPT), choices
// (the seats held: a `whole` `choices` replaces them, any other changes only the seats
// it names, `heldChoices`; a move's short path held as cells, `withCells`), window
// ({message, at}: the last `window` message and the `performance.now()` it came at, or
// null once the table shows no such window),
// status ("connecting", "online", "reconnecting", "closed"), statusReason, error (the
// last `error` message's text), ui.

import { Connection } from "./connection.js";
import { applyPatch } from "./patch.js";

export const LOG_KEPT = 400;

function randomPrefix() {
  const bytes = new Uint8Array(4);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function nameOf(table, id) {
  if (id === "gm") return "the GM";
  const card = table && table.combatants[id];
  if (!card) return id;
  const twins = Object.values(table.combatants).filter((c) => c.name === card.name).length;
  return twins > 1 ? `${card.name} (${id})` : card.name;
}

/**
 * A seat whose "path" holes (a move) hold their paths as the cells a command takes: the
 * server sends each cell short, `[x, y]`, and the command holds `{$type: "Cell", x, y}`
 * (docs/protocol.md, "Choices"). Any other seat is returned as it is.
 */
export function withCells(seat) {
  const long = (hole) =>
    hole.kind !== "path"
      ? hole
      : {
          ...hole,
          options: hole.options.map((o) => ({
            ...o,
            value: o.value.map(([x, y]) => ({ $type: "Cell", x, y })),
          })),
        };
  if (!(seat.options || []).some((o) => (o.holes || []).some((h) => h.kind === "path"))) return seat;
  return { ...seat, options: seat.options.map((o) => ({ ...o, holes: (o.holes || []).map(long) })) };
}

/**
 * The seats held once `message` (a `choices`) is taken (docs/protocol.md, "Choices"): a
 * `whole` one's seats; else `held` with its `seats` in place of those of their
 * combatants and those of `gone` dropped, in its `order` when it names one (a seat
 * came). A new array: `held` is left as it was.
 */
export function heldChoices(held, message) {
  const seats = (message.seats || []).map(withCells);
  if (message.whole !== false) return seats.slice();
  const gone = new Set(message.gone || []);
  const fresh = new Map(seats.map((seat) => [seat.combatant, seat]));
  const kept = [];
  for (const seat of held) {
    if (gone.has(seat.combatant)) continue;
    kept.push(fresh.get(seat.combatant) || seat);
    fresh.delete(seat.combatant);
  }
  if (!message.order) return kept.concat([...fresh.values()]);
  const byCombatant = new Map(kept.map((seat) => [seat.combatant, seat]));
  for (const [combatant, seat] of fresh) byCombatant.set(combatant, seat);
  return message.order.filter((c) => byCombatant.has(c)).map((c) => byCombatant.get(c));
}

export function createStore({ url, token }) {
  const listeners = new Set();
  const pending = new Map(); // cid -> {message, resolve}
  const prefix = randomPrefix();
  let counter = 0;
  let state = {
    welcome: null,
    table: null,
    seq: null,
    log: [],
    choices: [],
    window: null,
    status: "connecting",
    statusReason: "",
    error: "",
    ui: { picking: null, selected: null },
  };

  function set(part) {
    state = { ...state, ...part };
    for (const listener of listeners) listener(state);
  }

  /** The countdown is dropped once the table shows no window of its id. */
  function keptWindow(table, window) {
    if (!window || !table || !table.window) return null;
    return table.window.id === window.message.window ? window : null;
  }

  function withLines(log, lines) {
    const last = log.length ? log[log.length - 1].seq : 0;
    const fresh = lines.filter((line) => line.seq > last);
    if (!fresh.length) return log;
    const joined = log.concat(fresh);
    return joined.length > LOG_KEPT ? joined.slice(joined.length - LOG_KEPT) : joined;
  }

  const handlers = {
    welcome(message) {
      set({ welcome: message, error: "" });
    },
    log(message) {
      set({ log: withLines(state.log, message.lines) });
    },
    table(message) {
      set({
        table: message.view,
        seq: message.seq,
        window: keptWindow(message.view, state.window),
      });
    },
    update(message) {
      if (state.seq === null || message.from_seq !== state.seq) {
        connection.resume();
        return;
      }
      let table;
      try {
        table = applyPatch(state.table, message.patch);
      } catch (error) {
        console.warn("a patch did not fit the table; resuming", error);
        connection.resume();
        return;
      }
      set({
        table,
        seq: message.seq,
        log: withLines(state.log, message.log),
        window: keptWindow(table, state.window),
      });
    },
    choices(message) {
      set({ choices: heldChoices(state.choices, message) });
    },
    window(message) {
      const window = { message, at: performance.now() };
      set({ window: state.table && state.table.window ? window : null });
    },
    went_back(message) {
      // The room's log no longer holds what was sent after message.seq (a failover or
      // a partition took it back): drop it; the table, log and choices that follow
      // are the log's. The message stays on the page, as the server's words.
      set({
        log: state.log.filter((line) => line.seq <= message.seq),
        seq: null,
        choices: [],
        window: null,
        error: message.message,
      });
    },
    error(message) {
      set({ error: `${message.code}: ${message.message}` });
    },
  };

  function answer(message) {
    const waiting = pending.get(message.cid);
    if (!waiting) return;
    pending.delete(message.cid);
    waiting.resolve(message);
  }

  function onMessage(message) {
    const handler = handlers[message.type];
    if (handler) handler(message);
    else if (message.cid !== undefined) answer(message);
  }

  const connection = new Connection({
    url,
    token,
    resumeFrom: () => state.seq,
    onMessage,
    onStatus: (status, reason) => set({ status, statusReason: reason }),
    onOpen: () => {
      for (const { message } of pending.values()) connection.send(message);
    },
  });

  function request(message) {
    counter += 1;
    const cid = `${prefix}-${counter}`;
    const full = { ...message, cid };
    return new Promise((resolve) => {
      pending.set(cid, { message: full, resolve });
      connection.send(full); // else sent again as the connection comes back
    });
  }

  return {
    get state() {
      return state;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    send(command) {
      return request({ type: "send", command });
    },
    request,
    setUi(part) {
      set({ ui: { ...state.ui, ...part } });
    },
    start() {
      connection.start();
    },
    stop() {
      connection.stop();
    },
  };
}
