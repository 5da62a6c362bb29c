/**
 * The child of `memory_instructions.ts`: memory store calls of one
 * checkout (its folder is the first argument), run on command. For each
 * contender named on stdin it runs the warm-up calls, says `ready`, waits
 * for a line (the parent switches counting on), runs the counted calls,
 * says `done`, and waits again (counting off). Contenders whose name ends
 * in `, observed` run while a metrics registry counts store calls.
 *
 * @module
 */

const [root, callsArg, warmArg] = Deno.args;
const calls = Number(callsArg);
const warm = Number(warmArg);

const { createMemoryRateLimitStore } = await import(
  `${root}/rate_limit/memory_store.ts`
);
const { createMemorySessionStorage } = await import(
  `${root}/session/memory_storage.ts`
);
const { createMemoryCacheStore } = await import(`${root}/cache/stores.ts`);
const { createMetricsRegistry, metricsHandler } = await import(
  `${root}/metrics/mod.ts`
);

const limiter = createMemoryRateLimitStore();
const policy = { limit: 1_000_000_000, windowMs: 60_000 };
const keys = Array.from({ length: 1024 }, (_, i) => `client${i}`);

const sessions = createMemorySessionStorage({
  cookie: { secrets: ["bench-secret-0123456789abcdefghijklmnop"] },
});
const first = await sessions.read(null);
first.set("user", "ada");
const setCookie: string = await sessions.save(first);
const cookie = setCookie.slice(0, setCookie.indexOf(";"));

const cache = createMemoryCacheStore();
await cache.set("page", new Uint8Array(512), { ttlMs: 3_600_000 });

let sink = 0;
const contenders: Record<string, (i: number) => Promise<void> | void> = {
  "rate limit hit": (i) => {
    sink += limiter.hit(keys[i & 1023], policy).remaining;
  },
  "session read": async () => {
    const session = await sessions.read(cookie);
    if (session.get("user") === "ada") sink++;
  },
  "cache get": async () => {
    if ((await cache.get("page")) !== undefined) sink++;
  },
};

const lines = (async function* () {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of Deno.stdin.readable) {
    buffer += decoder.decode(chunk);
    let newline;
    while ((newline = buffer.indexOf("\n")) !== -1) {
      yield buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
    }
  }
})();
const say = (text: string) =>
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));

for (;;) {
  const { value: name, done } = await lines.next();
  if (done || name === "") break;
  const observed = name.endsWith(", observed");
  const run = contenders[name.replace(/, observed$/, "")];
  const registry = observed ? createMetricsRegistry() : undefined;
  if (registry !== undefined) metricsHandler({ registry, process: false });
  for (let i = 0; i < warm; i++) await run(i);
  say("ready");
  await lines.next();
  for (let i = 0; i < calls; i++) await run(i);
  say(`done ${sink}`);
  await lines.next();
  registry?.close();
}
