import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  endTime,
  serverTiming,
  startTime,
  time,
} from "@fetchkit/toolkit/server-timing-middleware";

const ENTRY =
  /^([!#$%&'*+.^_`|~0-9A-Za-z-]+);dur=(\d+(?:\.\d+)?)(?:;desc="((?:[^"\\]|\\.)*)")?$/;

function parse(
  header: string | null,
): { name: string; dur: number; desc?: string }[] {
  assert.ok(header, "a Server-Timing header");
  return header.split(", ").map((part) => {
    const match = ENTRY.exec(part);
    assert.ok(match, `a well-formed entry: ${part}`);
    return {
      name: match[1],
      dur: Number(match[2]),
      ...(match[3] === undefined ? {} : { desc: match[3] }),
    };
  });
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test("serverTiming writes named entries, then total", async () => {
  const router = createRouter({
    middleware: [serverTiming({ enabled: true })],
  });
  router.get("/", async (context) => {
    const value = await time(context, "db", async () => {
      await wait(20);
      return 42;
    }, { description: 'Users "all"' });
    startTime(context, "render");
    await wait(10);
    endTime(context, "render");
    return new Response(String(value));
  });
  const response = await router.fetch(new Request("http://x/"));
  assert.equal(await response.text(), "42");
  const entries = parse(response.headers.get("Server-Timing"));
  assert.deepEqual(entries.map((e) => e.name), ["db", "render", "total"]);
  assert.equal(entries[0].desc, 'Users \\"all\\"');
  assert.ok(entries[0].dur >= 15, `db took ${entries[0].dur} ms`);
  assert.ok(entries[1].dur >= 5, `render took ${entries[1].dur} ms`);
  assert.ok(entries[2].dur >= entries[0].dur + entries[1].dur);
});

Deno.test("time() records a failing step and rethrows", async () => {
  const router = createRouter({
    middleware: [serverTiming({ enabled: true }), async (context, next) => {
      try {
        await time(context, "flaky", () => Promise.reject(new Error("boom")));
      } catch (error) {
        assert.equal((error as Error).message, "boom");
      }
      return next();
    }],
  });
  router.get("/", () => new Response("ok"));
  const response = await router.fetch(new Request("http://x/"));
  assert.deepEqual(
    parse(response.headers.get("Server-Timing")).map((e) => e.name),
    ["flaky", "total"],
  );
});

Deno.test("disabled: no header, time() still runs its function", async () => {
  const router = createRouter({
    middleware: [serverTiming({ enabled: false })],
  });
  router.get("/", async (context) => {
    startTime(context, "x");
    endTime(context, "x");
    return new Response(String(await time(context, "db", () => 7)));
  });
  const response = await router.fetch(new Request("http://x/"));
  assert.equal(await response.text(), "7");
  assert.equal(response.headers.get("Server-Timing"), null);
});

Deno.test("without the middleware, the timing functions do nothing", async () => {
  const router = createRouter();
  router.get("/", async (context) => {
    startTime(context, "x");
    endTime(context, "x");
    return new Response(String(await time(context, "db", () => 1)));
  });
  const response = await router.fetch(new Request("http://x/"));
  assert.equal(await response.text(), "1");
  assert.equal(response.headers.get("Server-Timing"), null);
});

Deno.test("names must be HTTP tokens; descriptions lose control characters", async () => {
  const router = createRouter({
    middleware: [serverTiming({ enabled: true })],
  });
  router.get("/", (context) => {
    assert.throws(
      () => startTime(context, "two words"),
      /must be an HTTP token/,
    );
    assert.throws(() => startTime(context, "a;dur=1"), /must be an HTTP token/);
    startTime(context, "step", { description: "line\r\nInjected: 1" });
    endTime(context, "step");
    endTime(context, "never-started");
    startTime(context, "unfinished");
    return new Response("ok");
  });
  const response = await router.fetch(new Request("http://x/"));
  const entries = parse(response.headers.get("Server-Timing"));
  assert.deepEqual(entries.map((e) => e.name), ["step", "total"]);
  assert.equal(entries[0].desc, "lineInjected: 1");
});

Deno.test("total can be left out; precision rounds", async () => {
  const router = createRouter({
    middleware: [serverTiming({ enabled: true, total: false, precision: 0 })],
  });
  router.get("/", async (context) => {
    await time(context, "a", () => wait(2));
    return new Response("ok");
  });
  const header = (await router.fetch(new Request("http://x/"))).headers.get(
    "Server-Timing",
  );
  assert.match(header ?? "", /^a;dur=\d+$/);
  assert.throws(
    () => serverTiming({ precision: 1.5 }),
    /precision must be an integer/,
  );
});

Deno.test("a response with immutable headers is copied with the header", async () => {
  const router = createRouter({
    middleware: [serverTiming({ enabled: true })],
  });
  router.get("/", () => Response.redirect("http://x/elsewhere", 302));
  const response = await router.fetch(new Request("http://x/"));
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("Location"), "http://x/elsewhere");
  assert.match(response.headers.get("Server-Timing") ?? "", /^total;dur=/);
});

Deno.test("at most 100 entries per request", async () => {
  const router = createRouter({
    middleware: [serverTiming({ enabled: true })],
  });
  router.get("/", async (context) => {
    for (let i = 0; i < 150; i++) await time(context, `s${i}`, () => i);
    return new Response("ok");
  });
  const entries = parse(
    (await router.fetch(new Request("http://x/"))).headers.get("Server-Timing"),
  );
  assert.equal(entries.length, 101);
});

Deno.test("serverTiming: one under another (a mount() section with its own) stays off; entries land in the outer one", async () => {
  const router = createRouter({
    middleware: [serverTiming({ enabled: true })],
  });
  router.mount("/api", (api) => {
    api.use(serverTiming({ enabled: true }));
    api.get("/items", async (context) => {
      await time(context, "db", () => wait(5));
      return new Response("items");
    });
  });
  const response = await router.fetch(
    new Request("http://localhost/api/items"),
  );
  const header = response.headers.get("Server-Timing");
  const entries = parse(header);
  assert.deepEqual(entries.map((entry) => entry.name), ["db", "total"]);
  assert.ok(entries[1].dur >= entries[0].dur);
  await response.body?.cancel();
});
