// Create a fight from the host's link (`#host=HOSTTOKEN`): upload or paste the
// encounter file and its sheet files, send them as they are (`create` with `files`
// and `file`, docs/protocol.md "Creating an encounter": the server reads TOML and JSON
// as `combat create` does, and this page parses nothing), see every problem at once,
// each with its file and place, and get the links: one per player seat, the GM's and
// the spectators'.
//
// Files are named as uploaded (a browser keeps names, not folders); the server finds a
// sheet the encounter names by a path such as "../ayla.toml" by its name alone when
// no folder matches. A file added again under the same name replaces the first.

import { render, useEffect, useRef, useState } from "../vendor/htm-preact-standalone.js";
import { Connection, websocketUrl } from "./connection.js";
import { linkGmStyle } from "./gm_style.js";
import { dropZone, html } from "./ui.js";

const MAX_FRAME = 65536; // bytes: the server closes a connection sending a larger frame

/** The file most likely to be the encounter: the one that lists combatants. */
export function guessEncounter(files) {
  const found = files.find((f) => /^\s*\[\[\s*combatants\s*\]\]/m.test(f.text) || /"combatants"\s*:/.test(f.text));
  return found ? found.name : files.length ? files[0].name : "";
}

/** A problem as the server words it, split into its file and the rest. */
export function splitProblem(text) {
  const match = /^([^\s:;]+\.(?:toml|json)):\s*(.*)$/is.exec(text);
  return match ? { file: match[1], rest: match[2] } : { file: "", rest: text };
}

function withFile(files, name, text) {
  return files.filter((f) => f.name !== name).concat([{ name, text }]);
}

function Links({ created }) {
  const base = `${location.origin}${location.pathname}`;
  const link = (code, extra = "") => `${base}#join=${encodeURIComponent(code)}${extra}`;
  const codes = created.codes || { gm: "", players: {}, spectator: "" };
  const rows = [
    ["GM", codes.gm || created.gm, "gm"],
    ...Object.keys(created.players)
      .sort()
      .map((seat) => [`Player: ${seat}`, codes.players[seat] || created.players[seat], seat]),
    ["Spectators", codes.spectator || created.spectator, "spectator"],
  ];
  const heading = useRef(null);
  useEffect(() => heading.current && heading.current.focus(), [created.room]);
  return html`<section class="create-links panel" aria-labelledby="create-links-title">
    <h2 id="create-links-title" tabindex="-1" ref=${heading}>✓ Created: ${created.name || created.room}</h2>
    <p>Room <code>${created.room}</code>. Give each person their link (or its code); the links do not expire.</p>
    <table>
      <thead><tr><th scope="col">Who</th><th scope="col">Link</th><th scope="col">Code</th></tr></thead>
      <tbody>
        ${rows.map(([who, code, key]) => html`<tr key=${key} data-who=${key}>
          <th scope="row">${who}</th>
          <td><a class="join-link" href=${link(code)} target="_blank" rel="noopener">${link(code)}</a></td>
          <td><code>${code.length <= 16 ? code : "(token)"}</code></td>
        </tr>`)}
      </tbody>
    </table>
    <p>For streaming software: <a href=${link(codes.spectator || created.spectator, "&overlay")} target="_blank" rel="noopener">the spectators' overlay</a>.</p>
  </section>`;
}

function Problems({ problems }) {
  const heading = useRef(null);
  useEffect(() => heading.current && heading.current.focus(), [problems]);
  return html`<section class="create-problems panel" aria-labelledby="create-problems-title">
    <h2 id="create-problems-title" tabindex="-1" ref=${heading}>✘ ${problems.length === 1 ? "One problem" : `${problems.length} problems`}: nothing was created</h2>
    <ul>
      ${problems.map((text, i) => {
        const { file, rest } = splitProblem(text);
        return html`<li key=${i} class="problem">${file ? html`<span class="file">${file}</span>: ` : null}${rest}</li>`;
      })}
    </ul>
  </section>`;
}

export function CreatePage({ url, hostToken }) {
  const [files, setFiles] = useState([]);
  const [main, setMain] = useState("");
  const [pasteName, setPasteName] = useState("encounter.toml");
  const [pasteText, setPasteText] = useState("");
  const [status, setStatus] = useState("connecting");
  const [reason, setReason] = useState("");
  const [sending, setSending] = useState(false);
  const [problems, setProblems] = useState(null);
  const [created, setCreated] = useState(null);
  const [over, setOver] = useState(false);
  const waiting = useRef(new Map());
  const connection = useRef(null);

  useEffect(() => {
    const conn = new Connection({
      url,
      token: hostToken,
      resumeFrom: () => null,
      onMessage: (message) => {
        const answer = waiting.current.get(message.cid);
        if (answer) {
          waiting.current.delete(message.cid);
          answer(message);
        }
      },
      onStatus: (now, why) => {
        setStatus(now);
        setReason(why);
      },
      client: "combat-web-create/1",
    });
    connection.current = conn;
    conn.start();
    return () => conn.stop();
  }, [url, hostToken]);

  function add(list) {
    let next = files;
    for (const { name, text } of list) next = withFile(next, name, text);
    setFiles(next);
    if (!main || !next.some((f) => f.name === main)) setMain(guessEncounter(next));
    setProblems(null);
  }

  async function readUploads(fileList) {
    const read = await Promise.all(Array.from(fileList, async (file) => ({ name: file.name, text: await file.text() })));
    add(read);
  }

  function remove(name) {
    const next = files.filter((f) => f.name !== name);
    setFiles(next);
    if (main === name) setMain(guessEncounter(next));
  }

  function addPasted(event) {
    event.preventDefault();
    const name = pasteName.trim();
    if (!name || !pasteText.trim()) return;
    add([{ name, text: pasteText }]);
    setPasteText("");
  }

  async function create() {
    if (!files.length || !main) {
      setProblems(["Add the encounter file and its sheet files first."]);
      return;
    }
    const cid = `create-${Date.now().toString(36)}`;
    const message = { type: "create", cid, files: Object.fromEntries(files.map((f) => [f.name, f.text])), file: main };
    const size = new TextEncoder().encode(JSON.stringify(message)).length;
    if (size > MAX_FRAME) {
      setProblems([`The files come to ${Math.ceil(size / 1024)} KiB, more than the 64 KiB one message may carry: leave out what the encounter does not name.`]);
      return;
    }
    setSending(true);
    setProblems(null);
    setCreated(null);
    const answer = await new Promise((resolve) => {
      waiting.current.set(cid, resolve);
      if (!connection.current.send(message)) {
        waiting.current.delete(cid);
        resolve({ type: "refused", code: "unavailable", message: "Not connected to the server: wait for the connection and try again." });
      }
    });
    setSending(false);
    if (answer.type === "created") setCreated(answer);
    else setProblems(answer.message ? answer.message.split("; ") : [answer.code]);
  }

  const drop = dropZone(setOver, readUploads);
  const online = status === "online";
  return html`<main class="create-page">
    <header class="create-row">
      <h1>Create a fight</h1>
      <span class=${`badge connection ${status}`} role="status">${online ? "● Connected" : status === "closed" ? `✕ ${reason || "Disconnected"}` : "… Connecting"}</span>
    </header>
    <p>Add the encounter file (TOML or JSON, as for <code>combat create</code>) and every sheet file it names; the conditions table too, if it names one.</p>
    <section class=${`create-drop panel${over ? " over" : ""}`} aria-label="Upload files" ...${drop}>
      <label class="create-row" for="create-upload">Upload files
        <input id="create-upload" type="file" multiple accept=".toml,.json,text/plain,application/json" onChange=${(e) => readUploads(e.target.files)} />
      </label>
      <p class="muted">or drop them here</p>
    </section>
    <form class="create-paste panel" onSubmit=${addPasted} aria-label="Paste a file">
      <label for="create-paste-name">Paste a file: its name
        <input id="create-paste-name" value=${pasteName} onInput=${(e) => setPasteName(e.target.value)} />
      </label>
      <label for="create-paste-text" class="sr-only">its text</label>
      <textarea id="create-paste-text" placeholder=${'name = "Goblin ambush"\n[[combatants]]\n…'} value=${pasteText} onInput=${(e) => setPasteText(e.target.value)}></textarea>
      <span><button type="submit">Add this file</button></span>
    </form>
    <section class="panel" aria-label="Files to send">
      <h2>Files (${files.length})</h2>
      ${files.length
        ? html`<ul class="create-files">
            ${files.map((f) => html`<li key=${f.name} data-file=${f.name}>
              <span><span class="name">${f.name}</span> <span class="muted">${f.text.length} characters</span></span>
              <button onClick=${() => remove(f.name)} aria-label=${`Remove ${f.name}`}>Remove</button>
            </li>`)}
          </ul>
          <p class="create-row"><label for="create-main">The encounter file</label>
            <select id="create-main" value=${main} onChange=${(e) => setMain(e.target.value)}>
              ${files.map((f) => html`<option key=${f.name} value=${f.name}>${f.name}</option>`)}
            </select>
          </p>`
        : html`<p class="muted">None yet.</p>`}
      <p><button class="primary create" disabled=${sending || !online || !files.length} onClick=${create}>${sending ? "Creating…" : "Create the fight"}</button></p>
    </section>
    ${problems ? html`<${Problems} problems=${problems} />` : null}
    ${created ? html`<${Links} created=${created} />` : null}
  </main>`;
}

async function config() {
  const answer = await fetch("/config.json", { cache: "no-store" });
  if (!answer.ok) throw new Error(`/config.json: ${answer.status}`);
  return answer.json();
}

export async function mountCreate(root, hostToken) {
  linkGmStyle();
  document.title = "Create a fight";
  let url;
  try {
    url = websocketUrl(await config(), location);
  } catch (error) {
    render(html`<main class="waiting-page"><h1>Create a fight</h1><p class="error">The server's settings could not be read (${error.message}).</p></main>`, root);
    return;
  }
  render(html`<${CreatePage} url=${url} hostToken=${hostToken} />`, root);
}
