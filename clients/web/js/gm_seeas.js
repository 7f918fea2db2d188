// "See as": the GM opens the table as a player seat or the spectators see it, in a new
// tab joined with that audience's invite code (the `invites` request answers with the
// room's live codes, docs/protocol.md). The server builds that tab's view for that
// audience, so it holds exactly what they hold: nothing the GM's own page computes.
// The GM's page keeps its connection and plays on.

import { useState } from "../vendor/htm-preact-standalone.js";
import { html } from "./ui.js";

/** The page's link for an invite code: this page's address with `#join=CODE`. */
export function joinLink(code, extra = "") {
  const base = `${location.origin}${location.pathname}`;
  return `${base}#join=${encodeURIComponent(code)}${extra}`;
}

export function SeeAs({ store }) {
  const [codes, setCodes] = useState(null);
  const [problem, setProblem] = useState("");
  async function load() {
    setProblem("");
    const answer = await store.request({ type: "invites" });
    if (answer.type === "codes") setCodes(answer.codes);
    else setProblem(`The links could not be fetched: ${answer.message || answer.code}`);
  }
  const seats = codes ? Object.entries(codes.players).sort(([a], [b]) => a.localeCompare(b)) : [];
  return html`<details class="gm-more gm-see-as" onToggle=${(e) => e.target.open && !codes && load()}>
    <summary>See as a player or the spectators</summary>
    <p class="muted">Opens a tab that sees exactly what they see (and can act for that seat); this page plays on.</p>
    ${problem ? html`<p class="error" role="alert">${problem}</p>` : null}
    ${codes
      ? html`<ul class="gm-links">
          ${seats.map(([seat, code]) => html`<li key=${seat}><a class="see-as" data-seat=${seat} href=${joinLink(code)} target="_blank" rel="noopener">See as ${seat}</a> <code>${code}</code></li>`)}
          ${codes.spectator
            ? html`<li><a class="see-as" data-seat="spectator" href=${joinLink(codes.spectator)} target="_blank" rel="noopener">See as the spectators</a> <code>${codes.spectator}</code></li>
                <li><a href=${joinLink(codes.spectator, "&overlay")} target="_blank" rel="noopener">The spectators' overlay</a> (for streaming software)</li>`
            : null}
        </ul>`
      : problem ? html`<button onClick=${load}>Try again</button>` : html`<p class="muted">Fetching the links…</p>`}
  </details>`;
}
