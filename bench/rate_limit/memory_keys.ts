// Memory of the in-process rate-limit store under 1,000,000 distinct keys
// (an email field a client fills with new addresses), with and without its
// bound, for both algorithms; and the cost of a request refused because the
// store is full.
//
//   deno run --v8-flags=--expose-gc bench/rate_limit/memory_keys.ts
//
// Each case runs in a fresh process, so one case's heap does not carry
// into the next.

import { createMemoryRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";

const KEYS = 1_000_000;
const gc = (globalThis as { gc?: () => void }).gc;

function heap(): number {
  gc?.();
  gc?.();
  return Deno.memoryUsage().heapUsed;
}

async function runCase(algorithm: "gcra" | "lockout", maxKeys: number) {
  const store = createMemoryRateLimitStore({ maxKeys });
  const policy = { limit: 5, windowMs: 15 * 60_000, algorithm };
  const before = heap();
  let refused = 0;
  const started = performance.now();
  for (let i = 0; i < KEYS; i++) {
    // Keys as rateLimit() makes them: the limiter's name, ":", the key.
    if (!store.hit(`login-email:user${i}@example.com`, policy).allowed) {
      refused++;
    }
  }
  const elapsed = performance.now() - started;
  const after = heap();
  const held = store.size;
  // The cost of one more new key once full (the refusal path).
  const extra = 200_000;
  const fullStarted = performance.now();
  for (let i = 0; i < extra; i++) store.hit(`login-email:x${i}@e.com`, policy);
  const fullNs = (performance.now() - fullStarted) * 1e6 / extra;
  await Promise.resolve();
  return {
    algorithm,
    maxKeys,
    keys: held,
    refused,
    heapMB: (after - before) / 1e6,
    bytesPerKey: Math.round((after - before) / held),
    nsPerHit: Math.round(elapsed * 1e6 / KEYS),
    nsPerRefusedNewKey: Math.round(fullNs),
  };
}

if (Deno.args[0] === "case") {
  const result = await runCase(
    Deno.args[1] as "gcra" | "lockout",
    Number(Deno.args[2]),
  );
  console.log(JSON.stringify(result));
} else {
  const rows = [];
  for (const maxKeys of [2_000_000, 100_000]) {
    for (const algorithm of ["gcra", "lockout"]) {
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--v8-flags=--expose-gc",
          "--allow-all",
          new URL(import.meta.url).pathname,
          "case",
          algorithm,
          String(maxKeys),
        ],
        stderr: "inherit",
      }).output();
      rows.push(JSON.parse(new TextDecoder().decode(output.stdout)));
    }
  }
  console.log(
    "| algorithm | maxKeys | keys held | refused | heap (MB) | bytes/key | ns/hit | ns/new key after (refused when full) |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.algorithm} | ${r.maxKeys.toLocaleString("en")} | ${
        r.keys.toLocaleString("en")
      } | ${r.refused.toLocaleString("en")} | ${
        r.heapMB.toFixed(1)
      } | ${r.bytesPerKey} | ${r.nsPerHit} | ${r.nsPerRefusedNewKey} |`,
    );
  }
}
