/**
 * Running the app as a service: Prometheus metrics, health endpoints, and
 * the app's own numbers.
 *
 * - `GET /livez`: 200 while the process serves. `GET /readyz`: the
 *   store checks (the KV database, and Redis when sessions live there)
 *   within 2 s; 503 naming what failed, and 503 `{"status":"draining"}`
 *   from the moment `serve()` begins a shutdown (see `serve()`'s
 *   `drainMs`). Both are answered before the logger, the session and
 *   CSRF, so a load balancer's probes (every half second per instance)
 *   write no log line and make no session.
 * - `GET /metrics`: `@fetchkit/toolkit/metrics` (requests by route, store
 *   calls, the process), plus `auth_sign_ins_total{method}` (password,
 *   register, passkey, oauth) and `auth_sign_in_failures_total{method,reason}`
 *   (`bad_credentials`, `rate_limited`, `invalid_input`, `too_large`,
 *   `rejected`), and `auth_jobs{state}` (the mail queue's jobs waiting,
 *   delayed, active and dead, read at each scrape) and
 *   `auth_jobs_total{name,outcome}` (attempts this process's workers ran:
 *   done, retry, dead). Answered only to a client on a loopback address (with
 *   `trustProxy`, the client the proxy names): the numbers are for the
 *   operator's Prometheus, not for visitors.
 *
 * A sign-in is counted when a request on a sign-in route leaves its
 * session signed in as a user it was not signed in as before; a refused
 * attempt on such a route counts as a failure, with the reason read from
 * the answer's status.
 *
 * @module
 */
import type {
  Middleware,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import { createHealthCheck } from "@fetchkit/toolkit/health";
import {
  createMetricsRegistry,
  metrics,
  metricsHandler,
  type MetricsRegistry,
} from "@fetchkit/toolkit/metrics";
import type { JobCounts, JobSettled } from "@fetchkit/toolkit/jobs";
import { Session } from "./context.ts";

/** Options of {@linkcode createOperations}. */
export interface OperationsOptions {
  /** Readiness checks by name (the app's stores). */
  checks: Record<string, () => Promise<unknown>>;
  /**
   * Where the numbers go. Default: one registry for every app of the
   * process (made on first use), so apps made again and again (tests)
   * add no sampler or store observer each.
   */
  registry?: MetricsRegistry;
  /** The checks' time limit in ms. Default 2000. */
  timeoutMs?: number;
  /**
   * The job queue, whose jobs by state `/metrics` shows (`auth_jobs{state}`),
   * and whose attempts by outcome it counts (`auth_jobs_total{name,outcome}`)
   * when the queue can tell them.
   */
  jobs?: {
    stats(): Promise<JobCounts>;
    onSettled?(listener: (event: JobSettled) => void): void;
  };
}

/** The middleware of {@linkcode createOperations}, and the registry. */
export interface Operations {
  /** First in the chain: counts and times every request. */
  metrics: Middleware;
  /** Right after `metrics`: answers `/livez`, `/readyz` and `/metrics`. */
  endpoints: Middleware;
  /** After the session middleware: counts sign-ins and their failures. */
  signIns: Middleware;
  /** The registry (the app may add its own metrics). */
  registry: MetricsRegistry;
}

/** Sign-in routes (pattern and method) and the method they count as. */
const SIGN_IN_ROUTES: Record<string, string> = {
  "POST /auth/login": "password",
  "POST /auth/register": "register",
  "POST /passkeys/login": "passkey",
  "GET /auth/oauth/:provider/callback": "oauth",
};

function failureReason(method: string, status: number): string | undefined {
  if (status === 429) return "rate_limited";
  if (status === 422) return "invalid_input";
  if (status === 413) return "too_large";
  // A refused login sends the form back with a flash (303); a refused
  // registration (email in use) is not a failed sign-in.
  if (method === "password" && status === 303) return "bad_credentials";
  if (method === "passkey" || method === "oauth") {
    return status >= 400 || status === 303 || status === 302
      ? "rejected"
      : undefined;
  }
  return undefined;
}

function isLoopback(hostname: string | undefined): boolean {
  return hostname !== undefined &&
    (hostname.startsWith("127.") || hostname === "::1" ||
      hostname === "::ffff:127.0.0.1");
}

/** The path of a request URL (`http://host/path?query`), without parsing it. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}

let shared: MetricsRegistry | undefined;

/**
 * The app's metrics, health endpoints and sign-in counts (see the module
 * documentation).
 */
export function createOperations(options: OperationsOptions): Operations {
  const registry = options.registry ?? (shared ??= createMetricsRegistry());
  const health = createHealthCheck({
    checks: options.checks,
    timeoutMs: options.timeoutMs,
  });
  const scrape = metricsHandler({ registry });
  const signIns = registry.counter({
    name: "auth_sign_ins_total",
    help:
      "Successful sign-ins, by method (password, register, passkey, oauth).",
    labelNames: ["method"],
  });
  const failures = registry.counter({
    name: "auth_sign_in_failures_total",
    help: "Refused sign-ins, by method and reason.",
    labelNames: ["method", "reason"],
  });

  const jobStates = registry.gauge({
    name: "auth_jobs",
    help:
      "The app's background jobs (mail) by state: waiting, delayed, active, dead.",
    labelNames: ["state"],
  });
  const jobs = options.jobs;
  const jobOutcomes = registry.counter({
    name: "auth_jobs_total",
    help:
      "Attempts of the app's background jobs run in this process, by job name and outcome (done, retry, dead).",
    labelNames: ["name", "outcome"],
  });
  jobs?.onSettled?.(({ name, outcome }) => jobOutcomes.inc({ name, outcome }));
  /** The scrape, after the job counts are read (left as they were if the store fails). */
  async function scrapeWithJobs(context: RequestContext): Promise<Response> {
    if (jobs !== undefined) {
      try {
        const counts: JobCounts = await jobs.stats();
        for (const [state, count] of Object.entries(counts)) {
          jobStates.set({ state }, count);
        }
      } catch {
        // The store is down: the scrape still answers (readiness says why).
      }
    }
    return scrape(context);
  }

  const endpoints: Middleware = (context, next) => {
    const method = context.method;
    if (method !== "GET" && method !== "HEAD") return next();
    const path = pathOf(context.request.url);
    switch (path) {
      case "/livez":
        context.routePattern = path;
        return health.live();
      case "/readyz":
        context.routePattern = path;
        return health.ready();
      case "/metrics":
        context.routePattern = path;
        if (!isLoopback(context.remoteAddr?.hostname)) {
          return new Response("Not Found", { status: 404 });
        }
        return scrapeWithJobs(context);
    }
    return next();
  };

  const countSignIns: Middleware = async (
    context: RequestContext,
    next,
  ) => {
    const session = context.get(Session);
    const before = session?.get("userId");
    const response = await next();
    const route = `${context.method} ${context.routePattern}`;
    const kind = SIGN_IN_ROUTES[route];
    if (kind === undefined || session === undefined) return response;
    const after = session.get("userId");
    if (after !== undefined && after !== before) {
      signIns.inc({ method: kind });
    } else {
      const reason = failureReason(kind, response.status);
      if (reason !== undefined) failures.inc({ method: kind, reason });
    }
    return response;
  };

  return {
    metrics: metrics({ registry }),
    endpoints,
    signIns: countSignIns,
    registry,
  };
}
