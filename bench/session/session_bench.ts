/**
 * Per-request cost of sessions through `router.fetch`: no session, cookie
 * storage and Deno KV storage, against Remix's session middleware with its
 * cookie storage (on Remix's own router), all in one run. The overhead of a
 * storage is the difference of two means in a group.
 *
 * Run: deno bench --unstable-kv --allow-all bench/session/session_bench.ts
 * For medians of interleaved rounds (what BENCHMARKS.md quotes):
 *      deno run --unstable-kv --allow-all bench/session/load.ts
 */
import { cases } from "./_apps.ts";

for (const { group, name, baseline, request } of cases) {
  Deno.bench(name, { group, baseline }, request);
}
