// Two board servers (examples/live/main.ts, each its own process) on one
// redis-server, and two on one Deno KV file: 1,000 messages posted to A
// reach an SSE client and a WebSocket client of B, none lost, in order;
// clients of B that are away for 2 s reconnect (Last-Event-ID, ?since=)
// and get exactly the
// messages it missed; when B shuts down (SIGTERM) its streams end and a
// client that moves to A with Last-Event-ID loses nothing.

import assert from "node:assert/strict";
import { redisServerOrSkip, startRedis } from "../../_tools/redis.ts";
import {
  type ServerProcess,
  startServerProcess,
} from "../../_tools/server_process.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const redisServer = await redisServerOrSkip();

async function twoServers(
  env: Record<string, string>,
): Promise<[ServerProcess, ServerProcess]> {
  const common = {
    PORT: "0",
    POSTS_PER_MINUTE: "100000",
    ...env,
  };
  const a = await startServerProcess(MAIN, [], {
    env: { ...common, SERVER_NAME: "A" },
  });
  const b = await startServerProcess(MAIN, [], {
    env: { ...common, SERVER_NAME: "B" },
  }).catch(async (error) => {
    await a.stop();
    throw error;
  });
  return [a, b];
}

interface Received {
  id: string;
  text: string;
  server: string;
}

/** An SSE client: collects events until stopped. */
async function listen(
  origin: string,
  lastEventId?: string,
): Promise<{
  events: Received[];
  waitFor(count: number, ms?: number): Promise<void>;
  close(): Promise<void>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
}> {
  const controller = new AbortController();
  const response = await fetch(`${origin}/events`, {
    signal: controller.signal,
    headers: lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId },
  });
  assert.equal(response.status, 200);
  const events: Received[] = [];
  let wake = () => {};
  const reading = (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream())
      .getReader();
    let text = "";
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return;
        text += value;
        let end;
        while ((end = text.indexOf("\n\n")) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id === undefined || data === undefined) continue;
          // The stream's starting point, not a message.
          if (/^event: position$/m.test(block)) continue;
          const message = JSON.parse(data);
          events.push({ id, text: message.text, server: message.server });
          wake();
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    events,
    async waitFor(count, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (events.length < count) {
        if (Date.now() > deadline) {
          throw new Error(
            `${events.length} of ${count} events within ${ms} ms`,
          );
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
    },
    async close() {
      controller.abort();
      await reading;
    },
    ended: reading,
  };
}

/** A WebSocket client of /ws: collects messages until closed. */
async function listenSocket(
  origin: string,
  since?: string,
): Promise<{
  events: Received[];
  waitFor(count: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}> {
  const url = new URL("/ws", origin.replace("http:", "ws:"));
  if (since !== undefined) url.searchParams.set("since", since);
  const socket = new WebSocket(url);
  const events: Received[] = [];
  socket.onmessage = (event) => {
    const body = JSON.parse(event.data);
    if (body.type !== "message") return;
    events.push({
      id: body.id,
      text: body.message.text,
      server: body.message.server,
    });
  };
  const closed = new Promise((resolve) => socket.onclose = resolve);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`WebSocket to ${url} failed`));
  });
  return {
    events,
    async waitFor(count, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (events.length < count) {
        if (Date.now() > deadline) {
          throw new Error(
            `${events.length} of ${count} messages within ${ms} ms`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      socket.close();
      await closed;
    },
  };
}

async function postAll(origin: string, texts: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const text of texts) {
    const response = await fetch(`${origin}/messages`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
      },
      body: JSON.stringify({ name: "test", text }),
    });
    assert.equal(response.status, 201, await response.clone().text());
    ids.push((await response.json()).id);
  }
  return ids;
}

function compareIds(a: string, b: string): number {
  const [am, as = "0"] = a.split("-");
  const [bm, bs = "0"] = b.split("-");
  return Number(am) - Number(bm) || Number(as) - Number(bs);
}

async function scenario(env: Record<string, string>): Promise<void> {
  const [a, b] = await twoServers(env);
  let bStopped = false;
  try {
    // 1,000 messages posted to A reach an SSE and a WebSocket client of
    // B, in order.
    const client = await listen(b.origin);
    const socket = await listenSocket(b.origin);
    const texts = Array.from({ length: 1000 }, (_, i) => `m${i}`);
    const ids = await postAll(a.origin, texts);
    await client.waitFor(1000);
    await socket.waitFor(1000);
    assert.deepEqual(client.events.map((e) => e.text), texts);
    assert.deepEqual(client.events.map((e) => e.id), ids);
    assert.ok(client.events.every((e) => e.server === "A"));
    assert.deepEqual(socket.events.map((e) => e.text), texts);
    assert.deepEqual(socket.events.map((e) => e.id), ids);
    await socket.close();
    for (let i = 1; i < ids.length; i++) {
      assert.ok(
        compareIds(ids[i - 1], ids[i]) < 0,
        `${ids[i - 1]} < ${ids[i]}`,
      );
    }
    await client.close();

    // Away for 2 s while A keeps posting; back with Last-Event-ID.
    const last = client.events.at(-1)!.id;
    const missed = Array.from({ length: 40 }, (_, i) => `missed ${i}`);
    const posting = (async () => {
      for (const text of missed) {
        await postAll(a.origin, [text]);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await posting;
    const back = await listen(b.origin, last);
    const socketBack = await listenSocket(b.origin, last);
    await postAll(a.origin, ["after"]);
    await back.waitFor(41);
    await socketBack.waitFor(41);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(back.events.map((e) => e.text), [...missed, "after"]);
    assert.deepEqual(socketBack.events.map((e) => e.text), [
      ...missed,
      "after",
    ]);
    await back.close();
    await socketBack.close();

    // B is deployed (SIGTERM): its stream ends, the client moves to A with
    // Last-Event-ID and gets what was posted meanwhile.
    const onB = await listen(b.origin);
    await postAll(a.origin, ["before the move"]);
    await onB.waitFor(1);
    const stopping = b.stop();
    bStopped = true;
    await onB.ended;
    await stopping;
    await postAll(a.origin, ["while moving"]);
    const onA = await listen(a.origin, onB.events[0].id);
    await onA.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(onA.events.map((e) => e.text), ["while moving"]);
    await onA.close();
  } finally {
    await a.stop();
    if (!bStopped) await b.stop();
  }
}

Deno.test({
  name:
    "live on two servers and one redis-server: 1,000 messages A → B (SSE and WebSocket) in order; 2 s away, then exactly the missed ones; B shut down, the client moves to A",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    try {
      await scenario({ PUBSUB: "redis", REDIS_URL: redis.url });
    } finally {
      await redis.stop();
    }
  },
});

Deno.test("live on two servers and one Deno KV file: 1,000 messages A → B (SSE and WebSocket) in order; 2 s away, then exactly the missed ones; B shut down, the client moves to A", async () => {
  const dir = await Deno.makeTempDir({ prefix: "live-kv-" });
  try {
    await scenario({ PUBSUB: "kv", DENO_KV_PATH: `${dir}/live.kv` });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
