/**
 * Per-request cost of the production middleware (rateLimit with the memory
 * store, secureHeaders, requestId, the logger's %ip line) against Hono's
 * counterparts, in one process, interleaved: each round times every
 * contender once (in a rotated order), and each figure is the median over
 * rounds of the process's CPU time per request. "Overhead" is the contender minus its bare router in the same
 * round (median of those per-round differences).
 *
 *     deno run --allow-all bench/middleware/production_report.ts [--rounds 15] [--n 20000] [--only rateLimit]
 *
 * `--only` keeps the groups whose name contains the text.
 *
 * @module
 */
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { rateLimit } from "@fetchkit/toolkit/rate-limit-middleware";
import { secureHeaders } from "@fetchkit/toolkit/secure-headers-middleware";
import { requestId } from "@fetchkit/toolkit/request-id-middleware";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import type { Middleware } from "@fetchkit/toolkit/fetch-router";
import { Hono, type MiddlewareHandler } from "hono";
import { NONCE, secureHeaders as honoSecureHeaders } from "hono/secure-headers";
import { requestId as honoRequestId } from "hono/request-id";
import { logger as honoLogger } from "hono/logger";
import { rateLimiter as honoRateLimiter } from "hono-rate-limiter";
import { cpuUsage } from "node:process";
import { median } from "../_stats.ts";

const args = Deno.args;
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const ROUNDS = option("--rounds", 15);
const N = option("--n", 20_000);

const info = {
  remoteAddr: { hostname: "192.0.2.10", port: 50000, transport: "tcp" },
};
const request = new Request("http://localhost/hello");
const noop = () => {};

type Fetch = () => Response | Promise<Response>;

function ours(...middleware: Middleware[]): Fetch {
  const router: Router = createRouter({ middleware });
  router.get("/hello", () => new Response("hello"));
  return () => router.fetch(request, info);
}

function hono(...middleware: MiddlewareHandler[]): Fetch {
  const app = new Hono();
  for (const one of middleware) app.use(one);
  app.get("/hello", () => new Response("hello"));
  return () => app.fetch(request);
}

const HUGE = 1_000_000_000;
const allGroups: Record<string, Record<string, Fetch>> = {
  "rateLimit, memory store": {
    "fetchkit": ours(),
    "fetchkit + rateLimit()": ours(
      rateLimit({ limit: HUGE, windowMs: 60_000 }),
    ),
    'fetchkit + rateLimit({ algorithm: "lockout" })': ours(
      rateLimit({ limit: HUGE, windowMs: 60_000, algorithm: "lockout" }),
    ),
    "Hono": hono(),
    "Hono + hono-rate-limiter": hono(honoRateLimiter({
      limit: HUGE,
      windowMs: 60_000,
      keyGenerator: () => "192.0.2.10",
      standardHeaders: "draft-7",
    })),
  },
  "secureHeaders, defaults": {
    "fetchkit": ours(),
    "fetchkit + secureHeaders()": ours(secureHeaders()),
    "fetchkit + secureHeaders({ overwrite: true })": ours(
      secureHeaders({ overwrite: true }),
    ),
    "Hono": hono(),
    "Hono + secureHeaders()": hono(honoSecureHeaders()),
  },
  "secureHeaders, CSP with a nonce": {
    "fetchkit": ours(),
    "fetchkit + secureHeaders(csp)": ours(secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", "'nonce'"],
      },
    })),
    "Hono": hono(),
    "Hono + secureHeaders(csp)": hono(honoSecureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", NONCE],
      },
    })),
  },
  "requestId": {
    "fetchkit": ours(),
    "fetchkit + requestId()": ours(requestId()),
    "Hono": hono(),
    "Hono + requestId()": hono(honoRequestId()),
  },
  "logger": {
    "fetchkit": ours(),
    "fetchkit + logger(%method %path %status)": ours(
      logger({ format: "%method %path %status", log: noop }),
    ),
    "fetchkit + logger(%ip %method %path %status)": ours(
      logger({ format: "%ip %method %path %status", log: noop }),
    ),
    "Hono": hono(),
    "Hono + logger()": hono(honoLogger(noop)),
  },
};

const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : "";
const groups = Object.fromEntries(
  Object.entries(allGroups).filter(([group]) => group.includes(only)),
);

// Every contender answers, with its middleware's headers.
for (const [group, contenders] of Object.entries(groups)) {
  for (const [name, fetch] of Object.entries(contenders)) {
    const response = await fetch();
    if (response.status !== 200 || await response.text() !== "hello") {
      throw new Error(`${group} / ${name} does not answer 200 hello`);
    }
  }
}

// CPU time of this process (user + system), not wall time: on a shared
// machine, time spent waiting for a core is not the code's cost.
async function time(fetch: Fetch): Promise<number> {
  const start = cpuUsage();
  for (let i = 0; i < N; i++) {
    const response = fetch();
    if (!(response instanceof Response)) await response;
  }
  const used = cpuUsage(start);
  return (used.user + used.system) * 1000 / N;
}

const times: Record<string, Record<string, number[]>> = {};
for (const [group, contenders] of Object.entries(groups)) {
  times[group] = Object.fromEntries(
    Object.keys(contenders).map((name) => [name, []]),
  );
  // Warm-up.
  for (const fetch of Object.values(contenders)) await time(fetch);
}
for (let round = 0; round < ROUNDS; round++) {
  for (const [group, contenders] of Object.entries(groups)) {
    const names = Object.keys(contenders);
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      times[group][name].push(await time(contenders[name]));
    }
  }
}

console.log(
  `${Deno.version.deno}, ${ROUNDS} rounds x ${N} requests, CPU ns per request (median of rounds; overhead = median of per-round differences to the bare router)\n`,
);
for (const [group, byName] of Object.entries(times)) {
  console.log(`| ${group} | ns/request | overhead |`);
  console.log("|---|---:|---:|");
  for (const [name, values] of Object.entries(byName)) {
    const bare = name.startsWith("Hono") ? byName["Hono"] : byName["fetchkit"];
    const overhead = median(values.map((value, i) => value - bare[i]));
    const bareName = name === "Hono" || name === "fetchkit";
    console.log(
      `| ${name} | ${Math.round(median(values))} | ${
        bareName ? "" : Math.round(overhead)
      } |`,
    );
  }
  console.log();
}
