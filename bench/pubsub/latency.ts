/**
 * Publish → delivery latency across processes, with 1,000 subscribers.
 *
 * Process A (this script) publishes; process B (this script with `sub`)
 * holds 1,000 subscriptions to one topic on the same store and, for each
 * event each subscription receives, records receive time - publish time
 * (both `performance.timeOrigin + performance.now()`, the same machine
 * clock). The first 20 events of a round warm up and are not counted.
 * Rounds alternate Redis and Deno KV (A B A B).
 *
 * ```sh
 * deno run --unstable-kv --allow-all bench/pubsub/latency.ts [rounds=3] [events=200]
 * ```
 *
 * @module
 */

import { createClient } from "redis";
import {
  createKvPubSub,
  createRedisPubSub,
  type PubSub,
} from "@fetchkit/toolkit/pubsub";
import { findRedisServer, startRedis } from "../../_tools/redis.ts";
import { quantile } from "../_stats.ts";

const SUBSCRIBERS = 1000;
const WARMUP = 20;
const now = () => performance.timeOrigin + performance.now();

async function open(
  store: string,
  target: string,
): Promise<{ pubsub: PubSub; close(): Promise<void> }> {
  if (store === "redis") {
    const client = await createClient({ url: target }).connect();
    const pubsub = createRedisPubSub({ client });
    return {
      pubsub,
      async close() {
        await pubsub.close();
        client.destroy();
      },
    };
  }
  const kv = await Deno.openKv(target);
  const pubsub = createKvPubSub({ client: kv });
  return {
    pubsub,
    async close() {
      await pubsub.close();
      kv.close();
    },
  };
}

/** Process B: subscribe, say "ready", collect until "done" events came. */
async function subscriber(
  store: string,
  target: string,
  events: number,
): Promise<void> {
  const { pubsub, close } = await open(store, target);
  const latencies: number[] = [];
  const subscriptions = Array.from(
    { length: SUBSCRIBERS },
    () => pubsub.subscribe<{ sent: number }>("bench"),
  );
  await Promise.all(subscriptions.map((s) => s.ready));
  console.log("ready");
  await Promise.all(subscriptions.map(async (subscription) => {
    let seen = 0;
    for await (const { data } of subscription) {
      // The first WARMUP events warm the JIT and connections: not counted.
      if (++seen > WARMUP) latencies.push(now() - data.sent);
      if (seen === events + WARMUP) break;
    }
  }));
  console.log(JSON.stringify(latencies));
  await close();
}

async function round(
  store: string,
  target: string,
  events: number,
): Promise<number[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-kv",
      "--allow-all",
      import.meta.filename!,
      "sub",
      store,
      target,
      String(events),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes("ready\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`subscriber failed: ${output}`);
    output += value;
  }
  output = "";
  const { pubsub, close } = await open(store, target);
  for (let i = 0; i < events + WARMUP; i++) {
    await pubsub.publish("bench", { sent: now() });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    output += value;
  }
  await child.status;
  await close();
  return JSON.parse(output.trim());
}

if (Deno.args[0] === "sub") {
  await subscriber(Deno.args[1], Deno.args[2], Number(Deno.args[3]));
} else {
  const rounds = Number(Deno.args[0] ?? 3);
  const events = Number(Deno.args[1] ?? 200);
  const redisPath = await findRedisServer();
  if (redisPath === undefined) throw new Error("redis-server is needed");
  console.log(
    `${SUBSCRIBERS} subscribers in process B, ${events} events (after ${WARMUP} not counted) published by A 10 ms apart, per round`,
  );
  console.log("| round | store | deliveries | p50 ms | p99 ms | max ms |");
  console.log("|---|---|---|---|---|---|");
  for (let r = 1; r <= rounds; r++) {
    for (const store of ["redis", "kv"]) {
      const redis = store === "redis" ? await startRedis(redisPath) : undefined;
      const dir = await Deno.makeTempDir({ prefix: "pubsub-bench-" });
      try {
        const target = redis?.url ?? `${dir}/bench.kv`;
        const latencies = await round(store, target, events);
        const fmt = (q: number) => quantile(latencies, q).toFixed(1);
        console.log(
          `| ${r} | ${
            store === "redis" ? "Redis" : "Deno KV"
          } | ${latencies.length} | ${fmt(0.5)} | ${fmt(0.99)} | ${
            quantile(latencies, 1).toFixed(1)
          } |`,
        );
      } finally {
        await redis?.stop();
        await Deno.remove(dir, { recursive: true });
      }
    }
  }
}
