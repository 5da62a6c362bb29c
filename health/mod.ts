/**
 * Health endpoints a load balancer or an orchestrator can trust:
 *
 * - `live` (`GET /livez`) answers 200 `{"status":"ok"}` while the process
 *   serves; it runs no check, so a slow dependency never makes the
 *   process look dead (and get it restarted).
 * - `ready` (`GET /readyz`) runs every check in parallel, each within
 *   `timeoutMs` (2 s): 200 `{"status":"ok","checks":{"store":{"status":"ok","ms":1}}}`
 *   when all pass; 503 `{"status":"failed","failed":["store"],"checks":{...}}`
 *   naming each check that threw (`"failed"`) or took too long
 *   (`"timeout"`). From the moment `serve()` begins a shutdown (SIGTERM,
 *   `shutdown()`), it answers 503 `{"status":"draining"}` without running
 *   the checks; with `serve()`'s `drainMs` the listener keeps serving that
 *   long, so the load balancer stops sending before connections close.
 *
 * Requests that arrive while the checks run share that one run. The
 * checks' error messages are not sent (they may name hosts or
 * credentials); they are passed to `onError` (default `console.error`).
 * Both answers are `Cache-Control: no-store`.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { createHealthCheck } from "@fetchkit/toolkit/health";
 *
 * const health = createHealthCheck({
 *   checks: { store: () => Promise.resolve("PONG") },
 *   timeoutMs: 1000,
 * });
 * const router = createRouter();
 * router.get("/livez", health.live);
 * router.get("/readyz", health.ready);
 *
 * const response = await router.fetch(new Request("http://localhost/readyz"));
 * response.status; // 200
 * ```
 *
 * @module
 */

import { isDraining } from "../serve/draining.ts";

/** A check: resolves when the dependency is usable, rejects when not. */
export type HealthCheckFn = () => Promise<unknown>;

/**
 * Options of {@linkcode createHealthCheck}.
 *
 * @example
 * ```ts
 * import type { HealthCheckOptions } from "@fetchkit/toolkit/health";
 *
 * const options: HealthCheckOptions = { checks: { db: async () => {} }, timeoutMs: 500 };
 * ```
 */
export interface HealthCheckOptions {
  /** The checks of `ready`, by name. Default: none. */
  checks?: Record<string, HealthCheckFn>;
  /**
   * How long each check may take, in ms; past it the check counts as
   * `"timeout"` (it is not waited for).
   *
   * @default {2000}
   */
  timeoutMs?: number;
  /** Told why a check failed or timed out. Default: `console.error`. */
  onError?: (name: string, error: unknown) => void;
}

/** One check's result in the body of `ready`. */
export interface CheckResult {
  /** `"ok"`, `"failed"` (it threw) or `"timeout"`. */
  status: "ok" | "failed" | "timeout";
  /** How long it took, in whole ms (the limit for a timeout). */
  ms: number;
}

/**
 * The handlers of {@linkcode createHealthCheck}; each takes the router's
 * context or a plain `Request`.
 *
 * @example
 * ```ts
 * import { createHealthCheck, type HealthCheck } from "@fetchkit/toolkit/health";
 *
 * const health: HealthCheck = createHealthCheck();
 * (await health.ready(new Request("http://localhost/readyz"))).status; // 200
 * ```
 */
export interface HealthCheck {
  /** 200 while the process serves. */
  live(context?: { request: Request } | Request): Response;
  /** 200 when every check passes in time; 503 when one does not, or while draining. */
  ready(context?: { request: Request } | Request): Promise<Response>;
}

const HEADERS = {
  "content-type": "application/json",
  "cache-control": "no-store",
};

function json(body: unknown, status: number): Response {
  return new Response(JSON.stringify(body), { status, headers: HEADERS });
}

interface Run {
  ok: boolean;
  checks: Record<string, CheckResult>;
  failed: string[];
}

/**
 * Liveness and readiness handlers (see the module documentation).
 *
 * @example A check that hangs: readiness is 503 within the limit, liveness is 200
 * ```ts
 * import { createHealthCheck } from "@fetchkit/toolkit/health";
 *
 * const health = createHealthCheck({
 *   checks: { redis: () => new Promise(() => {}) },
 *   timeoutMs: 50,
 *   onError: () => {},
 * });
 * health.live().status; // 200
 * const ready = await health.ready();
 * ready.status; // 503
 * await ready.json(); // { status: "failed", failed: ["redis"], checks: { redis: { status: "timeout", ms: 50 } } }
 * ```
 *
 * @param options The checks, their time limit, and where failures are told.
 * @returns `live` and `ready` handlers.
 * @throws {TypeError} When a check is not a function or `timeoutMs` is not a positive number.
 */
export function createHealthCheck(
  options: HealthCheckOptions = {},
): HealthCheck {
  const {
    checks = {},
    timeoutMs = 2000,
    onError = (name: string, error: unknown) =>
      console.error(`health check ${name} failed:`, error),
  } = options;
  if (!(typeof timeoutMs === "number" && timeoutMs > 0)) {
    throw new TypeError(
      `createHealthCheck(): timeoutMs must be a positive number of ms, got ${timeoutMs}`,
    );
  }
  const entries = Object.entries(checks);
  for (const [name, check] of entries) {
    if (typeof check !== "function") {
      throw new TypeError(
        `createHealthCheck(): check ${
          JSON.stringify(name)
        } must be a function returning a promise`,
      );
    }
  }

  function runOne(
    name: string,
    check: HealthCheckFn,
  ): Promise<CheckResult> {
    const start = performance.now();
    const elapsed = () => Math.round(performance.now() - start);
    return new Promise<CheckResult>((resolve) => {
      const timer = setTimeout(() => {
        onError(name, new Error(`did not answer within ${timeoutMs} ms`));
        resolve({ status: "timeout", ms: timeoutMs });
      }, timeoutMs);
      let pending: Promise<unknown>;
      try {
        pending = Promise.resolve(check());
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(() => {
        clearTimeout(timer);
        resolve({ status: "ok", ms: elapsed() });
      }, (error) => {
        clearTimeout(timer);
        onError(name, error);
        resolve({ status: "failed", ms: elapsed() });
      });
    });
  }

  let running: Promise<Run> | undefined;
  async function runAll(): Promise<Run> {
    const results = await Promise.all(
      entries.map(([name, check]) => runOne(name, check)),
    );
    const run: Run = { ok: true, checks: {}, failed: [] };
    entries.forEach(([name], i) => {
      const result = results[i]!;
      run.checks[name] = result;
      if (result.status !== "ok") {
        run.ok = false;
        run.failed.push(name);
      }
    });
    return run;
  }

  return {
    live() {
      return json({ status: "ok" }, 200);
    },
    async ready() {
      if (isDraining()) return json({ status: "draining" }, 503);
      // Requests during a run share it: a burst of probes runs each check once.
      const run = running ??= runAll().finally(() => running = undefined);
      const { ok, checks, failed } = await run;
      if (isDraining()) return json({ status: "draining" }, 503);
      return ok
        ? json({ status: "ok", checks }, 200)
        : json({ status: "failed", failed, checks }, 503);
    },
  };
}
