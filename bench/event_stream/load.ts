/**
 * Server-sent events under load: 1,000 concurrent streams held open for
 * 30 s with a heartbeat, against a server process of their own; the
 * server's RSS before, while they are open, and after the clients go, and
 * how long until every source has ended.
 *
 *     deno run --allow-all bench/event_stream/load.ts [--streams 1000] [--hold 30] [--heartbeat 5000]
 *
 * @module
 */

const args = Deno.args;
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const STREAMS = option("--streams", 1000);
const HOLD_S = option("--hold", 30);
const HEARTBEAT_MS = option("--heartbeat", 5000);
const EVENT_MS = option("--event", 10_000);

const script = new URL("./_server.ts", import.meta.url).pathname;
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--allow-all",
    "--v8-flags=--expose-gc",
    script,
    String(HEARTBEAT_MS),
    String(EVENT_MS),
  ],
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
let output = "";
while (!output.includes("\n")) {
  const { value, done } = await lines.read();
  if (done) break;
  output += value;
}
const port = /listening (\d+)/.exec(output)?.[1];
if (port === undefined) throw new Error(`server did not start: ${output}`);
const origin = `http://127.0.0.1:${port}`;

interface Stats {
  open: number;
  opened: number;
  rss: number;
  heapUsed: number;
}
async function stats(): Promise<Stats> {
  return await (await fetch(`${origin}/stats`)).json();
}
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const t0 = performance.now();
const progress = (what: string) =>
  console.error(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${what}`);

try {
  await sleep(500);
  const before = await stats();
  const clients: AbortController[] = [];
  const bodies: ReadableStreamDefaultReader<string>[] = [];
  let events = 0;
  let heartbeats = 0;
  let failed = 0;
  const readers: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < STREAMS; i++) {
    const controller = new AbortController();
    clients.push(controller);
    readers.push((async () => {
      try {
        const response = await fetch(`${origin}/events`, {
          signal: controller.signal,
        });
        const reader = response.body!.pipeThrough(new TextDecoderStream())
          .getReader();
        bodies.push(reader);
        while (true) {
          const { value, done } = await reader.read();
          if (done) break;
          events += value.split("\ndata: ").length - 1 +
            (value.startsWith("data: ") ? 1 : 0);
          heartbeats += value.split(":\n\n").length - 1;
        }
      } catch (error) {
        if (!controller.signal.aborted) {
          failed++;
          console.error(error);
        }
      }
    })());
  }
  let connected = await stats();
  while (connected.open < STREAMS && performance.now() - started < 20_000) {
    await sleep(200);
    connected = await stats();
  }
  const connectMs = performance.now() - started;
  progress(`${connected.open} streams open`);
  await sleep(HOLD_S * 1000);
  const held = await stats();
  progress(`held; closing`);
  const closing = performance.now();
  // Each client goes: its connection is aborted and its body cancelled
  // (an abort alone does not always end a body already being read).
  for (const controller of clients) controller.abort();
  await Promise.all(bodies.map((reader) => reader.cancel().catch(() => {})));
  await Promise.race([Promise.all(readers), sleep(5000)]);
  progress("clients done");
  let after = await stats();
  while (after.open > 0 && performance.now() - closing < 20_000) {
    await sleep(100);
    after = await stats();
  }
  const closeMs = performance.now() - closing;
  await sleep(2000);
  const settled = await stats();

  console.log(
    `${Deno.version.deno}: ${STREAMS} streams held ${HOLD_S} s, heartbeat ${HEARTBEAT_MS} ms, an event every ${EVENT_MS} ms\n`,
  );
  console.log("| measure | value |");
  console.log("|---|---:|");
  console.log(
    `| streams open on the server after connecting | ${connected.open} (in ${
      Math.round(connectMs)
    } ms) |`,
  );
  console.log(`| streams open after ${HOLD_S} s | ${held.open} |`);
  console.log(`| client errors | ${failed} |`);
  console.log(`| events received (all streams) | ${events} |`);
  console.log(`| heartbeats received (all streams) | ${heartbeats} |`);
  console.log(
    `| server RSS / live heap before | ${mib(before.rss)} / ${
      mib(before.heapUsed)
    } MiB |`,
  );
  console.log(
    `| server RSS / live heap with ${STREAMS} streams open | ${
      mib(connected.rss)
    } / ${mib(connected.heapUsed)} MiB |`,
  );
  console.log(
    `| server RSS / live heap after ${HOLD_S} s | ${mib(held.rss)} / ${
      mib(held.heapUsed)
    } MiB |`,
  );
  console.log(
    `| sources still open after the clients went | ${after.open} (all ended within ${
      Math.round(closeMs)
    } ms) |`,
  );
  console.log(
    `| server RSS / live heap 2 s after the clients went | ${
      mib(settled.rss)
    } / ${mib(settled.heapUsed)} MiB |`,
  );
} finally {
  child.kill("SIGTERM");
  await child.status;
  await lines.cancel();
}
