/**
 * Shared by `load.ts` and `instructions.ts`: the scenarios, the servers
 * each runtime runs, the bundle of `_servers.ts` for Node and Bun, and the
 * command line that starts one server.
 *
 * @module
 */
import { denoBundle } from "../_bundle.ts";
import { join } from "node:path";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";
import { freePort, type Running, spawnReady } from "../_load.ts";
import { ORDER_BODY, ORDER_CHECK, PAGE_CHECK } from "./_app_data.ts";

export type { Running } from "../_load.ts";

/** One scenario: how to request it and what a correct answer holds. */
export interface Scenario {
  name: string;
  path: string;
  post: boolean;
  /** The status and a text the body must contain (checked before loading). */
  status: number;
  body: string;
  /**
   * `hello` (the five scenarios of `_servers.ts`) or `app` (the real-app
   * scenarios of `_apps.ts`, served by a process of its own).
   */
  group: "hello" | "app";
  /** A POST's body and type (default: `POST_BODY`, urlencoded). */
  send?: { body: string; type: string };
  /**
   * Sends the session cookie that `GET /login` set, and checks that the
   * answer rolls it (a new `Set-Cookie`) with a CSP nonce.
   */
  signedIn?: boolean;
}

export const SCENARIOS: Scenario[] = [
  {
    name: "static",
    path: "/",
    post: false,
    status: 200,
    body: "home",
    group: "hello",
  },
  {
    name: "two params",
    path: "/users/42/posts/7",
    post: false,
    status: 200,
    body: '"postId":"7"',
    group: "hello",
  },
  {
    name: "three middlewares",
    path: "/mw",
    post: false,
    status: 200,
    body: "mw",
    group: "hello",
  },
  {
    name: "404",
    path: "/no/such/page",
    post: false,
    status: 404,
    body: "",
    group: "hello",
  },
  {
    name: "urlencoded POST",
    path: "/echo",
    post: true,
    status: 200,
    body: "hello world",
    group: "hello",
  },
  {
    name: "signed-in page",
    path: "/page",
    post: false,
    status: 200,
    body: PAGE_CHECK,
    group: "app",
    signedIn: true,
  },
  {
    name: "validated JSON",
    path: "/api/orders",
    post: true,
    status: 200,
    body: ORDER_CHECK,
    group: "app",
    send: { body: ORDER_BODY, type: "application/json" },
  },
  {
    name: "cached page",
    path: "/cached",
    post: false,
    status: 200,
    body: PAGE_CHECK,
    group: "app",
  },
];

export const POST_BODY = "text=hello+world&n=1";

/** The servers of each runtime, ours first, the bare server last. */
export const SERVERS: Record<string, string[]> = {
  // hono-map: Hono with a `Map` as its response cache (the cached page
  // only), beside Hono's own cache() on the Cache API.
  deno: ["fetchkit", "fetchkit-formdata", "hono", "hono-map", "bare"],
  node: [
    "fetchkit",
    "fetchkit-formdata",
    // Ours with Fastify's validator (Ajv compiled from the same JSON
    // Schema) as the route's schema: the validated JSON only.
    "fetchkit-ajv",
    "fastify",
    "hono",
    "bare",
    "adapter",
  ],
  bun: [
    "fetchkit",
    "fetchkit-formdata",
    "elysia",
    "hono",
    "bare",
  ],
};

/** The servers that serve the real-app scenarios (`_apps.ts`). */
const APP_SERVERS = new Set([
  "fetchkit",
  "base",
  "hono",
  "elysia",
  "fastify",
]);

/** Servers that answer one constant text: loaded on the static route only. */
export function staticOnly(server: string): boolean {
  return server === "bare" || server === "adapter";
}

/**
 * Whether `server` is loaded on `scenario`: the real-app scenarios on
 * ours (and `base`, whose checkout must have `_apps.ts`) and the
 * frameworks, the bare servers on the static
 * route only, `fetchkit-formdata` (ours, its POST handler reading
 * `get(FormData)` instead of `get(FormFields)`) on the POST only, and
 * `hono-map` (Deno: Hono with a `Map` for a cache) on the cached page only,
 * and `fetchkit-ajv` (Node: ours with Fastify's Ajv validator as the
 * route's schema) on the validated JSON only.
 */
export function loads(server: string, scenario: string): boolean {
  const group = SCENARIOS.find((one) => one.name === scenario)?.group;
  if (server === "hono-map") return scenario === "cached page";
  if (server === "fetchkit-ajv") return scenario === "validated JSON";
  if (group === "app") return APP_SERVERS.has(server);
  if (staticOnly(server)) return scenario === "static";
  if (server === "fetchkit-formdata") return scenario === "urlencoded POST";
  return true;
}

/** Whether `server` is ours (a variant, or base), not a peer. */
export function isOurs(server: string): boolean {
  return server.startsWith("fetchkit") || server === "base";
}

/** `--name=value` options (the value may hold `=` itself). */
export function options(): Map<string, string> {
  return new Map(
    Deno.args.map((arg) => {
      const option = arg.replace(/^--/, "");
      const equals = option.indexOf("=");
      return (equals === -1
        ? [option]
        : [option.slice(0, equals), option.slice(equals + 1)]) as [
          string,
          string,
        ];
    }),
  );
}

/** Where the bundle and the wrk scripts go (beside node_modules). */
export const OUT: string = join(ROOT, "bench/runtimes/.out");
const SCRIPT = join(ROOT, "bench/runtimes/_servers.ts");

/**
 * The servers of `runtime`; with `--base=<dir>` (a checkout of an earlier
 * commit with this folder's `_servers.ts`), `base` after ours: the same
 * app on the earlier code, in the same sitting.
 */
export function serversOf(runtime: string, base: string | undefined): string[] {
  const names = SERVERS[runtime]!;
  return base === undefined ? names : [names[0]!, "base", ...names.slice(1)];
}

/**
 * Bundles `_servers.ts` (of `root`, this checkout by default) for Node and
 * Bun into this folder's `.out/` (so `node_modules` here resolves the
 * peers).
 */
export async function build(
  root: string = ROOT,
): Promise<{ bundle: string }> {
  const bundle = await denoBundle(
    join(root, "bench/runtimes/_servers.ts"),
    join(OUT, root === ROOT ? "servers.mjs" : "servers_base.mjs"),
    { cwd: root, external: ["@hono/node-server"] },
  );
  return { bundle };
}

/**
 * The caches `--sim` simulates, stated rather than detected: on this VM
 * valgrind reads a last level of 320 MB, direct-mapped, from the CPU's
 * identification (a hypervisor's figure) and simulates 256 MB of it, where
 * `lscpu` gives an AMD EPYC with 32 KiB 8-way first-level caches a core
 * and a 32 MiB 16-way shared last level (lines of 64 bytes).
 */
export const SIM_CACHES = [
  "--I1=32768,8,64",
  "--D1=32768,8,64",
  "--LL=33554432,16,64",
];

/**
 * The `wrap` of `start` for a count under callgrind: counting off at
 * start (switched on per window with `callgrind_control`), JIT code
 * checked, one output file per thread with `separateThreads`; with
 * `simulate`, callgrind's cache and branch-predictor simulation too
 * (`--cache-sim=yes --branch-sim=yes`: I1, D1 and last-level misses and
 * mispredicted conditional and indirect branches, beside `Ir`).
 */
export function callgrindWrap(
  outFile: string,
  separateThreads: boolean,
  simulate = false,
): string[] {
  return [
    "valgrind",
    "--tool=callgrind",
    "--smc-check=all-non-file",
    "--instr-atstart=no",
    ...(separateThreads ? ["--separate-threads=yes"] : []),
    ...(simulate ? ["--cache-sim=yes", "--branch-sim=yes", ...SIM_CACHES] : []),
    `--callgrind-out-file=${outFile}`,
  ];
}

/**
 * Starts `server` on `runtime`, under `wrap` (valgrind) when given; `base`
 * is ours from `bundles.base` (or the base checkout, on Deno); `v8Flags`
 * go to V8 on Deno and Node.
 */
export async function start(
  runtime: string,
  server: string,
  bundles: { bundle: string; base?: string; baseRoot?: string },
  wrap: string[] = [],
  group: "hello" | "app" = "hello",
  v8Flags: string[] = [],
): Promise<Running> {
  const port = freePort();
  const isBase = server === "base";
  const root = isBase ? bundles.baseRoot! : ROOT;
  const command = runtime === "deno"
    ? [
      Deno.execPath(),
      "run",
      ...(v8Flags.length === 0 ? [] : [`--v8-flags=${v8Flags.join(",")}`]),
      "--allow-net=127.0.0.1",
      // bench/runtimes/package.json would otherwise be its config.
      `--config=${join(root, "deno.json")}`,
      isBase ? join(root, "bench/runtimes/_servers.ts") : SCRIPT,
    ]
    : [
      runtime === "node" ? "node" : await bunBinary() ?? "bun",
      // Node takes V8's flags as its own; Bun's engine is not V8.
      ...(runtime === "node" ? v8Flags : []),
      isBase ? bundles.base! : bundles.bundle,
    ];
  const argv = [
    ...wrap,
    ...command,
    isBase ? "fetchkit" : server,
    String(port),
    group,
  ];
  return await spawnReady(argv, port, {
    cwd: ROOT,
    what: `${runtime} ${server} ${group}`,
  });
}

/**
 * Checks that a server answers `scenario` correctly (throws if not), and
 * gives the wrk script that sends the scenario's request (`undefined` for
 * a plain GET): its POST body, or the session cookie `GET /login` set.
 */
export async function prepare(
  port: number,
  scenario: Scenario,
  what: string,
): Promise<string | undefined> {
  const base = `http://127.0.0.1:${port}`;
  let cookie: string | undefined;
  if (scenario.signedIn) {
    const login = await fetch(`${base}/login`);
    await login.body?.cancel();
    cookie = login.headers.get("set-cookie")?.split(";")[0];
    if (cookie === undefined) throw new Error(`${what}: /login set no cookie`);
  }
  const send = scenario.post
    ? scenario.send ?? {
      body: POST_BODY,
      type: "application/x-www-form-urlencoded",
    }
    : undefined;
  const headers: Record<string, string> = {};
  if (send !== undefined) headers["Content-Type"] = send.type;
  if (cookie !== undefined) headers["Cookie"] = cookie;
  for (let pass = 0; pass < 2; pass++) {
    // Twice: the cached page's first answer is a miss.
    const response = await fetch(`${base}${scenario.path}`, {
      method: scenario.post ? "POST" : "GET",
      body: send?.body,
      headers,
    });
    const body = await response.text();
    if (response.status !== scenario.status || !body.includes(scenario.body)) {
      throw new Error(
        `${what} ${scenario.name}: ${response.status} ${
          JSON.stringify(body.slice(0, 300))
        }`,
      );
    }
    if (
      scenario.signedIn &&
      (!response.headers.get("set-cookie")?.startsWith("session=") ||
        !/'nonce-[^']+'/.test(
          response.headers.get("content-security-policy") ?? "",
        ))
    ) {
      throw new Error(
        `${what} ${scenario.name}: no rolled session cookie or CSP nonce`,
      );
    }
  }
  if (send === undefined && cookie === undefined) return undefined;
  const lua = [
    `wrk.method = "${scenario.post ? "POST" : "GET"}"`,
    ...(send === undefined ? [] : [`wrk.body = ${JSON.stringify(send.body)}`]),
    ...Object.entries(headers).map(([name, value]) =>
      `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`
    ),
  ].join("\n");
  const file = join(
    OUT,
    `${what.replaceAll(/\W+/g, "_")}_${scenario.path.replaceAll("/", "_")}.lua`,
  );
  await Deno.writeTextFile(file, lua + "\n");
  return file;
}

/**
 * What `load.ts --save=NAME` writes to `.out/NAME.json`: per
 * `runtime|scenario|server`, one value a round (µs a request, or a count
 * a request for faults, waits and preemptions). Saves made before the
 * CPU was taken apart have `cpu` only.
 */
export interface SavedRounds {
  rps?: Record<string, number[]>;
  cpu: Record<string, number[]>;
  user?: Record<string, number[]>;
  system?: Record<string, number[]>;
  main?: Record<string, number[]>;
  faults?: Record<string, number[]>;
  wakeups?: Record<string, number[]>;
  preempted?: Record<string, number[]>;
}

/**
 * CPU time (user and system, all threads) a process has used, in
 * seconds, from `/proc/<pid>/stat` (Linux; 100 ticks a second).
 */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = await statFields(`/proc/${pid}/stat`);
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * What a process has used so far, from `/proc/<pid>/stat` and its main
 * thread's `/proc/<pid>/task/<pid>/stat` (Linux; 100 ticks a second):
 * user and system CPU seconds of every thread, the main thread's share of
 * each, and its minor page faults (every thread's).
 */
export interface CpuUse {
  /** User CPU seconds, every thread (live and ended). */
  user: number;
  /** System (kernel) CPU seconds, every thread. */
  system: number;
  /** User CPU seconds of the main thread. */
  mainUser: number;
  /** System CPU seconds of the main thread. */
  mainSystem: number;
  /** Minor page faults, every thread. */
  faults: number;
  /**
   * The main thread's voluntary context switches: how often it waited for
   * work (its event loop's `epoll_wait` found nothing ready), so how few
   * requests each wake-up served.
   */
  wakeups: number;
  /**
   * The main thread's involuntary context switches: how often another
   * process (or thread) took its core, which costs it cache and TLB.
   */
  preempted: number;
}

/** The fields of a `stat` file after the command's name (state first). */
async function statFields(file: string): Promise<string[]> {
  const stat = await Deno.readTextFile(file);
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * {@linkcode CpuUse} of `pid` now: `user + system` is what
 * {@linkcode cpuSeconds} gives; the rest says where it went (kernel or
 * user space, the main thread or the runtime's helper threads) and how
 * often the process touched fresh memory.
 */
export async function cpuUse(pid: number): Promise<CpuUse> {
  const [all, main, status] = await Promise.all([
    statFields(`/proc/${pid}/stat`),
    statFields(`/proc/${pid}/task/${pid}/stat`),
    Deno.readTextFile(`/proc/${pid}/task/${pid}/status`),
  ]);
  const switches = (kind: string) =>
    Number(
      new RegExp(`^${kind}_ctxt_switches:\\s+(\\d+)`, "m").exec(status)?.[1],
    );
  // After the name: state, ppid, pgrp, session, tty, tpgid, flags, minflt
  // (7), cminflt, majflt, cmajflt, utime (11), stime (12).
  return {
    user: Number(all[11]) / 100,
    system: Number(all[12]) / 100,
    mainUser: Number(main[11]) / 100,
    mainSystem: Number(main[12]) / 100,
    faults: Number(all[7]),
    wakeups: switches("voluntary"),
    preempted: switches("nonvoluntary"),
  };
}

/**
 * Where a median of per-round ratios stands against 1.00: the interval of
 * the rounds' order statistics that holds the true median with 95 % or
 * more (distribution-free, the sign test's interval: for 9 rounds the 2nd
 * and 8th smallest), and the rule that reads it: `above` when the whole
 * interval is above 1.00, `below` when it is below, `level` otherwise.
 * Under 6 rounds no interval reaches 95 % (5 rounds: min-max holds the
 * median with 94 %): then the min-max and its own coverage are given.
 */
export function levelRule(
  ratios: readonly number[],
): { low: number; high: number; coverage: number; verdict: string } {
  const sorted = ratios.toSorted((a, b) => a - b);
  const n = sorted.length;
  // P(X <= k) for X ~ Binomial(n, 1/2).
  const below = (k: number) => {
    let sum = 0;
    let term = 0.5 ** n;
    for (let i = 0; i <= k; i++) {
      sum += term;
      term = term * (n - i) / (i + 1);
    }
    return sum;
  };
  // [sorted[cut], sorted[n - 1 - cut]] misses the median when `cut` or
  // fewer rounds fall on one side of it: coverage 1 - 2 P(X <= cut). The
  // most rounds cut from each end with coverage still >= 95 %.
  const coverageOf = (cut: number) => 1 - 2 * below(cut);
  let cut = 0;
  while (cut + 1 < n / 2 && coverageOf(cut + 1) >= 0.95) cut++;
  const coverage = coverageOf(cut);
  const low = sorted[cut]!;
  const high = sorted[n - 1 - cut]!;
  const verdict = coverage < 0.95
    ? "too few rounds"
    : low > 1
    ? "above"
    : high < 1
    ? "below"
    : "level";
  return { low, high, coverage, verdict };
}

/**
 * The weights of `estimatedCycles`, in cycles an event beyond the
 * instruction itself: KCachegrind's cycle estimate (`CEst = Ir + 10 Bm +
 * 10 L1m + 100 LLm`), which follows the Cachegrind manual's "an L1 miss
 * will typically cost around 10 cycles, an LL miss can cost as much as
 * 200 cycles, and a mispredicted branch costs in the region of 10 to 30
 * cycles". A last-level miss is an L1 miss too: it weighs 10 + 100.
 */
export const CYCLE_WEIGHTS = { l1Miss: 10, llMiss: 100, mispredict: 10 };

/** Simulated events a request, summed the way `estimatedCycles` weighs them. */
export interface SimulatedEvents {
  /** Instructions (`Ir`). */
  ir: number;
  /** Instruction-cache misses of the first level (`I1mr`). */
  i1: number;
  /** Data-cache misses of the first level, reads and writes (`D1mr + D1mw`). */
  d1: number;
  /** Last-level misses, instruction and data (`ILmr + DLmr + DLmw`). */
  ll: number;
  /** Mispredicted conditional branches (`Bcm`). */
  bcm: number;
  /** Mispredicted indirect branches (`Bim`). */
  bim: number;
  /** `ir` + the weighted misses and mispredicts (`CYCLE_WEIGHTS`). */
  cycles: number;
}

/**
 * A callgrind dump's events (`dumpEvents`, under `--cache-sim=yes
 * --branch-sim=yes`) divided by `answers`, and the estimated cycles: `Ir`
 * + 10 a first-level miss (I1 and D1) + 100 more a last-level miss + 10 a
 * mispredicted branch (`CYCLE_WEIGHTS`). Events the dump lacks count 0.
 */
export function estimatedCycles(
  events: Record<string, number>,
  answers = 1,
): SimulatedEvents {
  const get = (...names: string[]) =>
    names.reduce((sum, name) => sum + (events[name] ?? 0), 0) / answers;
  const ir = get("Ir"), i1 = get("I1mr"), d1 = get("D1mr", "D1mw");
  const ll = get("ILmr", "DLmr", "DLmw"), bcm = get("Bcm"), bim = get("Bim");
  const cycles = ir + CYCLE_WEIGHTS.l1Miss * (i1 + d1) +
    CYCLE_WEIGHTS.llMiss * ll + CYCLE_WEIGHTS.mispredict * (bcm + bim);
  return { ir, i1, d1, ll, bcm, bim, cycles };
}
