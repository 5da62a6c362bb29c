/**
 * A server process for disk_full_test.ts: KV sessions and a KV rate
 * limiter on one Deno KV file (on a tiny tmpfs the test mounts). Prints its
 * port once listening.
 *
 * deno run --unstable-kv --allow-all session/_disk_full_server.ts <kv-file>
 *
 * POST /fill saves a new session holding 16 KB; GET /limited?key=K counts
 * K in the rate limiter (a new key is a new KV entry); GET /ping touches
 * no store.
 *
 * @module
 */

import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import {
  createKvRateLimitStore,
  rateLimit,
} from "@fetchkit/toolkit/rate-limit-middleware";

const kv = await Deno.openKv(Deno.args[0]);
const Sessions = createContextKey<Session>();
const storage = createKvSessionStorage({
  client: kv,
  cookie: { secrets: ["disk-full-secret-0123456789abcdefghijkl"] },
});
const limiter = rateLimit({
  limit: 10,
  windowMs: 60_000,
  store: createKvRateLimitStore({ client: kv }),
  key: ({ url }) => url.searchParams.get("key") ?? undefined,
});
const router = createRouter();
router.post("/fill", session(Sessions, storage), ({ get }) => {
  const bytes = crypto.getRandomValues(new Uint8Array(6000));
  get(Sessions)!.set("blob", btoa(String.fromCharCode(...bytes)).repeat(2));
  return new Response("saved");
});
router.get("/limited", limiter, () => new Response("counted"));
router.get("/ping", () => new Response("pong"));
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, router.fetch);

Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  kv.close();
  Deno.exit(0);
});
