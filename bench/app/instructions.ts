/**
 * Instructions per request of the whole auth app and of the same app on
 * Hono (`hono.ts`), on Deno: each server runs under valgrind's callgrind
 * with counting off; each request is warmed (`warm` passes of `requests`),
 * then counted over `requests` requests (one at a time, over loopback) with
 * counting switched on and off by `callgrind_control` (`../_callgrind.ts`),
 * all the server's threads (bcrypt's, KV's, V8's) included, and the count
 * divided by the requests. A fixed number of requests, not wrk's time
 * window: under callgrind on a loaded machine a 5 s window can complete no
 * request at all. The contenders alternate (fetchkit, hono, fetchkit,
 * hono...) for `rounds` windows each; the median and the range are
 * printed. Counts do not depend on what else the machine runs. The
 * dashboard is asked for twice: as Deno's fetch asks (`Accept-Encoding:
 * gzip, br`, as browsers do; ours compresses the page, Hono's app has no
 * `compress()`), and with `identity`, the same work in both.
 *
 *   deno run -A --unstable-kv bench/app/instructions.ts [--rounds=3] [--requests=100] [--warm=3] [--concurrency=1] [--scenarios=dashboard,identity,login] [--before=<dir>]
 *
 * `--before=<dir>`: a third contender, `before`, ours from another copy of
 * the repository (`git archive <commit> | tar -x -C <dir>`), alternating
 * with the other two.
 *
 * Needs `valgrind`; some minutes. The stores' timeout of the example (5 s) is
 * raised to 120 s in both servers' environment (`STORE_TIMEOUT_MS`, see
 * `_server.ts`): under callgrind a KV call can take longer.
 *
 * @module
 */
import { countWhile } from "../_callgrind.ts";
import type { Running } from "../_load.ts";
import { median } from "../_stats.ts";
import {
  type Contender,
  CONTENDERS,
  formHeaders,
  loginBody,
  options,
  origin,
  signIn,
  startContender,
  USERS,
} from "./_contenders.ts";

const args = options();
const rounds = Number(args.rounds ?? 3);
const requests = Number(args.requests ?? 100);
const warm = Number(args.warm ?? 3);
// One at a time: under callgrind the server runs some 30x slower (one
// thread at a time), and with requests queued behind each other a KV call
// of ours can pass its 5 s store timeout (a 503, as in an outage).
const CONCURRENCY = Number(args.concurrency ?? 1);

/** A measured request: `send(port, i)` sends the `i`th and checks it. */
interface Scenario {
  name: string;
  prepare(port: number): Promise<(i: number) => Promise<void>>;
}

async function expect(response: Promise<Response>, status: number) {
  const answer = await response;
  await answer.body?.cancel();
  if (answer.status !== status) {
    throw new Error(`${answer.url}: ${answer.status}, not ${status}`);
  }
}

const ALL: Scenario[] = [{
  name: "GET /dashboard (signed in)",
  async prepare(port) {
    const cookie = await signIn(port);
    return () =>
      expect(fetch(`${origin(port)}/dashboard`, { headers: { cookie } }), 200);
  },
}, {
  // The same page uncompressed: Hono's app has no compress(), so this is
  // the same work in both (Deno's fetch, as browsers, asks for gzip, br).
  name: "GET /dashboard (signed in, identity)",
  async prepare(port) {
    const cookie = await signIn(port);
    return () =>
      expect(
        fetch(`${origin(port)}/dashboard`, {
          headers: { cookie, "accept-encoding": "identity" },
        }),
        200,
      );
  },
}, {
  name: "POST /auth/login (bcrypt cost 4)",
  prepare(port) {
    return Promise.resolve((i) =>
      expect(
        fetch(`${origin(port)}/auth/login`, {
          method: "POST",
          headers: formHeaders(port),
          body: loginBody(i % USERS),
          redirect: "manual",
        }),
        303,
      )
    );
  },
}];

const SCENARIOS = ALL.filter((scenario) =>
  args.scenarios === undefined ||
  args.scenarios.split(",").some((word) => scenario.name.includes(word))
);

/** `count` requests, `CONCURRENCY` at a time. */
async function send(
  request: (i: number) => Promise<void>,
  count: number,
): Promise<number> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await request(next++);
    }),
  );
  return count;
}
const dir = await Deno.makeTempDir({ prefix: "app-callgrind-" });

type Name = Contender | "before";
const before = args.before;
const NAMES: Name[] = before === undefined
  ? [...CONTENDERS]
  : ["fetchkit", "before", "hono"];
const running = new Map<Name, Running>();
const counts = new Map<string, number[]>();
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
try {
  for (const name of NAMES) {
    running.set(
      name,
      await startContender(name === "before" ? "fetchkit" : name, {
        root: name === "before" ? before : undefined,
        prefix: [
          "valgrind",
          "--tool=callgrind",
          "--smc-check=all-non-file",
          "--instr-atstart=no",
          `--callgrind-out-file=${dir}/callgrind.${name}`,
        ],
        env: { STORE_TIMEOUT_MS: "120000" },
      }),
    );
  }
  // Callgrind numbers each process's dumps 1, 2, ...
  const dumps = new Map<Name, number>();
  for (const scenario of SCENARIOS) {
    const senders = new Map<Name, (i: number) => Promise<void>>();
    for (const [name, server] of running) {
      senders.set(name, await scenario.prepare(server.port));
    }
    for (let pass = 0; pass < warm; pass++) {
      for (const name of NAMES) await send(senders.get(name)!, requests);
    }
    for (let round = 0; round < rounds; round++) {
      for (const name of NAMES) {
        const dump = (dumps.get(name) ?? 0) + 1;
        dumps.set(name, dump);
        const { total } = await countWhile(
          running.get(name)!.pid,
          `${dir}/callgrind.${name}.${dump}`,
          () => send(senders.get(name)!, requests),
        );
        const key = `${scenario.name}|${name}`;
        counts.set(key, [...counts.get(key) ?? [], total / requests]);
        console.error(
          `round ${round + 1} ${scenario.name} ${name}: ${
            fmt(total / requests)
          }`,
        );
      }
    }
  }
} finally {
  for (const server of running.values()) await server.stop();
  await Deno.remove(dir, { recursive: true });
}

const cell = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${fmt(median(values))} (${fmt(sorted[0]!)}–${fmt(sorted.at(-1)!)})`;
};
const extra = before === undefined ? "" : " before instructions/request |";
console.log(
  `| request | fetchkit instructions/request |${extra} hono instructions/request | fetchkit ÷ hono (medians) |`,
);
console.log(`|---|---:|${before === undefined ? "" : "---:|"}---:|---:|`);
for (const scenario of SCENARIOS) {
  const ours = counts.get(`${scenario.name}|fetchkit`)!;
  const hono = counts.get(`${scenario.name}|hono`)!;
  const then = before === undefined
    ? ""
    : ` ${cell(counts.get(`${scenario.name}|before`)!)} |`;
  console.log(
    `| ${scenario.name} | ${cell(ours)} |${then} ${cell(hono)} | ${
      (median(ours) / median(hono)).toFixed(2)
    } |`,
  );
}
console.log(
  `\nmedian (min–max) of ${rounds} interleaved windows of ${requests} requests, ${CONCURRENCY} at a time, under callgrind`,
);
