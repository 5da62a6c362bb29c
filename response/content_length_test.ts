// The toolkit's own response helpers know how long their bodies are, so the
// logger's default format prints sizes instead of "-", and HEAD answers
// carry the length, without encoding string bodies before Deno.serve does.

import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { createJsonResponse } from "@fetchkit/toolkit/response/json";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { utf8Length } from "./body_size.ts";

Deno.test("string bodies are sent as strings; HEAD and the logger get their size in bytes", async () => {
  const page = createHtmlResponse(html`<p>${"héllo ✓"}</p>`);
  // No header: Deno.serve adds it (the wire test below checks that).
  assert.equal(page.headers.get("Content-Length"), null);
  assert.equal(page.headers.get("Content-Type"), "text/html; charset=utf-8");
  assert.equal(await page.text(), "<p>héllo ✓</p>");
  const json = createJsonResponse({ name: "Zoë" });
  assert.equal(
    json.headers.get("Content-Type"),
    "application/json; charset=utf-8",
  );
  assert.deepEqual(await json.json(), { name: "Zoë" });

  const lines: string[] = [];
  const router = createRouter({
    middleware: [logger({ log: (line) => lines.push(line) })],
  });
  router.get("/page", () => createHtmlResponse(html`<p>${"héllo ✓"}</p>`));
  const head = await router.fetch(
    new Request("http://localhost/page", { method: "HEAD" }),
  );
  assert.equal(head.body, null);
  assert.equal(head.headers.get("Content-Length"), "17"); // é is 2 bytes, ✓ is 3
  await router.fetch(new Request("http://localhost/page"));
  assert.deepEqual(lines.map((line) => line.replace(/^\[[^\]]+\] /, "")), [
    "HEAD /page 200 17",
    "GET /page 200 17",
  ]);
});

Deno.test("utf8Length counts what TextEncoder makes, lone surrogates included", () => {
  const encoder = new TextEncoder();
  const samples = [
    "",
    "ascii only",
    "é✓€",
    "😀 emoji pair",
    "\ud800 lone high",
    "lone low \udc00",
    "\udbff\udfff",
    "\ud800\ud800\udc00",
    "end high \ud83d",
  ];
  // Random strings over every range, surrogates included.
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let n = 0; n < 500; n++) {
    let text = "";
    for (let i = next() % 12; i > 0; i--) {
      const range = next() % 4;
      text += String.fromCharCode(
        range === 0
          ? next() % 0x80
          : range === 1
          ? 0x80 + next() % 0x780
          : range === 2
          ? 0xd800 + next() % 0x800
          : 0x800 + next() % 0xf800,
      );
    }
    samples.push(text);
  }
  // Long texts (counted natively where the runtime can), the rare
  // characters at the start, the end and across the cut-over length.
  const pad = "x".repeat(70);
  for (const text of samples.slice(0, 120)) {
    samples.push(pad + text, text + pad, text.repeat(12), pad + text + pad);
  }
  for (const text of samples) {
    assert.equal(
      utf8Length(text),
      encoder.encode(text).byteLength,
      JSON.stringify(text),
    );
  }
});

Deno.test("a stream body has no Content-Length; a given one is kept", async () => {
  const streamed = createHtmlResponse(
    new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("<p>x</p>"));
        controller.close();
      },
    }),
  );
  assert.equal(streamed.headers.get("Content-Length"), null);
  await streamed.body?.cancel();
  const given = createJsonResponse([1], { headers: { "Content-Length": "3" } });
  assert.equal(given.headers.get("Content-Length"), "3");
  await given.body?.cancel();
});

Deno.test("redirect says its body is empty", () => {
  assert.equal(redirect("/login").headers.get("Content-Length"), "0");
});

Deno.test("the logger's default format shows the sizes on the wire", async () => {
  const lines: string[] = [];
  const router = createRouter({
    middleware: [logger({ log: (line) => lines.push(line) })],
  });
  router.get("/page", () => createHtmlResponse(html`<h1>${"Ada"}</h1>`));
  router.get("/data", () => createJsonResponse({ ok: true }));
  router.get("/away", () => redirect("/page"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    for (const path of ["/page", "/data", "/away"]) {
      const response = await fetch(
        `http://127.0.0.1:${server.addr.port}${path}`,
        {
          redirect: "manual",
        },
      );
      const length = response.headers.get("Content-Length");
      assert.equal(length, String((await response.arrayBuffer()).byteLength));
    }
  } finally {
    await server.shutdown();
  }
  assert.deepEqual(lines.map((line) => line.replace(/^\[[^\]]+\] /, "")), [
    "GET /page 200 12",
    "GET /data 200 11",
    "GET /away 302 0",
  ]);
});
