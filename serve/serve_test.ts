// serve() on a real socket: runs on Deno, Node and Bun (the Node/Bun
// bundle of _tools/runtimes picks this file up). Signals and process
// exit are tested with real processes in shutdown_test.ts.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
import { PortInUseError, serve } from "@fetchkit/toolkit/serve";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const local = { hostname: "127.0.0.1", port: 0, handleSignals: false };

/** Whether a TCP connection to the port is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.on("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

Deno.test("serve(): listening when it returns; the handler gets the client address", async () => {
  let listened: unknown;
  const server = serve(
    (_request, info) => new Response(info.remoteAddr?.hostname ?? "none"),
    { ...local, onListen: (addr) => listened = addr },
  );
  try {
    assert.equal(server.addr.hostname, "127.0.0.1");
    assert.ok(server.addr.port > 0);
    assert.deepEqual(listened, server.addr);
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    assert.equal(await response.text(), "127.0.0.1");
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve(): router.fetch sees context.remoteAddr", async () => {
  const router = createRouter();
  router.get("/", ({ remoteAddr }) => new Response(`${remoteAddr?.hostname}`));
  const server = serve(router.fetch, local);
  try {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    assert.equal(await response.text(), "127.0.0.1");
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve(): a taken port throws PortInUseError naming it; bad options throw TypeError", async () => {
  const first = serve(() => new Response("ok"), local);
  try {
    const port = first.addr.port;
    assert.throws(
      () => serve(() => new Response(), { ...local, port }),
      (error: Error) =>
        error instanceof PortInUseError &&
        error.message === `Port ${port} on 127.0.0.1 is in use`,
    );
    assert.throws(
      () => serve(() => new Response(), { ...local, port: 70000 }),
      /port must be a whole number from 0 to 65535, got 70000/,
    );
    assert.throws(
      () => serve(() => new Response(), { ...local, shutdownTimeoutMs: -1 }),
      /shutdownTimeoutMs must be a number of ms >= 0, got -1/,
    );
  } finally {
    await first.shutdown();
  }
});

Deno.test("serve(): shutdown lets an in-flight request finish with 200, refuses new connections, then resolves finished", async () => {
  let started!: () => void;
  const inFlight = new Promise<void>((resolve) => started = resolve);
  const server = serve(async () => {
    started();
    await delay(500);
    return new Response("slow but whole");
  }, local);
  const port = server.addr.port;
  const slow = fetch(`http://127.0.0.1:${port}/`);
  await inFlight;
  const t0 = Date.now();
  let done = false;
  const finished = server.shutdown().then(() => done = true);
  await delay(100);
  assert.equal(await accepts(port), false, "new connections refused");
  assert.equal(done, false, "still draining");
  const response = await slow;
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "slow but whole");
  await finished;
  assert.ok(Date.now() - t0 < 5000);
});

Deno.test("serve(): shutdown ends an open event stream, so the server finishes", async () => {
  const server = serve(
    () =>
      createEventStreamResponse(async function* (signal: AbortSignal) {
        yield { data: "first" };
        await new Promise((resolve) =>
          signal.addEventListener("abort", resolve)
        );
      }),
    local,
  );
  const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
  const reader = response.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.equal(first, "data: first\n\n");
  const t0 = Date.now();
  await server.shutdown();
  assert.ok(Date.now() - t0 < 2000, `finished in ${Date.now() - t0} ms`);
  // The stream ended from the server's side.
  let rest = await reader.read();
  while (!rest.done) rest = await reader.read();
});

Deno.test("serve(): shutdown ends an event stream a router answers after a wait (Bun: its native routes track the promised answer)", async () => {
  const stream = () =>
    createEventStreamResponse(async function* (signal: AbortSignal) {
      yield { data: "first" };
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
    });
  const router = createRouter();
  // Answered by a promise from the handler itself, and from a middleware
  // that waits before next(): the two ways a chain's promise is made.
  router.get("/handler", async () => {
    await delay(1);
    return stream();
  });
  router.get("/middleware", async (_context, next) => {
    await delay(1);
    return await next();
  }, stream);
  const server = serve(router.fetch, local);
  const readers = [];
  for (const path of ["/handler", "/middleware"]) {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}${path}`);
    const reader = response.body!.getReader();
    assert.equal(
      new TextDecoder().decode((await reader.read()).value),
      "data: first\n\n",
    );
    readers.push(reader);
  }
  const t0 = Date.now();
  await server.shutdown();
  assert.ok(Date.now() - t0 < 2000, `finished in ${Date.now() - t0} ms`);
  for (const reader of readers) {
    let rest = await reader.read();
    while (!rest.done) rest = await reader.read();
  }
});

Deno.test({
  name:
    "serve(): requests still running at shutdownTimeoutMs are cut, and finished resolves",
  // Deno cannot cut a request once a graceful shutdown has begun.
  ignore: "Deno" in globalThis,
  async fn() {
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => started = resolve);
    let release!: () => void;
    const hang = new Promise<void>((resolve) => release = resolve);
    const server = serve(async () => {
      started();
      await hang;
      return new Response("late");
    }, { ...local, shutdownTimeoutMs: 300 });
    const slow = fetch(`http://127.0.0.1:${server.addr.port}/`).then(
      (response) => response.text(),
      (error) => `cut: ${error}`,
    );
    await inFlight;
    const t0 = Date.now();
    await server.shutdown();
    const took = Date.now() - t0;
    release();
    assert.ok(took >= 250 && took < 3000, `finished after ${took} ms`);
    assert.match(await slow, /^cut: /);
  },
});

Deno.test({
  name:
    "serve() on Bun: a handler's fetchkit.serve.bunRoutes hook becomes Bun.serve's routes",
  ignore: typeof (globalThis as { Bun?: unknown }).Bun === "undefined",
  async fn() {
    const handler = Object.assign(() => new Response("from the handler"), {
      [Symbol.for("fetchkit.serve.bunRoutes")]: () => ({
        "/native": new Response("from Bun's routes"),
      }),
    });
    const server = serve(handler, local);
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      assert.equal(
        await (await fetch(`${base}/native`)).text(),
        "from Bun's routes",
      );
      assert.equal(
        await (await fetch(`${base}/other`)).text(),
        "from the handler",
      );
    } finally {
      await server.shutdown();
    }
  },
});

Deno.test({
  name:
    "serve() on Bun: routes marked fetchkit.serve.bunServerInfo take Bun's server as their info, which finds the client by requestIP",
  ignore: typeof (globalThis as { Bun?: unknown }).Bun === "undefined",
  async fn() {
    type Info = {
      remoteAddr?: { hostname: string };
      requestIP?(request: Request): { address: string } | null;
    };
    const seen: Info[] = [];
    const answer = (request: Request, info: Info) => {
      seen.push(info);
      return new Response(
        `${info.remoteAddr?.hostname} ${info.requestIP?.(request)?.address}`,
      );
    };
    const handler = Object.assign(() => new Response("from the handler"), {
      [Symbol.for("fetchkit.serve.bunRoutes")]: () =>
        Object.defineProperty(
          { "/shared": answer },
          Symbol.for("fetchkit.serve.bunServerInfo"),
          { value: true },
        ),
    });
    const unmarked = Object.assign(() => new Response("from the handler"), {
      [Symbol.for("fetchkit.serve.bunRoutes")]: () => ({ "/own": answer }),
    });
    const servers = [serve(handler, local), serve(unmarked, local)];
    try {
      const [a, b] = servers.map((server) =>
        `http://127.0.0.1:${server.addr.port}`
      );
      for (let i = 0; i < 2; i++) {
        assert.equal(
          await (await fetch(`${a}/shared`)).text(),
          "undefined 127.0.0.1",
        );
      }
      assert.equal(seen[0], seen[1], "one info for both requests");
      for (let i = 0; i < 2; i++) {
        assert.equal(
          await (await fetch(`${b}/own`)).text(),
          "127.0.0.1 127.0.0.1",
        );
      }
      assert.notEqual(seen[2], seen[3], "an info per request, unmarked");
    } finally {
      await Promise.all(servers.map((server) => server.shutdown()));
    }
  },
});

Deno.test({
  name:
    "serve(): a client that never finishes its headers is cut (Node: headersTimeout; Bun: its own ~10 s)",
  // Deno's server has no such timeout (see the module docs).
  ignore: "Deno" in globalThis,
  async fn() {
    const bun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
    const server = serve(() => new Response("ok"), {
      ...local,
      node: { headersTimeout: 1000 },
    });
    try {
      const started = Date.now();
      const limit = bun ? 16_000 : 6000;
      const ended = await new Promise<number>((resolve, reject) => {
        const socket = connect(server.addr.port, "127.0.0.1");
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error(`still open after ${limit} ms`));
        }, limit);
        const done = () => {
          clearTimeout(timer);
          resolve(Date.now() - started);
        };
        socket.on(
          "connect",
          () => socket.write("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "),
        );
        socket.on("error", done);
        socket.on("close", done);
        socket.resume();
      });
      assert.ok(ended >= 900, `cut after ${ended} ms, not at once`);
      // Others are still served.
      const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
      assert.equal(await response.text(), "ok");
    } finally {
      await server.shutdown();
    }
  },
});

Deno.test("serve(): on a name to look up (localhost), a taken port still comes out as PortInUseError", async () => {
  const named = { ...local, hostname: "localhost" };
  let listened!: (port: number) => void;
  const bound = new Promise<number>((resolve) => listened = resolve);
  const first = serve(() => new Response("one"), {
    ...named,
    onListen: ({ port }) => listened(port),
  });
  try {
    const port = await bound;
    // Node binds after a DNS look-up, so the error comes through
    // `finished`; Deno and Bun throw at once.
    let error: unknown;
    try {
      const second = serve(() => new Response("two"), { ...named, port });
      await second.finished.catch((rejected) => error = rejected);
    } catch (thrown) {
      error = thrown;
    }
    assert.ok(error instanceof PortInUseError, String(error));
    assert.equal((error as PortInUseError).port, port);
  } finally {
    await first.shutdown();
  }
});
