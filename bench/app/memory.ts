/**
 * Memory of the whole auth app against the same app on Hono (`hono.ts`),
 * on Deno, each server in its own process (`_server.ts`, Deno KV in
 * memory, so the sessions' records count in RSS; `--kv=file` puts them in
 * a file as `main.ts` does):
 *
 * - RSS per 1,000 live sessions: after a warm-up, a full GC (`GET /__gc`,
 *   the server started with `--v8-flags=--expose-gc`) and RSS read from
 *   `/proc/<pid>/status`; then `sessions` sign-ins, each a new session
 *   whose cookie is kept; GC and RSS again; every session then read once
 *   (each dashboard must answer 200).
 * - The soak plateau, by `soak.ts`'s rule: `soak` seconds of 8 clients
 *   each signing in again (the old session ends, as at any sign-in) and
 *   viewing the dashboard five times (8 sessions live throughout), RSS sampled every 2 s; the plateau
 *   is the median of the middle third of the samples and the growth the
 *   last third's median less it (`soak.ts` fails a growth over 16 MiB or
 *   10 %).
 *
 * The contenders alternate (fetchkit, hono, fetchkit, hono...), a fresh
 * process each, for `rounds` rounds; the median and the range are printed.
 *
 *   deno run -A --unstable-kv bench/app/memory.ts [--rounds=2] [--sessions=3000] [--soak=60] [--kv=memory|file]
 *
 * @module
 */
import { median } from "../_stats.ts";
import { memorySample } from "../examples/_memory.ts";
import {
  CONTENDERS,
  options,
  signIn,
  startContender,
  USERS,
} from "./_contenders.ts";

const args = options();
const rounds = Number(args.rounds ?? 2);
const sessions = Number(args.sessions ?? 3000);
const soakSeconds = Number(args.soak ?? 60);
const CLIENTS = 8;
const MIB = 1024 * 1024;
const dir = await Deno.makeTempDir({ prefix: "app-memory-" });

/** RSS and V8's heap in use, after a full GC. */
async function memory(
  port: number,
  pid: number,
): Promise<{ rss: number; heap: number }> {
  const answer = await fetch(`http://127.0.0.1:${port}/__gc`);
  if (!answer.ok) throw new Error("the server has no gc()");
  const { heapUsed } = await answer.json() as { heapUsed: number };
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { rss: (await memorySample(pid)).rss, heap: heapUsed };
}

async function dashboard(port: number, cookie: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/dashboard`, {
    headers: { cookie },
    redirect: "manual",
  });
  await response.body?.cancel();
  if (response.status !== 200) {
    throw new Error(`dashboard of a live session: ${response.status}`);
  }
}

/** `count` jobs on `CLIENTS` concurrent workers. */
async function inParallel(
  count: number,
  job: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

const results = new Map<string, number[]>();
const record = (key: string, value: number) =>
  results.set(key, [...results.get(key) ?? [], value]);

try {
  for (let round = 0; round < rounds; round++) {
    for (const name of CONTENDERS) {
      const server = await startContender(name, {
        flags: ["--v8-flags=--expose-gc"],
        kvPath: args.kv === "file"
          ? `${dir}/${name}-${round}.sqlite`
          : ":memory:",
      });
      try {
        const { port, pid } = server;
        // Warm-up: the code paths, then the sessions it made ended.
        await inParallel(400, async (i) => {
          await dashboard(port, await signIn(port, i % USERS));
        });
        const before = await memory(port, pid);
        const cookies: string[] = [];
        await inParallel(sessions, async (i) => {
          cookies.push(await signIn(port, i % USERS));
        });
        const after = await memory(port, pid);
        await inParallel(cookies.length, (i) => dashboard(port, cookies[i]!));
        const perThousand = (after.rss - before.rss) / sessions * 1000 / MIB;
        record(`RSS per 1,000 sessions (MiB)|${name}`, perThousand);
        record(
          `V8 heap per 1,000 sessions (MiB)|${name}`,
          (after.heap - before.heap) / sessions * 1000 / MIB,
        );

        // Soak: constant live sessions, RSS sampled.
        const samples: number[] = [];
        const deadline = performance.now() + soakSeconds * 1000;
        const sampler = (async () => {
          while (performance.now() < deadline) {
            samples.push((await memorySample(pid)).rss);
            await new Promise((resolve) => setTimeout(resolve, 2000));
          }
        })();
        let requests = 0;
        await Promise.all(
          Array.from({ length: CLIENTS }, async (_, client) => {
            let cookie: string | undefined;
            while (performance.now() < deadline) {
              cookie = await signIn(port, client % USERS, cookie);
              for (let view = 0; view < 5; view++) {
                await dashboard(port, cookie);
              }
              requests += 6;
            }
          }),
        );
        await sampler;
        const third = Math.floor(samples.length / 3);
        const middle = median(samples.slice(third, 2 * third));
        const last = median(samples.slice(2 * third));
        record(`soak plateau (MiB)|${name}`, middle / MIB);
        record(
          `soak growth after the plateau (MiB)|${name}`,
          (last - middle) / MIB,
        );
        console.error(
          `round ${round + 1} ${name}: RSS ${(before.rss / MIB).toFixed(1)} → ${
            (after.rss / MIB).toFixed(1)
          } MiB for ${sessions} sessions (${
            perThousand.toFixed(2)
          } MiB per 1,000); soak ${requests} requests, plateau ${
            (middle / MIB).toFixed(1)
          } MiB, last third ${(last / MIB).toFixed(1)} MiB`,
        );
      } finally {
        await server.stop();
      }
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}

const cell = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${median(values).toFixed(2)} (${sorted[0]!.toFixed(2)}–${
    sorted.at(-1)!.toFixed(2)
  })`;
};
console.log(`| figure | fetchkit | hono |`);
console.log("|---|---:|---:|");
for (const figure of new Set([...results.keys()].map((k) => k.split("|")[0]))) {
  console.log(
    `| ${figure} | ${cell(results.get(`${figure}|fetchkit`)!)} | ${
      cell(results.get(`${figure}|hono`)!)
    } |`,
  );
}
console.log(
  `\nmedian (min–max) of ${rounds} interleaved rounds; ${sessions} sessions; soak ${soakSeconds} s, ${CLIENTS} clients; KV ${
    args.kv === "file" ? "on a file" : "in memory"
  }`,
);
