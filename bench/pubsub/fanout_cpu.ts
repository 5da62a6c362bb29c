/**
 * CPU per stream per event, in one process, for one event fanned out to
 * 1,000 in-process readers (no sockets): the pub/sub alone (1,000
 * subscriptions), then each subscription as an SSE response through an
 * async generator (`createEventStreamResponse`), through a plain iterator
 * object instead of a generator, and through the generator behind
 * `streamLimit()` in a router. CPU time from `process.cpuUsage()` over 200
 * events after 50 warm-up ones, each variant in a fresh process, variants
 * alternating.
 *
 * ```sh
 * deno run --allow-all bench/pubsub/fanout_cpu.ts [rounds=3]
 * ```
 *
 * @module
 */

import process from "node:process";
import {
  createMemoryPubSub,
  type Subscription,
} from "@fetchkit/toolkit/pubsub";
import {
  createEventStreamResponse,
  type ServerSentEvent,
} from "@fetchkit/toolkit/response/event-stream";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { streamLimit } from "@fetchkit/toolkit/stream-limit-middleware";
import { median } from "../_stats.ts";

const N = 1000;
const EVENTS = 200;
const VARIANTS = ["pubsub", "generator", "iterator", "streamLimit"] as const;

function generator(subscription: Subscription) {
  return (signal: AbortSignal) => {
    signal.addEventListener("abort", () => subscription.close());
    return (async function* () {
      for await (const { id, data } of subscription) {
        yield { id, event: "message", data };
      }
    })();
  };
}

function iterator(subscription: Subscription) {
  return (signal: AbortSignal): AsyncIterable<ServerSentEvent> => {
    signal.addEventListener("abort", () => subscription.close());
    const events: AsyncIterator<ServerSentEvent> = {
      next: () =>
        subscription.next().then((step) =>
          step.done ? step : {
            done: false,
            value: {
              id: step.value.id,
              event: "message",
              data: step.value.data,
            },
          }
        ),
      return: () => subscription.return(),
    };
    return { [Symbol.asyncIterator]: () => events };
  };
}

async function measure(variant: string): Promise<number> {
  const pubsub = createMemoryPubSub();
  const router = createRouter();
  router.get(
    "/events",
    streamLimit({ total: 5000, perAddress: 5000 }),
    async () => {
      const subscription = pubsub.subscribe("board");
      await subscription.ready;
      return createEventStreamResponse(generator(subscription));
    },
  );
  let step: () => Promise<unknown>;
  if (variant === "pubsub") {
    const subscriptions = Array.from(
      { length: N },
      () => pubsub.subscribe("board"),
    );
    await Promise.all(subscriptions.map((s) => s.ready));
    step = () => Promise.all(subscriptions.map((s) => s.next()));
  } else {
    const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
    for (let i = 0; i < N; i++) {
      let response: Response;
      if (variant === "streamLimit") {
        response = await router.fetch(new Request("http://x/events"), {
          remoteAddr: { hostname: "192.0.2.1", port: 1, transport: "tcp" },
        });
      } else {
        const subscription = pubsub.subscribe("board");
        await subscription.ready;
        response = createEventStreamResponse(
          variant === "generator"
            ? generator(subscription)
            : iterator(subscription),
        );
      }
      readers.push(response.body!.getReader());
    }
    step = () => Promise.all(readers.map((reader) => reader.read()));
  }
  const once = async (i: number) => {
    const received = step();
    await pubsub.publish("board", { name: "n", text: `hello ${i}`, at: i });
    await received;
  };
  for (let i = 0; i < 50; i++) await once(i);
  const start = process.cpuUsage();
  for (let i = 0; i < EVENTS; i++) await once(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / EVENTS / N;
}

if (Deno.args[0] === "one") {
  console.log(await measure(Deno.args[1]));
  Deno.exit(0);
}
const rounds = Number(Deno.args[0] ?? 3);
const results = new Map<string, number[]>(VARIANTS.map((v) => [v, []]));
for (let r = 0; r < rounds; r++) {
  for (const variant of VARIANTS) {
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", import.meta.filename!, "one", variant],
      stderr: "inherit",
    }).output();
    results.get(variant)!.push(Number(new TextDecoder().decode(stdout)));
  }
}
console.log(
  `| variant | µs CPU per stream per event (median of ${rounds}) | range |`,
);
console.log("|---|---|---|");
for (const [variant, values] of results) {
  console.log(
    `| ${variant} | ${median(values).toFixed(2)} | ${
      Math.min(...values).toFixed(2)
    }-${Math.max(...values).toFixed(2)} |`,
  );
}
