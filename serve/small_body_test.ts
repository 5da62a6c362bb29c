// Small request bodies through serve() on a real socket, sent whole with
// their headers, late, or never: on Node such a body is read before the
// handler runs when it arrived with the headers, so each way must still
// reach the handler (or its 408). Runs on Deno, Node and Bun (the
// _tools/runtimes bundle picks this file up).
import assert from "node:assert/strict";
import { connect } from "node:net";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData, FormFields } from "@fetchkit/toolkit/form-data-middleware";
import { serve } from "@fetchkit/toolkit/serve";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const local = { hostname: "127.0.0.1", port: 0, handleSignals: false };

/**
 * Sends `parts` on one connection, waiting `gap` ms between them, and
 * gives the response's status and body once its `Content-Length` bytes
 * came (a server may keep the connection of an unfinished request open).
 */
function raw(
  port: number,
  parts: string[],
  gap: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("latin1");
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      const status = Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    };
    socket.on("data", (chunk: string) => {
      text += chunk;
      const end = text.indexOf("\r\n\r\n");
      const length = text.match(/\r\ncontent-length: *(\d+)/i)?.[1];
      if (
        end !== -1 && length !== undefined &&
        text.length - end - 4 >= Number(length)
      ) finish();
    });
    socket.on("error", (error) => done ? undefined : reject(error));
    socket.on("close", finish);
    socket.on("connect", async () => {
      for (let i = 0; i < parts.length; i++) {
        if (i > 0) await delay(gap);
        if (!socket.destroyed) socket.write(parts[i]!);
      }
    });
  });
}

function head(length: number, type = "application/x-www-form-urlencoded") {
  return `POST /form HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n` +
    `Content-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;
}

function app() {
  const router = createRouter();
  router.post(
    "/form",
    formData({ idleTimeout: 300 }),
    ({ get }) =>
      new Response(`${get(FormFields)?.name}|${get(FormData).get("n")}`),
  );
  router.post("/json", async ({ request }) => {
    const value = await request.json();
    return new Response(`${value.name} ${request.bodyUsed}`);
  });
  router.post("/twice", async ({ request }) => {
    const first = await request.text();
    try {
      await request.text();
      return new Response(`read twice: ${first}`);
    } catch {
      return new Response(`once: ${first}`);
    }
  });
  return serve(router.fetch, local);
}

Deno.test("serve(): a small form sent with its headers reaches the handler", async () => {
  const server = app();
  try {
    const body = "name=Ada+L&n=1";
    const got = await raw(server.addr.port, [head(body.length) + body], 0);
    assert.deepEqual(got, { status: 200, body: "Ada L|1" });
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve(): a small form whose body comes after its headers, or in pieces", async () => {
  const server = app();
  try {
    const body = "name=Ada&n=2";
    const late = await raw(server.addr.port, [head(body.length), body], 50);
    assert.deepEqual(late, { status: 200, body: "Ada|2" });
    const pieces = await raw(
      server.addr.port,
      [head(body.length) + body.slice(0, 4), body.slice(4)],
      50,
    );
    assert.deepEqual(pieces, { status: 200, body: "Ada|2" });
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve(): a small form whose body stalls gets 408 after idleTimeout", async () => {
  const server = app();
  try {
    const started = performance.now();
    const stalled = await raw(
      server.addr.port,
      [head(20) + "name=A", "&n=1"],
      // Longer than idleTimeout: the rest never comes in time.
      2000,
    );
    assert.equal(stalled.status, 408);
    assert.match(stalled.body, /300/);
    assert.ok(performance.now() - started < 1900);
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve(): a small body sent with its headers reads as JSON, once", async () => {
  const server = app();
  try {
    const json = '{"name":"Ada"}';
    const got = await raw(
      server.addr.port,
      [
        head(json.length, "application/json").replace("/form", "/json") +
        json,
      ],
      0,
    );
    assert.deepEqual(got, { status: 200, body: "Ada true" });
    const twice = await raw(
      server.addr.port,
      [head(3, "text/plain").replace("/form", "/twice") + "abc"],
      0,
    );
    assert.deepEqual(twice, { status: 200, body: "once: abc" });
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve(): on Node, a small form sent with its headers is answered without waiting for a read", async () => {
  const runtime = globalThis as { Deno?: unknown; Bun?: unknown };
  // Deno and Bun read the body themselves; this path is Node's.
  if (runtime.Deno !== undefined || runtime.Bun !== undefined) return;
  const router = createRouter();
  router.post(
    "/form",
    formData(),
    ({ get }) => new Response(String(get(FormFields)?.name)),
  );
  const answers: boolean[] = [];
  const server = serve((request, info) => {
    const answer = router.fetch(request, info);
    answers.push(answer instanceof Response);
    return answer;
  }, local);
  try {
    const body = "name=Ada";
    const got = await raw(server.addr.port, [head(body.length) + body], 0);
    assert.deepEqual(got, { status: 200, body: "Ada" });
    assert.deepEqual(answers, [true]);
  } finally {
    await server.shutdown();
  }
});
