// cors() as a real browser sees it: a page on one origin calls two APIs on
// another origin with fetch(); chromium decides what the page may read.

import assert from "node:assert/strict";
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { cors, type CorsOptions } from "@fetchkit/toolkit/cors-middleware";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { chromiumOrSkip, dumpDom } from "../_tools/chromium.ts";

const chromium = await chromiumOrSkip("the CORS browser test");

function api(options: CorsOptions): Router {
  const router = createRouter({ middleware: [cors(options)] });
  router.put("/items/:id", async ({ params, request }) =>
    new Response(
      `saved ${params.id} with ${
        request.headers.get("x-token")
      }: ${await request.text()}`,
      { headers: { "X-Request-Id": "r-42" } },
    ));
  return router;
}

/** A string as a JavaScript literal inside <script> (entities do not apply there). */
function js(value: string) {
  return html.raw(JSON.stringify(value));
}

function serve(router: Router): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
}

Deno.test({
  name:
    "cors: chromium reads an allowed cross-origin response and is refused the others",
  ignore: chromium === undefined,
  async fn() {
    const page = createRouter();
    const pageServer = serve(page);
    // The page is on 127.0.0.1, the APIs on localhost: different origins.
    const pageOrigin = `http://127.0.0.1:${pageServer.addr.port}`;
    const servers = [
      pageServer,
      serve(api({
        origin: [pageOrigin],
        credentials: true,
        allowHeaders: ["X-Token", "Content-Type"],
        exposeHeaders: ["X-Request-Id"],
        maxAge: 60,
      })),
      serve(api({ origin: ["https://elsewhere.example"] })),
      serve(api({ origin: "*" })),
    ];
    const [allowed, other, any] = servers.slice(1).map((server) =>
      `http://localhost:${server.addr.port}`
    );
    page.get("/", () =>
      createHtmlResponse(html`
        <!doctype html>
        <body>
          <pre id="out"></pre>
          <script>
        const out = document.getElementById("out");
        async function call(name, url, credentials) {
          try {
            const response = await fetch(url + "/items/7", {
              method: "PUT",
              credentials,
              headers: { "X-Token": "t1", "Content-Type": "text/plain" },
              body: "hello",
            });
            out.textContent += name + ": " + (await response.text()) + " | id " +
              response.headers.get("X-Request-Id") + "\\n";
          } catch (error) {
            out.textContent += name + ": blocked\\n";
          }
        }
        (async () => {
          await call("allowed", ${js(allowed)}, "include");
          await call("other origin", ${js(other)}, "omit");
          await call("any origin", ${js(any)}, "omit");
          await call("any origin with cookies", ${js(any)}, "include");
          out.textContent += "done";
        })();
        </script>
      `));
    try {
      const dom = await dumpDom(chromium!, `${pageOrigin}/`);
      const lines = /<pre id="out">([^<]*)<\/pre>/.exec(dom)?.[1].split("\n");
      assert.deepEqual(lines, [
        "allowed: saved 7 with t1: hello | id r-42",
        "other origin: blocked",
        // Without exposeHeaders the browser hides X-Request-Id.
        "any origin: saved 7 with t1: hello | id null",
        // "*" never goes with credentials: the browser refuses.
        "any origin with cookies: blocked",
        "done",
      ], dom);
    } finally {
      for (const server of servers) await server.shutdown();
    }
  },
});
