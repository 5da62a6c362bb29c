/**
 * Per-request cost of verifying a JWT: `jwt()` on our router against
 * Hono's `jwt` on a Hono app, HS256 and ES256, the same token for both.
 * `verify.ts` measures the same apps by CPU time in interleaved rounds.
 *
 * Run: deno bench --allow-all bench/jwt/verify_bench.ts
 */
import { apps, esRequest, hsRequest } from "./_apps.ts";

Deno.bench({
  name: "fetchkit jwt() HS256",
  group: "HS256",
  baseline: true,
  async fn() {
    await (await apps.oursHs.fetch(hsRequest)).text();
  },
});
Deno.bench({
  name: "hono jwt HS256",
  group: "HS256",
  async fn() {
    await (await apps.honoHs.fetch(hsRequest)).text();
  },
});
Deno.bench({
  name: "fetchkit jwt() ES256",
  group: "ES256",
  baseline: true,
  async fn() {
    await (await apps.oursEs.fetch(esRequest)).text();
  },
});
Deno.bench({
  name: "hono jwt ES256",
  group: "ES256",
  async fn() {
    await (await apps.honoEs.fetch(esRequest)).text();
  },
});
