/**
 * RSS and V8 heap per 1,000 live sessions, in process: a router with
 * `session()` on the storage the auth example uses (Deno KV on a file, the
 * default) or the memory storage, `SESSIONS` requests that each start a
 * session (as a sign-in does: a user id and a name), every session kept
 * live (its cookie held, nothing expires); memory after a full GC before
 * and after, and once more after every session was read again.
 *
 *   deno run -A --v8-flags=--expose-gc bench/examples/session_rss.ts [kv|memory|none] [sessions]
 *
 * `none` sends the same requests to a router without `session()`: what the
 * requests themselves leave in RSS.
 *
 * @module
 */
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";

const kind = Deno.args[0] ?? "kv";
const count = Number(Deno.args[1] ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");

const cookie = { name: "sid", secrets: ["a".repeat(32)], maxAge: 604800 };
const path = await Deno.makeTempFile({ suffix: ".sqlite" });
const kv = kind === "kv" ? await Deno.openKv(path) : undefined;
const storage = kv !== undefined
  ? createKvSessionStorage({ client: kv, cookie })
  : createMemorySessionStorage({ cookie });
const Sessions = createContextKey<Session<{ userId: number; name: string }>>();
// `none`: the same requests without sessions, the control.
const router = createRouter({
  middleware: kind === "none" ? [] : [session(Sessions, storage)],
});
let next = 0;
router.post("/login", ({ get }) => {
  if (kind === "none") {
    return new Response("ok", { headers: { "Set-Cookie": `sid=${++next}` } });
  }
  const current = get(Sessions)!;
  current.set("userId", ++next);
  current.set("name", `User ${next}`);
  return new Response("ok");
});
router.get(
  "/me",
  ({ get }) =>
    new Response(kind === "none" ? "x" : String(get(Sessions)!.get("name"))),
);

async function memory(): Promise<{ rss: number; heap: number }> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { rss, heapUsed } = Deno.memoryUsage();
  return { rss, heap: heapUsed };
}

// Warm-up: the code paths, KV's connection and caches.
for (let i = 0; i < 200; i++) {
  await (await router.fetch(
    new Request("http://localhost/login", { method: "POST" }),
  )).text();
}
const before = await memory();
const cookies: string[] = [];
for (let i = 0; i < count; i++) {
  const response = await router.fetch(
    new Request("http://localhost/login", { method: "POST" }),
  );
  await response.text();
  cookies.push(response.headers.get("set-cookie")!.split(";")[0]!);
}
const after = await memory();
for (const value of cookies) {
  const response = await router.fetch(
    new Request("http://localhost/me", { headers: { cookie: value } }),
  );
  if ((await response.text()).startsWith("undefined")) {
    throw new Error("a session was lost");
  }
}
const reread = await memory();
const mib = (n: number) => (n / 1024 / 1024).toFixed(2);
const per1000 = (n: number) => mib(n / count * 1000);
console.log(JSON.stringify({
  storage: kind,
  sessions: count,
  rssBeforeMiB: mib(before.rss),
  rssAfterMiB: mib(after.rss),
  rssAfterReadingAllMiB: mib(reread.rss),
  // With every session live and its cookie held.
  rssPer1000MiB: per1000(after.rss - before.rss),
  heapPer1000MiB: per1000(after.heap - before.heap),
  heapBeforeMiB: mib(before.heap),
  heapAfterMiB: mib(after.heap),
  heapAfterReadingAllMiB: mib(reread.heap),
}));
kv?.close();
await Deno.remove(path).catch(() => {});
