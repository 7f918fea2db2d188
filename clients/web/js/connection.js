// The websocket to the combat server (docs/protocol.md, "Connecting" and "The
// handshake"): the JSON subprotocol, a `hello` with the token, and, when the connection
// drops, a new one by itself after a growing pause, resuming from the seq the page holds.
// It knows nothing of the fight: every message goes to `onMessage`, and `onStatus`
// hears how the connection is, for the badge.

export const SUBPROTOCOL = "verse.json.v2";

/** The websocket's address from `/config.json` (`{"ws_port", "ws_path"}`): the page's
 * own host name on the websocket's port, or, for a page served over https, the page's
 * own origin (a proxy in front of both). */
export function websocketUrl(config, location) {
  const path = config.ws_path || "/ws";
  if (location.protocol === "https:") return `wss://${location.host}${path}`;
  const host = location.hostname.includes(":") ? `[${location.hostname}]` : location.hostname;
  return `ws://${host}:${config.ws_port}${path}`;
}
export const PROTOCOL = 2;

/** Close codes after which trying again cannot help (docs/protocol.md, "Close codes"). */
const FINAL = new Map([
  [4000, "this page speaks another protocol version than the server"],
  [4001, "the link is not valid (mistyped, revoked, or for another server)"],
  [4002, "the link has expired: ask the GM for a new one"],
  [4003, "the server did not understand this page's greeting"],
  [4004, "the fight is over or was stopped"],
]);

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
const KEEPALIVE_MS = 20000;

/**
 * Status: "connecting" (first try), "online" (welcomed), "reconnecting" (lost, trying
 * again), "closed" (for good: `reason` says why).
 */
export class Connection {
  constructor({ url, token, resumeFrom, onMessage, onStatus, onOpen, client = "combat-web/1" }) {
    this.url = url;
    this.token = token;
    this.resumeFrom = resumeFrom; // () => the seq held, or null
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onOpen = onOpen || (() => {});
    this.client = client;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.retryTimer = null;
    this.keepalive = null;
    this.welcomed = false;
    this.status = "connecting";
  }

  start() {
    this._setStatus("connecting");
    this._open();
  }

  /** Drop this connection and open a new one at once, resuming from the seq held
   * (an update that does not follow the table held). */
  resume() {
    if (this.stopped) return;
    if (this.ws) {
      const ws = this.ws;
      this._forget();
      ws.close(1000, "resuming");
    }
    this._setStatus("reconnecting");
    this._open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    if (this.ws) {
      const ws = this.ws;
      this._forget();
      ws.close(1000, "page closed");
    }
    this._setStatus("closed", "left");
  }

  /** Send a message now; false when there is no welcomed connection to carry it. */
  send(message) {
    if (!this.ws || !this.welcomed || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  _setStatus(status, reason = "") {
    this.status = status;
    this.onStatus(status, reason);
  }

  _forget() {
    clearInterval(this.keepalive);
    if (!this.ws) return;
    this.ws.onopen = this.ws.onmessage = this.ws.onclose = this.ws.onerror = null;
    this.ws = null;
    this.welcomed = false;
  }

  _open() {
    let ws;
    try {
      ws = new WebSocket(this.url, [SUBPROTOCOL]);
    } catch (error) {
      this._setStatus("closed", `cannot open ${this.url}: ${error.message}`);
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      const resume = this.resumeFrom();
      ws.send(
        JSON.stringify({
          type: "hello",
          protocol: PROTOCOL,
          token: this.token,
          resume_from_seq: resume === undefined ? null : resume,
          client: this.client,
        }),
      );
    };
    ws.onmessage = (frame) => {
      let message;
      try {
        message = JSON.parse(frame.data);
      } catch {
        return; // the server sends JSON only; a broken frame is not ours to act on
      }
      if (message.type === "welcome") {
        this.welcomed = true;
        this.attempt = 0;
        this._setStatus("online");
        clearInterval(this.keepalive);
        this.keepalive = setInterval(() => this.send({ type: "ping" }), KEEPALIVE_MS);
        this.onMessage(message);
        this.onOpen();
        return;
      }
      this.onMessage(message);
    };
    ws.onclose = (event) => {
      this._forget();
      if (this.stopped) return;
      const final = FINAL.get(event.code);
      if (final) {
        this._setStatus("closed", event.reason ? `${final} (${event.reason})` : final);
        return;
      }
      this._retry();
    };
  }

  _retry() {
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    const wait = base / 2 + Math.random() * (base / 2);
    this._setStatus("reconnecting");
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (!this.stopped) this._open();
    }, wait);
  }
}
