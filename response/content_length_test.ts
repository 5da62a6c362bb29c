// The toolkit's own response helpers say how long their bodies are, so the
// logger's default format prints sizes instead of "-".

import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { createJsonResponse } from "@fetchkit/toolkit/response/json";
import { redirect } from "@fetchkit/toolkit/response/redirect";

Deno.test("createHtmlResponse and createJsonResponse set Content-Length in bytes", async () => {
  const page = createHtmlResponse(html`<p>${"héllo ✓"}</p>`);
  const pageBytes = new Uint8Array(await page.clone().arrayBuffer());
  assert.equal(page.headers.get("Content-Length"), String(pageBytes.length));
  assert.equal(pageBytes.length, 17); // é is 2 bytes, ✓ is 3
  assert.equal(await page.text(), "<p>héllo ✓</p>");
  const json = createJsonResponse({ name: "Zoë" });
  assert.equal(json.headers.get("Content-Length"), "15");
  assert.deepEqual(await json.json(), { name: "Zoë" });
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
