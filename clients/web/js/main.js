// The page's entry: the link's fragment says who opens it.
//
//   #join=CODE             a seat, the GM or a spectator: the invite code (or a long
//                          token) decides, and the server's welcome says which
//   #join=CODE&overlay     a spectator's overlay for streaming software: transparent
//                          background, large type, nothing to click
//   #host=HOSTTOKEN        create a fight (js/create.js), where that page is there
//
// A fragment never reaches the server in a request, so the code stays out of its logs.
// `/config.json` says where the websocket is (`{"ws_port", "ws_path"}`).

import { render } from "../vendor/htm-preact-standalone.js";
import { mountApp } from "./app.js";
import { websocketUrl } from "./connection.js";
import { createStore } from "./store.js";
import { html } from "./ui.js";

export function readFragment(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  return {
    join: params.get("join") || "",
    host: params.get("host") || "",
    overlay: params.has("overlay"),
  };
}

async function loadConfig() {
  const answer = await fetch("/config.json", { cache: "no-store" });
  if (!answer.ok) throw new Error(`/config.json: ${answer.status}`);
  return answer.json();
}


function Notice({ title, words }) {
  return html`<main class="waiting-page">
    <h1>${title}</h1>
    ${words.map((w) => html`<p>${w}</p>`)}
  </main>`;
}

async function main() {
  const root = document.getElementById("app");
  const link = readFragment(location.hash);
  if (link.host) {
    try {
      const module = await import("./create.js");
      module.mountCreate(root, link.host);
    } catch (error) {
      console.warn("the create page could not load", error);
      render(html`<${Notice} title="Create a fight" words=${["Creating a fight in the browser is not available on this server."]} />`, root);
    }
    return;
  }
  if (!link.join) {
    render(
      html`<${Notice}
        title="Verse combat"
        words=${["Open the link the GM gave you: it ends in #join= and your code.", "Running the server prints one link per seat, for the GM and for spectators."]}
      />`,
      root,
    );
    return;
  }
  let config;
  try {
    config = await loadConfig();
  } catch (error) {
    render(html`<${Notice} title="Verse combat" words=${[`The server's settings could not be read (${error.message}).`]} />`, root);
    return;
  }
  const store = createStore({ url: websocketUrl(config, location), token: link.join });
  window.addEventListener("hashchange", () => location.reload());
  mountApp(root, store, { overlay: link.overlay });
}

main();
