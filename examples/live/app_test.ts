// The board in one process, on the memory pub/sub. Portable: no Deno.* API.
import assert from "node:assert/strict";
import { createMemoryPubSub } from "@fetchkit/toolkit/pubsub";
import { createLiveApp, type LiveAppOptions } from "./app.ts";

const info = (hostname = "192.0.2.1") => ({
  remoteAddr: { hostname, port: 1, transport: "tcp" },
});

function board(options: Partial<LiveAppOptions> = {}) {
  const pubsub = createMemoryPubSub();
  const lines: string[] = [];
  const app = createLiveApp({
    pubsub,
    serverName: "A",
    log: (line) => lines.push(line),
    ...options,
  });
  return { app, pubsub, lines };
}

function post(body: string, type = "application/x-www-form-urlencoded") {
  return new Request("http://localhost/messages", {
    method: "POST",
    headers: { "Content-Type": type, Accept: "application/json" },
    body,
  });
}

/** Reads SSE events (id and parsed data) until `count` have come. */
async function readEvents(response: Response, count: number) {
  const reader = response.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  let text = "";
  const events: { id: string; data: { name: string; text: string } }[] = [];
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    let end;
    while ((end = text.indexOf("\n\n")) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      const position = /^event: position$/m.test(block);
      if (id !== undefined && data !== undefined && !position) {
        events.push({ id, data: JSON.parse(data) });
      }
    }
  }
  await reader.cancel();
  return events;
}

Deno.test("live: the page names its server and carries a nonce its CSP names", async () => {
  const { app, pubsub } = board();
  const response = await app.fetch(new Request("http://localhost/"), info());
  const page = await response.text();
  const nonce = /<script nonce="([^"]+)">/.exec(page)?.[1];
  assert.ok(nonce);
  const csp = response.headers.get("Content-Security-Policy")!;
  assert.ok(csp.includes(`script-src 'nonce-${nonce}'`), csp);
  assert.ok(csp.includes(`style-src 'nonce-${nonce}'`), csp);
  assert.match(page, /<span class="server" id="server">A<\/span>/);
  await pubsub.close();
});

Deno.test("live: a post reaches an open stream; Last-Event-ID resumes after it", async () => {
  const { app, pubsub, lines } = board();
  const stream = await app.fetch(
    new Request("http://localhost/events"),
    info(),
  );
  assert.equal(stream.headers.get("Content-Type"), "text/event-stream");
  const first = await app.fetch(post("name=ada&text=hello"), info());
  assert.equal(first.status, 201);
  const { id } = await first.json();
  const second = await app.fetch(
    post(JSON.stringify({ name: "bob", text: "hi <b>" }), "application/json"),
    info(),
  );
  assert.equal(second.status, 201);
  const events = await readEvents(stream, 2);
  assert.deepEqual(events.map((e) => [e.data.name, e.data.text]), [
    ["ada", "hello"],
    ["bob", "hi <b>"],
  ]);
  assert.equal(events[0].id, id);
  // Resuming after the first gets exactly the second.
  const resumed = await app.fetch(
    new Request("http://localhost/events", {
      headers: { "Last-Event-ID": id },
    }),
    info(),
  );
  assert.deepEqual((await readEvents(resumed, 1)).map((e) => e.data.text), [
    "hi <b>",
  ]);
  assert.equal(app.streams.open(), 0);
  assert.match(lines.at(-1)!, /^192\.0\.2\.1 [0-9a-f-]{36} GET \/events 200$/);
  await pubsub.close();
});

Deno.test("live: bad posts and ids get a 4xx that says why", async () => {
  const { app, pubsub } = board();
  const cases: [Request, number, RegExp][] = [
    [post("name=ada&text=%20"), 422, /Fill in text/],
    [post(`name=ada&text=${"x".repeat(501)}`), 422, /at most 500 characters/],
    [post(`name=${"n".repeat(41)}&text=x`), 422, /at most 40 characters/],
    [post("x".repeat(5000)), 413, /at most 4096 bytes/],
    [post("{", "application/json"), 400, /not valid JSON/],
    [post("[1]", "application/json"), 400, /JSON object/],
    [post("hello", "text/plain"), 415, /urlencoded or application\/json/],
    [
      new Request("http://localhost/events", {
        headers: { "Last-Event-ID": "not an id", Accept: "application/json" },
      }),
      400,
      /since must be an event id/,
    ],
  ];
  for (const [request, status, message] of cases) {
    const response = await app.fetch(request, info());
    assert.equal(response.status, status, await response.clone().text());
    assert.match(await response.text(), message);
  }
  const crossSite = await app.fetch(
    new Request("http://localhost/messages", {
      method: "POST",
      headers: {
        "Sec-Fetch-Site": "cross-site",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "name=eve&text=spam",
    }),
    info(),
  );
  assert.equal(crossSite.status, 403);
  assert.equal(app.streams.open(), 0);
  await pubsub.close();
});

Deno.test("live: streams are capped per address, and a form post without script goes back to the board", async () => {
  const { app, pubsub } = board({ streams: { perAddress: 2, total: 3 } });
  const open = [];
  for (
    const address of [
      "192.0.2.1",
      "192.0.2.1",
      "192.0.2.1",
      "192.0.2.2",
      "192.0.2.3",
    ]
  ) {
    open.push(
      await app.fetch(new Request("http://localhost/events"), info(address)),
    );
  }
  assert.deepEqual(open.map((r) => r.status), [200, 200, 503, 200, 503]);
  assert.equal(open[2].headers.get("Retry-After"), "5");
  for (const response of open) await response.body?.cancel();
  assert.equal(app.streams.open(), 0);
  const form = await app.fetch(
    new Request("http://localhost/messages", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "text/html",
      },
      body: "name=ada&text=no+script",
    }),
    info(),
  );
  assert.equal(form.status, 303);
  assert.equal(form.headers.get("Location"), "/");
  await pubsub.close();
});

Deno.test("live: browsers get pages for an unknown address (404) and a refused form post (422); scripts get text", async () => {
  const { app, pubsub } = board();
  const html = { Accept: "text/html,application/xhtml+xml" };
  const missing = await app.fetch(
    new Request("http://localhost/nope", { headers: html }),
    info(),
  );
  assert.equal(missing.status, 404);
  const page = await missing.text();
  assert.match(page, /<html lang="en">/);
  assert.match(page, /<h1>Page not found<\/h1>/);
  const nonce = /<style nonce="([^"]+)">/.exec(page)?.[1];
  assert.ok(
    missing.headers.get("Content-Security-Policy")?.includes(
      `style-src 'nonce-${nonce}'`,
    ),
    "the page's style is allowed by its CSP",
  );

  const refused = await app.fetch(
    new Request("http://localhost/messages", {
      method: "POST",
      headers: {
        ...html,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "name=Ada&text=",
    }),
    info(),
  );
  assert.equal(refused.status, 422);
  assert.match(refused.headers.get("Content-Type")!, /^text\/html/);
  const refusedPage = await refused.text();
  assert.match(refusedPage, /<h1>Your message was not posted<\/h1>/);
  assert.match(refusedPage, /<p>Fill in text\.<\/p>/);

  const plain = await app.fetch(new Request("http://localhost/nope"), info());
  assert.equal(plain.status, 404);
  assert.equal(await plain.text(), "Not Found");
  const json = await app.fetch(post("name=Ada&text="), info());
  assert.equal(json.status, 422);
  assert.deepEqual(await json.json(), { error: "Fill in text." });
  await pubsub.close();
});

Deno.test("live: a stream starts with its position, so a client that leaves before any message loses nothing", async () => {
  const { app, pubsub } = board();
  const first = await app.fetch(new Request("http://localhost/events"), info());
  const reader = first.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("event: position")) text += (await reader.read()).value;
  const position = /^id: (.*)$/m.exec(text)![1];
  await reader.cancel(); // gone before any message
  await app.fetch(post("name=ada&text=while+away"), info());
  const back = await app.fetch(
    new Request("http://localhost/events", {
      headers: { "Last-Event-ID": position },
    }),
    info(),
  );
  assert.deepEqual((await readEvents(back, 1)).map((e) => e.data.text), [
    "while away",
  ]);
  await pubsub.close();
});
