// The Redis rate-limit store on a real Redis Cluster (3 masters, 3
// replicas; Valkey with REDIS_SERVER=valkey-server) through node-redis'
// createCluster(): two clients (two servers) hitting one key at once get
// exactly `limit` allowed, for GCRA and lockout; keys spread over the
// masters; give-back and reset work; EVALSHA falls back to the script's
// text once per master.
import assert from "node:assert/strict";
import { createCluster } from "redis";
import {
  createRedisRateLimitStore,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import {
  clusterToolsOrSkip,
  type RedisCluster,
  startRedisCluster,
} from "../_tools/redis_cluster.ts";
import { countResponseSuite } from "./_count_response_suite.ts";

const tools = await clusterToolsOrSkip();
// One cluster for the file, started here, stopped by the last test.
const shared: RedisCluster | undefined = tools === undefined
  ? undefined
  : await startRedisCluster(tools);
let prefixes = 0;

// The countResponse suite every store passes, on the cluster: each test a
// client of its own and keys of its own.
for (const algorithm of ["gcra", "lockout"] as const) {
  countResponseSuite(
    "Redis Cluster",
    async () => {
      const client = await createCluster({ rootNodes: shared!.rootNodes })
        .on("error", () => {}).connect();
      return {
        store: createRedisRateLimitStore({
          client,
          prefix: `count-${++prefixes}:`,
        }),
        close: () => Promise.resolve(client.destroy()),
      };
    },
    algorithm,
    { ignore: shared === undefined },
  );
}

Deno.test({
  name: "Redis rate-limit store on Redis Cluster (3 masters, 3 replicas)",
  ignore: tools === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const cluster = shared!;
    const connect = () =>
      createCluster({ rootNodes: cluster.rootNodes }).on("error", () => {})
        .connect();
    const one = await connect();
    const two = await connect();
    try {
      const calls: string[] = [];
      const counted = {
        eval: (...args: Parameters<typeof one.eval>) => {
          calls.push("eval");
          return one.eval(...args);
        },
        evalSha: (...args: Parameters<typeof one.evalSha>) => {
          calls.push("evalSha");
          return one.evalSha(...args);
        },
        del: (key: string) => one.del(key),
      };
      const stores: RateLimitStore[] = [
        createRedisRateLimitStore({ client: counted }),
        createRedisRateLimitStore({ client: two }),
      ];

      for (const algorithm of ["gcra", "lockout"] as const) {
        await t.step(
          `${algorithm}: 60 hits from two clients at once on keys of every master: exactly the limit allowed per key`,
          async () => {
            const policy = { limit: 10, windowMs: 60_000, algorithm };
            const keys = Array.from(
              { length: 6 },
              (_, i) => `${algorithm}-${i}`,
            );
            const masters = new Set(
              await Promise.all(
                keys.map((key) => cluster.masterOf(`rate_limit:${key}`)),
              ),
            );
            assert.ok(masters.size >= 2, `keys on ${masters.size} masters`);
            const results = await Promise.all(
              keys.flatMap((key) =>
                Array.from(
                  { length: 60 },
                  (_, i) => stores[i % 2].hit(key, policy),
                )
              ),
            );
            for (let k = 0; k < keys.length; k++) {
              const allowed = results.slice(k * 60, (k + 1) * 60)
                .filter((result) => result.allowed).length;
              assert.equal(allowed, 10, keys[k]);
            }
          },
        );
      }

      await t.step("give back and reset", async () => {
        const policy = { limit: 2, windowMs: 60_000 };
        const [a, b] = stores;
        await a.hit("g", policy);
        await b.hit("g", policy);
        assert.equal((await a.hit("g", policy)).allowed, false);
        await b.giveBack!("g", policy);
        assert.equal((await a.hit("g", policy)).allowed, true);
        await b.reset("g");
        assert.equal((await a.hit("g", policy)).remaining, 1);
      });

      await t.step(
        "EVALSHA: once every master knows the script, its text is not sent again",
        async () => {
          // (The countResponse suite above may have loaded the scripts.)
          const before = calls.filter((call) => call === "eval").length;
          const policy = { limit: 10, windowMs: 60_000 };
          for (let i = 0; i < 30; i++) await stores[0].hit(`warm-${i}`, policy);
          assert.equal(calls.filter((call) => call === "eval").length, before);
          assert.ok(calls.includes("evalSha"));
        },
      );
    } finally {
      one.destroy();
      two.destroy();
    }
  },
});

// Last in this file: tests run in order of registration.
Deno.test({
  name: "Redis rate-limit store on Redis Cluster: (stop the cluster)",
  ignore: shared === undefined,
  fn: () => shared!.stop(),
});
