import assert from "node:assert/strict";
import { createLiveApp } from "./app.ts";

const info = {
  remoteAddr: { hostname: "192.0.2.1", port: 1, transport: "tcp" },
};

Deno.test("live: the page carries a nonce that its CSP names", async () => {
  const app = createLiveApp({ log: () => {} });
  const response = await app.fetch(new Request("http://localhost/"), info);
  const page = await response.text();
  const nonce = /<script nonce="([^"]+)">/.exec(page)?.[1];
  assert.ok(nonce);
  const csp = response.headers.get("Content-Security-Policy")!;
  assert.ok(csp.includes(`script-src 'nonce-${nonce}'`), csp);
  assert.ok(csp.includes(`style-src 'nonce-${nonce}'`), csp);
  assert.match(response.headers.get("X-Request-Id")!, /^[0-9a-f-]{36}$/);
});

Deno.test("live: events resume after Last-Event-ID, and the source ends on abort", async () => {
  const lines: string[] = [];
  const app = createLiveApp({
    intervalMs: 10,
    log: (line) => lines.push(line),
  });
  const client = new AbortController();
  const response = await app.fetch(
    new Request("http://localhost/events", {
      signal: client.signal,
      headers: { "Last-Event-ID": "2" },
    }),
    info,
  );
  assert.equal(response.headers.get("Content-Type"), "text/event-stream");
  assert.equal(response.headers.get("RateLimit-Policy"), '"streams";q=30;w=60');
  const reader = response.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  let text = "";
  while (!text.includes("id: 4\n")) text += (await reader.read()).value;
  assert.match(text, /^event: count\nid: 3\ndata: 3\n\nevent: count\nid: 4\n/);
  assert.equal(app.openStreams(), 1);
  client.abort();
  await reader.cancel().catch(() => {});
  for (let i = 0; i < 50 && app.openStreams() > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(app.openStreams(), 0);
  assert.match(lines[0], /^192\.0\.2\.1 [0-9a-f-]{36} GET \/events 200$/);
});
