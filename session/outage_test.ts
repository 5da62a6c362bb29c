// session() tells a store outage from the application's bug by what the
// error says, not its class (portable: runs on Node and Bun too).
import assert from "node:assert/strict";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  type Session,
  session,
  type SessionStorage,
} from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";

const cookie = { secrets: ["secret".repeat(6)] };

function appSaving(failure: Error) {
  const inner = createMemorySessionStorage({ cookie });
  const storage: SessionStorage = {
    read: (header) => inner.read(header),
    save: () => Promise.reject(failure),
  };
  const Key = createContextKey<Session>();
  const router = createRouter({ middleware: [session(Key, storage)] });
  router.get("/", (context) => {
    context.get(Key)!.set("n", 1);
    return new Response("saved");
  });
  return () => router.fetch(new Request("http://localhost/"));
}

Deno.test("session(): Deno KV's full disk (a TypeError) is a 503 with Retry-After; other TypeErrors stay a 500", async () => {
  const logged: unknown[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    const full = await appSaving(new TypeError("database or disk is full"))();
    assert.equal(full.status, 503);
    assert.equal(full.headers.get("retry-after"), "5");
    assert.match(await full.text(), /^Service Unavailable/);
    const bug = await appSaving(new TypeError("x is not a function"))();
    assert.equal(bug.status, 500);
    assert.equal(await bug.text(), "Internal Server Error");
  } finally {
    console.error = error;
  }
  assert.equal(logged.length, 2);
});
