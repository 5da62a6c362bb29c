/**
 * End to end: a message posted to board server A reaches 1,000 SSE clients
 * of board server B (`examples/live/main.ts`, two processes on one store).
 * Latency = the client's clock when the event is parsed - the message's
 * `at` (A's `Date.now()` when it took the post; one machine, one clock,
 * so whole milliseconds). The clients are raw loopback sockets in this
 * process, from 50 addresses (127.0.0.2-51, 20 each: the default bound
 * per address; the total bound is raised to 2,000).
 * The first 10 messages warm up and are not counted; stores alternate
 * (Redis, KV, Redis, KV ...).
 *
 * ```sh
 * deno run --allow-all bench/pubsub/sse_latency.ts [rounds=2] [messages=100]
 * ```
 *
 * @module
 */

import net from "node:net";
import { findRedisServer, startRedis } from "../../_tools/redis.ts";
import { startServerProcess } from "../../_tools/server_process.ts";
import { quantile } from "../_stats.ts";

const MAIN = new URL("../../examples/live/main.ts", import.meta.url).pathname;
const CLIENTS = 1000;
const WARMUP = 10;
const GAP_MS = Number(Deno.env.get("GAP_MS") ?? 20);

interface Client {
  socket: net.Socket;
  buffer: string;
  seen: number;
}

function connect(
  port: number,
  index: number,
  onEvent: (client: Client, data: string) => void,
): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: "127.0.0.1",
      port,
      localAddress: `127.0.0.${2 + (index % 50)}`,
    });
    const client: Client = { socket, buffer: "", seen: 0 };
    socket.setEncoding("utf8");
    socket.on("connect", () =>
      socket.write(
        "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n",
      ));
    let headers = false;
    socket.on("data", (chunk: string) => {
      client.buffer += chunk;
      if (!headers) {
        const end = client.buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        if (!client.buffer.startsWith("HTTP/1.1 200")) {
          reject(new Error(client.buffer.slice(0, 100)));
          return;
        }
        headers = true;
        client.buffer = client.buffer.slice(end + 4);
        resolve(client);
      }
      let at;
      while ((at = client.buffer.indexOf("\ndata: ")) >= 0) {
        const end = client.buffer.indexOf("\n", at + 7);
        if (end < 0) break;
        const data = client.buffer.slice(at + 7, end);
        // The first event is the stream's position (data: an id).
        if (data.startsWith("{")) onEvent(client, data);
        client.buffer = client.buffer.slice(end + 1);
      }
    });
    socket.on("error", reject);
  });
}

/** CPU time (user + system) of `pid` so far, in ms. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime, fields 14 and 15, in clock ticks (100 a second).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function round(
  env: Record<string, string>,
  messages: number,
): Promise<{ latencies: number[]; cpuPerEventMs: number }> {
  const common = {
    PORT: "0",
    POSTS_PER_MINUTE: "100000",
    STREAMS_TOTAL: "2000",
    ...env,
  };
  const a = await startServerProcess(MAIN, [], {
    env: { ...common, SERVER_NAME: "A" },
  });
  const b = await startServerProcess(MAIN, [], {
    env: { ...common, SERVER_NAME: "B" },
  });
  const latencies: number[] = [];
  const clients: Client[] = [];
  let done = 0;
  let finished = () => {};
  const all = new Promise<void>((resolve) => finished = resolve);
  try {
    const port = Number(new URL(b.origin).port);
    for (let i = 0; i < CLIENTS; i += 100) {
      clients.push(
        ...await Promise.all(
          Array.from(
            { length: 100 },
            (_, j) =>
              connect(port, i + j, (client, data) => {
                const now = Date.now();
                const message = JSON.parse(data);
                if (++client.seen > WARMUP) latencies.push(now - message.at);
                if (client.seen === messages + WARMUP && ++done === CLIENTS) {
                  finished();
                }
              }),
          ),
        ),
      );
    }
    let cpuStart = 0;
    for (let i = 0; i < messages + WARMUP; i++) {
      if (i === WARMUP) cpuStart = await cpuMs(b.pid);
      const response = await fetch(`${a.origin}/messages`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: "bench", text: `m${i}` }),
      });
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    }
    await Promise.race([
      all,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`${done} clients done`)), 60_000)
      ),
    ]);
    const cpu = await cpuMs(b.pid) - cpuStart;
    return { latencies, cpuPerEventMs: cpu / messages };
  } finally {
    for (const client of clients) client.socket.destroy();
    await a.stop();
    await b.stop();
  }
}

const rounds = Number(Deno.args[0] ?? 2);
const messages = Number(Deno.args[1] ?? 100);
const redisPath = await findRedisServer();
if (redisPath === undefined) throw new Error("redis-server is needed");
console.log(
  `${CLIENTS} SSE clients of B, ${messages} messages posted to A 20 ms apart (after ${WARMUP} not counted)`,
);
console.log(
  "| round | store | deliveries | p50 ms | p99 ms | max ms | B's CPU per message to 1,000 streams |",
);
console.log("|---|---|---|---|---|---|---|");
for (let r = 1; r <= rounds; r++) {
  for (const store of ["redis", "kv"]) {
    const redis = store === "redis" ? await startRedis(redisPath) : undefined;
    const dir = await Deno.makeTempDir({ prefix: "sse-latency-" });
    try {
      const env: Record<string, string> = redis
        ? { PUBSUB: "redis", REDIS_URL: redis.url }
        : { PUBSUB: "kv", DENO_KV_PATH: `${dir}/live.kv` };
      const { latencies, cpuPerEventMs } = await round(env, messages);
      const fmt = (q: number) => quantile(latencies, q).toFixed(0);
      console.log(
        `| ${r} | ${redis ? "Redis" : "Deno KV"} | ${latencies.length} | ${
          fmt(0.5)
        } | ${fmt(0.99)} | ${fmt(1)} | ${cpuPerEventMs.toFixed(1)} ms |`,
      );
    } finally {
      await redis?.stop();
      await Deno.remove(dir, { recursive: true });
    }
  }
}
