/**
 * The board's one page: a form to post, and the messages as they come,
 * newest first. Works on a phone (one column from 390 px).
 *
 * @module
 */

import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";

/** What the page shows. */
export interface PageOptions {
  nonce: string;
  serverName: string;
  maxName: number;
  maxText: number;
}

const STYLE = `
  *, *::before, *::after { box-sizing: border-box; }
  body {
    font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330;
    background: #f3f5f9;
  }
  main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
  header { display: flex; align-items: baseline; gap: .75rem; flex-wrap: wrap; }
  h1 { font-size: 1.5rem; margin: .5rem 0; }
  .server { font-size: .85rem; background: #dde6f7; color: #1e3a72;
    padding: .1rem .5rem; border-radius: 1rem; }
  #status { margin-left: auto; font-size: .85rem; color: #5a6273; }
  #status.live::before { content: "\\25CF  "; color: #1b8a3a; }
  form { display: grid; grid-template-columns: 10rem 1fr auto; gap: .5rem;
    background: #fff; padding: .75rem; border-radius: .5rem;
    box-shadow: 0 1px 2px #0002; }
  label { display: flex; flex-direction: column; font-size: .8rem; color: #5a6273; }
  /* 16 px: a phone zooms into a smaller field on focus. */
  input { font: inherit; font-size: 1rem; padding: .45rem .6rem;
    border: 1px solid #b9c1d0;
    border-radius: .35rem; min-width: 0; }
  button { font: inherit; align-self: end; padding: .45rem 1rem; border: 0;
    border-radius: .35rem; background: #2456c7; color: #fff; cursor: pointer; }
  button:disabled { background: #8da3d6; }
  #error { color: #a4161a; min-height: 1.5em; margin: .25rem 0; font-size: .9rem; }
  ol { list-style: none; padding: 0; margin: 0; display: grid; gap: .5rem; }
  li { background: #fff; border-radius: .5rem; padding: .5rem .75rem;
    box-shadow: 0 1px 2px #0002; overflow-wrap: anywhere; }
  .meta { font-size: .8rem; color: #5a6273; }
  .meta b { color: #1d2330; }
  #empty { color: #5a6273; text-align: center; padding: 1rem; }
  .transport { text-align: center; font-size: .85rem; }
  a { color: #2456c7; }
  @media (max-width: 32rem) {
    form { grid-template-columns: 1fr; }
    button { width: 100%; }
  }
`;

// Plain browser code, no framework. Messages are put in the page with
// textContent only, never as HTML.
const SCRIPT = `
  const list = document.getElementById("messages");
  const empty = document.getElementById("empty");
  const status = document.getElementById("status");
  const form = document.getElementById("post");
  const error = document.getElementById("error");
  let lastId = "";
  let source;
  let slow;

  function show(id, message) {
    empty.hidden = true;
    const item = document.createElement("li");
    item.dataset.id = id;
    const meta = document.createElement("div");
    meta.className = "meta";
    const name = document.createElement("b");
    name.textContent = message.name;
    const time = new Date(message.at).toLocaleTimeString();
    meta.append(name, " via " + message.server + " at " + time);
    const text = document.createElement("div");
    text.className = "text";
    text.textContent = message.text;
    item.append(meta, text);
    list.prepend(item);
    while (list.children.length > 200) list.lastElementChild.remove();
  }

  function connect() {
    // A page just loaded starts with the messages the board keeps.
    source = new EventSource(lastId ? "/events?since=" + encodeURIComponent(lastId) : "/events?recent");
    source.addEventListener("open", () => {
      clearTimeout(slow);
      status.textContent = "live";
      status.className = "live";
    });
    source.addEventListener("position", (event) => {
      lastId = event.lastEventId;
    });
    source.addEventListener("message", (event) => {
      lastId = event.lastEventId;
      show(event.lastEventId, JSON.parse(event.data));
    });
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) {
        status.className = "";
        // Refused (503, too many streams) or failed: the browser gives
        // up; try again later, resuming after the last message seen.
        status.textContent = "offline, retrying...";
        setTimeout(connect, 3000 + Math.random() * 2000);
      } else {
        // The server ends streams now and then (their lifetime) and the
        // browser reconnects at once: say so only if it takes a while.
        clearTimeout(slow);
        slow = setTimeout(() => {
          status.className = "";
          status.textContent = "reconnecting...";
        }, 2000);
      }
    });
  }
  // ?transport=ws: messages come and posts go over one WebSocket.
  const overSocket = new URLSearchParams(location.search).get("transport") === "ws";
  let socket;

  function connectSocket() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/ws" +
      (lastId ? "?since=" + encodeURIComponent(lastId) : "?recent"));
    socket.addEventListener("open", () => {
      status.textContent = "live (WebSocket)";
      status.className = "live";
    });
    socket.addEventListener("message", (event) => {
      const body = JSON.parse(event.data);
      if (body.type === "position") {
        lastId = body.id;
      } else if (body.type === "message") {
        lastId = body.id;
        show(body.id, body.message);
      } else if (body.type === "error") {
        error.textContent = body.error;
      } else if (body.type === "posted") {
        form.elements.text.value = "";
      }
    });
    socket.addEventListener("close", () => {
      status.className = "";
      status.textContent = "reconnecting...";
      setTimeout(connectSocket, 1000 + Math.random() * 2000);
    });
  }

  if (overSocket) connectSocket();
  else connect();
  document.getElementById("switch").href = overSocket ? "/" : "/?transport=ws";
  document.getElementById("switch").textContent = overSocket
    ? "use server-sent events"
    : "use a WebSocket";

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (overSocket) {
      error.textContent = "";
      if (socket.readyState !== WebSocket.OPEN) {
        error.textContent = "Not connected; try again in a moment.";
        return;
      }
      const data = new FormData(form);
      socket.send(JSON.stringify({ name: data.get("name"), text: data.get("text") }));
      form.elements.text.focus();
      return;
    }
    const button = form.querySelector("button");
    button.disabled = true;
    error.textContent = "";
    try {
      const response = await fetch("/messages", {
        method: "POST",
        headers: { Accept: "application/json" },
        body: new URLSearchParams(new FormData(form)),
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        error.textContent = body.error ?? "Could not post (" + response.status + ").";
      } else {
        form.elements.text.value = "";
        form.elements.text.focus();
      }
    } catch {
      error.textContent = "Could not reach the server.";
    } finally {
      button.disabled = false;
    }
  });
`;

/** The page. */
export function renderPage(options: PageOptions): SafeHtml {
  const { nonce, serverName, maxName, maxText } = options;
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Live board</title>
        <link rel="icon" href="/favicon.ico">
        <style nonce="${nonce}">${html.raw(STYLE)}</style>
      </head>
      <body>
        <main>
          <header>
            <h1>Live board</h1>
            <span class="server" id="server">${serverName}</span>
            <span id="status">connecting...</span>
          </header>
          <form id="post" method="post" action="/messages">
            <label>Name
              <input name="name" required maxlength="${maxName}" autocomplete="nickname">
            </label>
            <label>Message
              <input name="text" required maxlength="${maxText}" autocomplete="off">
            </label>
            <button type="submit">Post</button>
          </form>
          <p id="error" role="alert"></p>
          <ol id="messages" aria-live="polite"></ol>
          <p id="empty">
            No messages yet. Post one, or open this page on another server.
          </p>
          <p class="transport">
            <a id="switch" href="/?transport=ws">use a WebSocket</a>
          </p>
        </main>
        <script nonce="${nonce}">${html.raw(SCRIPT)}</script>
      </body>
    </html>
  `;
}

/** What an error page shows. */
export interface ErrorPageOptions {
  nonce: string;
  /** The heading, such as "Page not found". */
  title: string;
  /** What went wrong, in a sentence. */
  message: string;
}

/**
 * A page for a browser's request that went wrong (an unknown address, a
 * form posted without script that was refused), styled like the board.
 */
export function renderErrorPage(options: ErrorPageOptions): SafeHtml {
  const { nonce, title, message } = options;
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${title} · Live board</title>
        <link rel="icon" href="/favicon.ico">
        <style nonce="${nonce}">${html.raw(STYLE)}</style>
      </head>
      <body>
        <main>
          <h1>${title}</h1>
          <p>${message}</p>
          <p><a href="/">Back to the board</a></p>
        </main>
      </body>
    </html>
  `;
}
