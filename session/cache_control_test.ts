// session() keeps answers that depend on the session out of caches, and
// refuses a second session() on one key or a replaced session (portable:
// runs on Node and Bun too).
import assert from "node:assert/strict";
import {
  createContextKey,
  createRouter,
  type Middleware,
} from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";

const cookie = { name: "sid", secrets: ["secret".repeat(6)] };
const Key = createContextKey<Session>();

function appWith(...extra: Middleware[]) {
  const storage = createMemorySessionStorage({ cookie });
  const router = createRouter({
    middleware: [session(Key, storage), ...extra],
  });
  router.get("/plain", () => new Response("no session"));
  router.get("/read", ({ get }) => new Response(`n=${get(Key)!.get("n")}`));
  router.get("/has", ({ get }) => new Response(String(get(Key)!.has("n"))));
  router.get("/id", ({ get }) => new Response(get(Key)!.id));
  router.post("/write", ({ get }) => {
    get(Key)!.set("n", 1);
    return Response.redirect("http://localhost/read", 303);
  });
  router.get("/public", ({ get }) =>
    new Response(`n=${get(Key)!.get("n")}`, {
      headers: { "Cache-Control": "public, max-age=3600" },
    }));
  router.get("/private", ({ get }) =>
    new Response(`n=${get(Key)!.get("n")}`, {
      headers: { "Cache-Control": "private, max-age=60" },
    }));
  return (path: string, init?: RequestInit): Promise<Response> =>
    Promise.resolve(router.fetch(new Request(`http://localhost${path}`, init)));
}

Deno.test("session(): a response that read or wrote the session is no-store; one that did not is untouched", async () => {
  const request = appWith();
  const written = await request("/write", { method: "POST" });
  assert.equal(written.status, 303, "an immutable redirect, copied");
  assert.equal(written.headers.get("cache-control"), "no-store");
  const sid = written.headers.get("set-cookie")!.split(";")[0];
  for (const path of ["/read", "/has", "/id"]) {
    const response = await request(path, { headers: { cookie: sid } });
    assert.equal(response.headers.get("cache-control"), "no-store", path);
    assert.equal(response.headers.get("set-cookie"), null, path);
    await response.body?.cancel();
  }
  const plain = await request("/plain", { headers: { cookie: sid } });
  assert.equal(plain.headers.get("cache-control"), null);
  await plain.body?.cancel();
  // A cacheable answer built on the session is made no-store; a private
  // one is the application's choice and stays.
  const shared = await request("/public", { headers: { cookie: sid } });
  assert.equal(shared.headers.get("cache-control"), "no-store");
  await shared.body?.cancel();
  const own = await request("/private", { headers: { cookie: sid } });
  assert.equal(own.headers.get("cache-control"), "private, max-age=60");
  await own.body?.cancel();
});

async function quietly<T>(fn: () => Promise<T>): Promise<[T, unknown[][]]> {
  const logged: unknown[][] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    return [await fn(), logged];
  } finally {
    console.error = error;
  }
}

Deno.test("session(): a second session() on the same key is refused with a clear error", async () => {
  const storage = createMemorySessionStorage({ cookie });
  const request = appWith(session(Key, storage));
  const [response, logged] = await quietly(() =>
    request("/write", { method: "POST" })
  );
  assert.equal(response.status, 500);
  assert.equal(response.headers.get("set-cookie"), null);
  assert.match(
    String(logged.flat().find((item) => item instanceof Error)),
    /session\(\): a session is already loaded under this context key by another session\(\) middleware/,
  );
});

Deno.test("session(): a handler replacing the session in the context is refused, nothing saved", async () => {
  const storage = createMemorySessionStorage({ cookie });
  const router = createRouter({ middleware: [session(Key, storage)] });
  router.post("/swap", async (context) => {
    const other = await storage.read(null);
    other.set("n", 2);
    context.set(Key, other);
    return new Response("swapped");
  });
  const [response, logged] = await quietly(() =>
    Promise.resolve(
      router.fetch(new Request("http://localhost/swap", { method: "POST" })),
    )
  );
  assert.equal(response.status, 500);
  assert.equal(response.headers.get("set-cookie"), null);
  assert.match(
    String(logged.flat().find((item) => item instanceof Error)),
    /session\(\): the session under this context key was replaced during the request/,
  );
});
