/**
 * CPU time of `metrics()` called alone, beside a no-op middleware, an
 * `async` one, and an `async` one that only reads the clock twice (what
 * `metrics()` must do to time a request). Times on a shared machine are
 * indicative; `instructions.ts` counts instructions.
 *
 * ```sh
 * deno bench --no-check bench/metrics/middleware_bench.ts
 * ```
 *
 * @module
 */
import { createMetricsRegistry, metrics } from "@fetchkit/toolkit/metrics";
import type { RequestContext } from "@fetchkit/toolkit/fetch-router";

const answer = new Response("x");
const next = () => Promise.resolve(answer);
const context = { method: "GET", routePattern: "/users/:id" } as RequestContext;
const registry = createMetricsRegistry();
const measured = metrics({ registry });
let sink = 0;
const noop = (_context: unknown, next: () => Promise<Response>) => next();
const asyncNoop = async (_context: unknown, next: () => Promise<Response>) => {
  const response = await next();
  return response;
};
const clockOnly = async (_context: unknown, next: () => Promise<Response>) => {
  const start = performance.now();
  const response = await next();
  sink += performance.now() - start;
  return response;
};

Deno.bench("no-op middleware", async () => {
  await noop(context, next);
});
Deno.bench("async no-op middleware", async () => {
  await asyncNoop(context, next);
});
Deno.bench("async, two performance.now()", async () => {
  await clockOnly(context, next);
});
Deno.bench("metrics()", async () => {
  await measured(context, next);
});
