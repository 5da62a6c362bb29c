// Server memory under 50 concurrent uploads of 1 GiB of "[" to parseJson()
// (default maxBytes 1 MiB), each streamed chunked by a client that stops when
// answered: the server's peak RSS over its idle baseline, per upload. The
// server runs in its own process; bounded by a deadline.
//
//   deno run --allow-all bench/validation/rss_uploads.ts [uploads] [GiB each]
import { startServerProcess } from "../../_tools/server_process.ts";

const uploads = Number(Deno.args[0] ?? 50);
const size = Number(Deno.args[1] ?? 1) * 2 ** 30;
const deadlineMs = 120_000;
const MiB = 2 ** 20;

const server = await startServerProcess(
  new URL("./_rss_server.ts", import.meta.url).pathname,
  [],
  { flags: ["--allow-net=127.0.0.1"] },
);
const stats = async () => await (await fetch(`${server.origin}/rss`)).json();

try {
  // Warm up: a few small requests, then the baseline.
  for (let i = 0; i < 20; i++) {
    await (await fetch(`${server.origin}/json`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "[1]",
    })).text();
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  await (await fetch(`${server.origin}/baseline`, { method: "POST" })).text();
  const baseline = (await stats()).rss as number;

  const chunk = new TextEncoder().encode("[".repeat(64 * 1024));
  const started = performance.now();
  const sent: number[] = [];
  const statuses: (number | string)[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deadlineMs);
  await Promise.all(Array.from({ length: uploads }, async (_, index) => {
    let bytes = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(stream) {
        if (bytes >= size) return stream.close();
        bytes += chunk.length;
        stream.enqueue(chunk);
      },
    }, { highWaterMark: 0 });
    try {
      const response = await fetch(`${server.origin}/json`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: controller.signal,
      });
      statuses[index] = response.status;
      await response.text();
    } catch (error) {
      statuses[index] = (error as Error).name;
    }
    sent[index] = bytes;
  }));
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  const after = await stats();
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  const over = (after.peak - baseline) / MiB;
  console.log(
    `${uploads} concurrent uploads of ${size / 2 ** 30} GiB of "[" in ${
      seconds.toFixed(1)
    } s: answers ${JSON.stringify(counts)}, refused ${after.refused}`,
  );
  console.log(
    `client sent per upload: median ${
      ([...sent].sort((a, b) => a - b)[sent.length >> 1] / MiB).toFixed(1)
    } MiB, max ${(Math.max(...sent) / MiB).toFixed(1)} MiB`,
  );
  console.log(
    `server RSS: baseline ${(baseline / MiB).toFixed(1)} MiB, peak ${
      (after.peak / MiB).toFixed(1)
    } MiB (+${over.toFixed(1)} MiB, ${
      (over / uploads).toFixed(2)
    } MiB per upload), after ${(after.rss / MiB).toFixed(1)} MiB`,
  );
} finally {
  await server.stop();
}
