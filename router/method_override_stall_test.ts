// methodOverride() against clients that stall or trickle over a real
// socket (Deno.serve, Deno.connect): Deno-only, beside
// method_override_test.ts, which stays portable so its tests run on Node
// and Bun too (and through Bun's native routes).
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { methodOverride } from "@fetchkit/toolkit/method-override-middleware";

Deno.test("a client that stalls mid-body does not hang: formData() reports the stall", async () => {
  const { formData } = await import("@fetchkit/toolkit/form-data-middleware");
  const router = createRouter({
    middleware: [
      methodOverride({ timeout: 100 }),
      formData({ idleTimeout: 150 }),
    ],
  });
  router.put("/x", () => new Response("put"));
  router.post("/x", () => new Response("post"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  const connection = await Deno.connect({
    hostname: "127.0.0.1",
    port: server.addr.port,
  });
  try {
    const head = "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n";
    await connection.write(
      new TextEncoder().encode(head + "a=1&_method=PUT&b="),
    );
    // The body stops here. Without a timeout, methodOverride() would wait forever.
    const buffer = new Uint8Array(4096);
    const read = await connection.read(buffer);
    const answer = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
    assert.match(answer, /^HTTP\/1\.1 408 /, "the stall is reported, not hung");
  } finally {
    connection.close();
    await server.shutdown();
  }
});

/**
 * Sends `head` and `body` to a server with methodOverride() and formData(),
 * then nothing more: the milliseconds until it answers, and the answer.
 */
async function stall(
  head: string,
  body: string,
  timeouts: { override: number; idle: number },
): Promise<{ elapsed: number; answer: string }> {
  const { formData } = await import("@fetchkit/toolkit/form-data-middleware");
  const router = createRouter({
    middleware: [
      methodOverride({ timeout: timeouts.override }),
      formData({ idleTimeout: timeouts.idle }),
    ],
  });
  router.post("/x", () => new Response("post"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  const connection = await Deno.connect({
    hostname: "127.0.0.1",
    port: server.addr.port,
  });
  try {
    await connection.write(new TextEncoder().encode(head + body));
    const sent = performance.now();
    const buffer = new Uint8Array(4096);
    const read = await connection.read(buffer);
    const elapsed = performance.now() - sent;
    return {
      elapsed,
      answer: new TextDecoder().decode(buffer.subarray(0, read ?? 0)),
    };
  } finally {
    connection.close();
    await server.shutdown();
  }
}

Deno.test("the wait for the _method field counts toward formData()'s idleTimeout", async () => {
  // Timeouts long enough that a loaded machine's delays stay well below
  // the gap being tested: the 408 comes after idleTimeout (800 ms), not
  // after the override's wait plus idleTimeout (1400 ms).
  const timeouts = { override: 600, idle: 800 };
  const type = "Content-Type: application/x-www-form-urlencoded\r\n";
  const cases = [
    // A small declared body: read whole, in one native read.
    ["Content-Length: 100\r\n", "a=1&b="],
    // A chunked body: read chunk by chunk.
    ["Transfer-Encoding: chunked\r\n", "6\r\na=1&b=\r\n"],
    // Nothing of the body at all.
    ["Content-Length: 100\r\n", ""],
    [
      "Content-Type: multipart/form-data; boundary=b\r\n" +
      "Transfer-Encoding: chunked\r\n",
      "4\r\n--b\r\n",
    ],
  ] as const;
  for (const [headers, body] of cases) {
    const head = `POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n${
      headers.startsWith("Content-Type") ? "" : type
    }${headers}\r\n`;
    const { elapsed, answer } = await stall(head, body, timeouts);
    assert.match(answer, /^HTTP\/1\.1 408 /, `${headers}: ${answer}`);
    assert.ok(
      elapsed >= timeouts.idle - 50 && elapsed < 1200,
      `${headers}: 408 after ${
        elapsed.toFixed(0)
      } ms, want about ${timeouts.idle}`,
    );
  }
});

Deno.test("a slow upload that sent the field first keeps its override after the wait", async () => {
  const { formData } = await import("@fetchkit/toolkit/form-data-middleware");
  const router = createRouter({
    middleware: [methodOverride({ timeout: 150 }), formData()],
  });
  router.post("/x", () => new Response("post"));
  router.put(
    "/x",
    ({ get }) => new Response(`put ${[...get(FormData).keys()]}`),
  );
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  const encoder = new TextEncoder();
  const forms = [
    ["application/x-www-form-urlencoded", "_method=PUT&data=", ""],
    [
      "multipart/form-data; boundary=XX",
      '--XX\r\nContent-Disposition: form-data; name="_method"\r\n\r\nPUT\r\n' +
      '--XX\r\nContent-Disposition: form-data; name="data"\r\n\r\n',
      "\r\n--XX--\r\n",
    ],
  ] as const;
  try {
    for (const [type, head, tail] of forms) {
      const connection = await Deno.connect({
        hostname: "127.0.0.1",
        port: server.addr.port,
      });
      try {
        // The rest comes 8 bytes at a time, well past the override's wait.
        const chunks = 6;
        const length = head.length + chunks * 8 + tail.length;
        await connection.write(encoder.encode(
          `POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\n` +
            `Content-Length: ${length}\r\nConnection: close\r\n\r\n${head}`,
        ));
        for (let i = 0; i < chunks; i++) {
          await new Promise((resolve) => setTimeout(resolve, 60));
          await connection.write(encoder.encode("abcdefgh"));
        }
        await connection.write(encoder.encode(tail));
        let answer = "";
        const buffer = new Uint8Array(4096);
        for (let read; (read = await connection.read(buffer)) !== null;) {
          answer += new TextDecoder().decode(buffer.subarray(0, read));
        }
        assert.match(answer, /^HTTP\/1\.1 200 /, `${type}: ${answer}`);
        assert.ok(answer.endsWith("put _method,data"), `${type}: ${answer}`);
      } finally {
        connection.close();
      }
    }
  } finally {
    await server.shutdown();
  }
});

/** Sends a form head declaring `declared` bytes and `sent` of them; the answer and its time. */
async function stalledPost(
  router: { fetch: (request: Request) => Response | Promise<Response> },
  declared: number,
  sent: string,
): Promise<{ answer: string; ms: number }> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  const connection = await Deno.connect({
    hostname: "127.0.0.1",
    port: server.addr.port,
  });
  try {
    const started = performance.now();
    await connection.write(
      new TextEncoder().encode(
        "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
          "Content-Type: application/x-www-form-urlencoded\r\n" +
          `Content-Length: ${declared}\r\n\r\n${sent}`,
      ),
    );
    const buffer = new Uint8Array(4096);
    const read = await connection.read(buffer);
    return {
      answer: new TextDecoder().decode(buffer.subarray(0, read ?? 0)),
      ms: performance.now() - started,
    };
  } finally {
    connection.close();
    await server.shutdown();
  }
}

Deno.test("a declared length over maxBodyBytes gets its 413 at once, before methodOverride() waits for the body", async () => {
  const { formData } = await import("@fetchkit/toolkit/form-data-middleware");
  const router = createRouter({
    middleware: [methodOverride({ maxBodyBytes: 16 * 1024, timeout: 3000 })],
  });
  router.post(
    "/login",
    formData({ maxTotalSize: 16 * 1024 }),
    () => new Response("in"),
  );
  // 43 bytes of a declared 100,000, then nothing.
  const { answer, ms } = await stalledPost(
    router,
    100_000,
    "email=ada%40example.com&password=correct-ho",
  );
  assert.match(answer, /^HTTP\/1\.1 413 /);
  assert.match(answer, /16384 bytes/);
  assert.match(answer, /Content-Length declares 100000 bytes/);
  assert.ok(
    ms < 1000,
    `answered after ${ms.toFixed(0)} ms, not after the wait`,
  );
});

Deno.test("methodOverride()'s default maxBodyBytes is the form parser's 64 MiB: a larger declared body is refused at once", async () => {
  const router = createRouter({
    middleware: [methodOverride({ timeout: 3000 })],
  });
  router.post("/login", () => new Response("in"));
  const { answer, ms } = await stalledPost(
    router,
    64 * 1024 * 1024 + 1,
    "_method=PUT&a=1",
  );
  assert.match(answer, /^HTTP\/1\.1 413 /);
  assert.ok(ms < 1000, `answered after ${ms.toFixed(0)} ms`);
});
