/**
 * Real HTTP on Node and Bun: the resources example (`examples/resources/
 * app.ts`) served over a loopback socket, through `@hono/node-server` on
 * Node and `Bun.serve` on Bun, and driven with `fetch`. Registered with
 * the harness; `runtimes_test.ts` bundles this file for each runtime.
 *
 * @module
 */
import assert from "node:assert/strict";
import { serve as serveNode } from "@hono/node-server";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { createJsonResponse } from "@fetchkit/toolkit/response/json";
import { createApp } from "../../examples/resources/app.ts";
import { test } from "./harness.ts";

type Handler = (request: Request) => Response | Promise<Response>;

interface Served {
  base: string;
  close(): Promise<void>;
}

interface BunRuntime {
  serve(options: { fetch: Handler; port: number; hostname: string }): {
    port: number;
    stop(closeActive?: boolean): Promise<void> | void;
  };
}

/** Serves `fetch` on a free loopback port with the runtime's server. */
export function listen(fetch: Handler): Promise<Served> {
  const bun = (globalThis as { Bun?: BunRuntime }).Bun;
  if (bun !== undefined) {
    const server = bun.serve({ fetch, port: 0, hostname: "127.0.0.1" });
    return Promise.resolve({
      base: `http://127.0.0.1:${server.port}`,
      close: async () => {
        await server.stop(true);
      },
    });
  }
  return new Promise((resolve) => {
    const server = serveNode(
      { fetch, port: 0, hostname: "127.0.0.1" },
      (info) =>
        resolve({
          base: `http://127.0.0.1:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              (server as { closeAllConnections?: () => void })
                .closeAllConnections?.();
            }),
        }),
    );
  });
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields);

test("resources example over a socket: create, read, update through method override, delete", async () => {
  const lines: string[] = [];
  const app = createApp({ log: (line) => lines.push(line) });
  const { base, close } = await listen(app.fetch);
  try {
    const home = await fetch(`${base}/`);
    assert.equal(home.status, 200);
    assert.match(home.headers.get("content-type")!, /^text\/html/);
    await home.text();

    assert.deepEqual(await (await fetch(`${base}/posts`)).json(), []);

    const created = await fetch(`${base}/posts`, {
      method: "POST",
      body: form({ title: "Hi <there>", body: "b" }),
    });
    assert.equal(created.status, 201);
    assert.deepEqual(await created.json(), {
      id: 1,
      title: "Hi <there>",
      body: "b",
    });

    const edit = await fetch(`${base}/posts/1/edit`);
    assert.match(await edit.text(), /value="Hi &lt;there&gt;"/);

    // A multipart form with _method=PUT, as a browser sends it.
    const multipart = new FormData();
    multipart.set("_method", "PUT");
    multipart.set("title", "New");
    multipart.set("body", "c");
    const updated = await fetch(`${base}/posts/1`, {
      method: "POST",
      body: multipart,
      redirect: "manual",
    });
    assert.ok(
      updated.status === 200 || updated.status === 303,
      `PUT through override answered ${updated.status}`,
    );
    await updated.body?.cancel();
    assert.deepEqual(await (await fetch(`${base}/posts/1`)).json(), {
      id: 1,
      title: "New",
      body: "c",
    });

    const head = await fetch(`${base}/posts/1`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");

    const removed = await fetch(`${base}/posts/1`, {
      method: "POST",
      body: form({ _method: "DELETE" }),
      redirect: "manual",
    });
    assert.ok(removed.status < 400, `DELETE answered ${removed.status}`);
    await removed.body?.cancel();
    const gone = await fetch(`${base}/posts/1`);
    assert.equal(gone.status, 404);
    assert.equal(await gone.text(), "Not Found");

    const wrongMethod = await fetch(`${base}/`, { method: "DELETE" });
    assert.equal(wrongMethod.status, 405);
    assert.ok(wrongMethod.headers.get("allow")?.includes("GET"));
    await wrongMethod.body?.cancel();

    const malformed = await fetch(`${base}/posts`, {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=x" },
      body: "--x\r\nnot a part",
    });
    assert.equal(malformed.status, 400);
    await malformed.body?.cancel();
    // The server keeps serving.
    assert.equal((await fetch(`${base}/posts`)).status, 200);
    assert.ok(lines.some((line) => line.includes("GET /posts")), "logged");
  } finally {
    await close();
  }
});

test("the response helpers build the server's Response class (on Node, the adapter's lighter one)", async () => {
  const { close } = await listen(() => new Response("x"));
  try {
    // @hono/node-server installs its class when it serves, after the
    // package loaded; it writes those responses without a body stream.
    for (
      const response of [
        createJsonResponse({ a: 1 }),
        createHtmlResponse("<p>"),
      ]
    ) {
      assert.equal(
        Object.getPrototypeOf(response),
        globalThis.Response.prototype,
      );
    }
  } finally {
    await close();
  }
});
