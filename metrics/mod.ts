/**
 * Prometheus metrics: a middleware that counts and times every request by
 * method, route pattern and status, a handler for `GET /metrics`, store
 * calls, process numbers, and the app's own counters, gauges and
 * histograms, all on one registry.
 *
 * - `http_requests_total{method,route,status}`,
 *   `http_request_duration_seconds{method,route}` (buckets 0.005 ... 10 s
 *   unless `buckets` says otherwise) and `http_requests_in_flight`.
 *   `route` is the matched route's pattern with any mount prefix
 *   (`/users/:id`), never the path, so 10,000 ids are one series; a
 *   request no route matched (404, 405, or one a middleware answered
 *   before routing) is `"(unmatched)"`. Methods outside GET, HEAD, POST,
 *   PUT, DELETE, CONNECT, OPTIONS, TRACE and PATCH count as `"other"`.
 *   The duration ends when the response's headers are ready (an event
 *   stream's body is not waited for).
 * - `store_operations_total{store,operation,outcome}` and
 *   `store_operation_duration_seconds{store,operation}`: every call of the
 *   toolkit's stores, counted through `countStoreCall()` of
 *   `@fetchkit/toolkit/store` (which `withTimeout` goes through).
 *   - `store`: `"Redis"` (sessions, rate limits, caches, idempotency,
 *     pub/sub, jobs, on one node or a cluster), `"Deno KV"` (the same on
 *     KV), `"memory"` (the same in this process's memory: session reads
 *     and saves, rate-limit hits, cache and idempotency entries, pub/sub
 *     appends, jobs) and `"S3"` (S3 file storage's requests).
 *   - `operation`: what the call does, named alike on every store of a
 *     kind (`"read session"`, `"save session"`, `"rate limit"`, `"get"`,
 *     `"set"`); on S3 the API action (`PutObject`, `GetObject`,
 *     `HeadObject`, `DeleteObject`, `ListObjectsV2`,
 *     `CreateMultipartUpload`, `UploadPart`, `CompleteMultipartUpload`,
 *     `AbortMultipartUpload`). Presigning is signed in the process, with
 *     no request, and is not counted; a `GetObject`'s duration ends when
 *     its headers arrive.
 *   - `outcome`: `ok` (answered, a missing key included); `timeout` (the
 *     call's deadline passed); `unavailable` (the store could not serve
 *     it: a refused or dropped connection, a `5xx`, S3 throttling, Redis
 *     `LOADING` or `CLUSTERDOWN`, a full memory store: the `503`s);
 *     `error` (the store answered and refused, or the caller erred: an
 *     S3 `403` or `404 NoSuchBucket`, a value too large). Alert on
 *     `timeout` and `unavailable` for the store's health, on `error` for
 *     credentials and bugs.
 * - `process_resident_memory_bytes`, `process_heap_used_bytes`,
 *   `process_heap_total_bytes`,
 *   `process_event_loop_delay_seconds{quantile="0.5"|"0.99"}` (sampled
 *   every 20 ms, over the time since the previous scrape),
 *   `http_open_event_streams` (responses of `createEventStreamResponse`
 *   that passed through `metrics()`, until they end) and
 *   `http_open_websockets` (every `upgradeWebSocket()` socket of the
 *   process, from its handshake to its close).
 *
 * The scrape answers the text format 0.0.4
 * (`text/plain; version=0.0.4; charset=utf-8`), or OpenMetrics 1.0 when
 * `Accept` names `application/openmetrics-text` (as Prometheus does).
 * Label values are escaped; a metric keeps at most `maxSeries` label
 * combinations (1000 for the app's own) and counts the rest under labels
 * `"(overflow)"`.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { createMetricsRegistry, metrics, metricsHandler } from "@fetchkit/toolkit/metrics";
 *
 * const registry = createMetricsRegistry();
 * const router = createRouter({ middleware: [metrics({ registry })] });
 * router.get("/metrics", metricsHandler({ registry, process: false }));
 * router.get("/users/:id", ({ params }) => new Response(`user ${params.id}`));
 *
 * await router.fetch(new Request("http://localhost/users/1"));
 * const text = await (await router.fetch(new Request("http://localhost/metrics"))).text();
 * text.includes('http_requests_total{method="GET",route="/users/:id",status="200"} 1'); // true
 * registry.close();
 * ```
 *
 * @module
 */

import type { Middleware } from "../router/types.ts";
import { observeStoreCalls } from "../store/observe.ts";
import { httpMetrics } from "./_http.ts";
import { processMetrics } from "./_process.ts";
import {
  DEFAULT_BUCKETS,
  type HistogramCell,
  type HistogramOptions,
  type Labels,
  type MetricOptions,
  OPENMETRICS_CONTENT_TYPE,
  Registry,
  TEXT_CONTENT_TYPE,
  type ValueCell,
} from "./_registry.ts";

export {
  DEFAULT_BUCKETS,
  type HistogramOptions,
  type Labels,
  type MetricOptions,
  OPENMETRICS_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
};

/**
 * A number that only goes up (requests, errors), by label values. Its
 * name ends in `_total` by convention.
 *
 * @example
 * ```ts
 * import { createMetricsRegistry, type Counter } from "@fetchkit/toolkit/metrics";
 *
 * const jobs: Counter = createMetricsRegistry().counter({
 *   name: "jobs_total",
 *   help: "Jobs run, by outcome.",
 *   labelNames: ["outcome"],
 * });
 * jobs.inc({ outcome: "done" });
 * jobs.get({ outcome: "done" }); // 1
 * ```
 */
export interface Counter {
  /** The metric's name. */
  readonly name: string;
  /** Its help text. */
  readonly help: string;
  /** Its label names, in order. */
  readonly labelNames: readonly string[];
  /**
   * Adds `value` (default 1) to the series of `labels`.
   *
   * @throws {RangeError} When `value` is negative or not finite.
   * @throws {TypeError} When a label is not one of `labelNames`.
   */
  inc(labels?: Labels, value?: number): void;
  /** The value of the series of `labels` (0 before its first `inc`). */
  get(labels?: Labels): number;
}

/**
 * A number that goes up and down (queue depth, connections), by label
 * values.
 *
 * @example
 * ```ts
 * import { createMetricsRegistry, type Gauge } from "@fetchkit/toolkit/metrics";
 *
 * const depth: Gauge = createMetricsRegistry().gauge({ name: "queue_depth", help: "Jobs waiting." });
 * depth.set(undefined, 3);
 * depth.dec();
 * depth.get(); // 2
 * ```
 */
export interface Gauge {
  /** The metric's name. */
  readonly name: string;
  /** Its help text. */
  readonly help: string;
  /** Its label names, in order. */
  readonly labelNames: readonly string[];
  /** Sets the series of `labels` to `value`. */
  set(labels: Labels | undefined, value: number): void;
  /** Adds `value` (default 1). */
  inc(labels?: Labels, value?: number): void;
  /** Takes `value` (default 1) away. */
  dec(labels?: Labels, value?: number): void;
  /** The value of the series of `labels`. */
  get(labels?: Labels): number;
}

/**
 * Observations counted in buckets (durations, sizes), by label values.
 *
 * @example
 * ```ts
 * import { createMetricsRegistry, type Histogram } from "@fetchkit/toolkit/metrics";
 *
 * const sizes: Histogram = createMetricsRegistry().histogram({
 *   name: "upload_bytes",
 *   help: "Upload sizes.",
 *   buckets: [1024, 1048576],
 * });
 * sizes.observe(undefined, 5000);
 * sizes.get(); // { buckets: [0, 1, 1], sum: 5000, count: 1 }
 * ```
 */
export interface Histogram {
  /** The metric's name. */
  readonly name: string;
  /** Its help text. */
  readonly help: string;
  /** Its label names, in order. */
  readonly labelNames: readonly string[];
  /** Upper bounds of the buckets, ascending, without `+Inf`. */
  readonly buckets: readonly number[];
  /** Counts `value` in the series of `labels`. */
  observe(labels: Labels | undefined, value: number): void;
  /** The series of `labels`: cumulative counts per bucket (`+Inf` last), sum and count. */
  get(labels?: Labels): { buckets: number[]; sum: number; count: number };
}

/**
 * A set of metrics scraped together: the middleware's, the store's, the
 * process's and the app's own.
 *
 * @example The app's own counter
 * ```ts
 * import { createMetricsRegistry } from "@fetchkit/toolkit/metrics";
 *
 * const registry = createMetricsRegistry();
 * const signIns = registry.counter({
 *   name: "auth_sign_ins_total",
 *   help: "Successful sign-ins by method.",
 *   labelNames: ["method"],
 * });
 * signIns.inc({ method: "password" });
 * signIns.get({ method: "password" }); // 1
 * registry.metrics().includes('auth_sign_ins_total{method="password"} 1'); // true
 * ```
 */
export interface MetricsRegistry {
  /** Registers a counter (the same name again returns the first). */
  counter(options: MetricOptions): Counter;
  /** Registers a gauge (the same name again returns the first). */
  gauge(options: MetricOptions): Gauge;
  /** Registers a histogram (the same name again returns the first). */
  histogram(options: HistogramOptions): Histogram;
  /** The metric of that name, if registered. */
  get(name: string): Counter | Gauge | Histogram | undefined;
  /** Every metric in the text format 0.0.4, or OpenMetrics 1.0. */
  metrics(format?: "text" | "openmetrics"): string;
  /** Stops the event-loop delay sampler and the store observer. */
  close(): void;
}

class MetricsRegistryImpl implements MetricsRegistry {
  readonly inner: Registry = new Registry();
  counter(options: MetricOptions): Counter {
    return this.inner.counter(options);
  }
  gauge(options: MetricOptions): Gauge {
    return this.inner.gauge(options);
  }
  histogram(options: HistogramOptions): Histogram {
    return this.inner.histogram(options);
  }
  get(name: string): Counter | Gauge | Histogram | undefined {
    return this.inner.get(name);
  }
  metrics(format: "text" | "openmetrics" = "text"): string {
    return this.inner.expose(format === "openmetrics");
  }
  close(): void {
    this.inner.close();
  }
}

/**
 * A new registry, for `metrics({ registry })` and
 * `metricsHandler({ registry })` (both use one default registry without
 * it).
 *
 * @example
 * ```ts
 * import { createMetricsRegistry } from "@fetchkit/toolkit/metrics";
 *
 * const registry = createMetricsRegistry();
 * registry.gauge({ name: "queue_depth", help: "Jobs waiting." }).set(undefined, 3);
 * registry.metrics(); // "# HELP queue_depth Jobs waiting.\n# TYPE queue_depth gauge\nqueue_depth 3\n"
 * ```
 *
 * @returns An empty registry.
 */
export function createMetricsRegistry(): MetricsRegistry {
  return new MetricsRegistryImpl();
}

let defaultRegistry: MetricsRegistryImpl | undefined;

function innerOf(registry: MetricsRegistry | undefined): Registry {
  if (registry === undefined) {
    return (defaultRegistry ??= new MetricsRegistryImpl()).inner;
  }
  if (!(registry instanceof MetricsRegistryImpl)) {
    throw new TypeError(
      "metrics: registry must come from createMetricsRegistry()",
    );
  }
  return registry.inner;
}

/**
 * Options of {@linkcode metrics}.
 *
 * @example
 * ```ts
 * import type { MetricsOptions } from "@fetchkit/toolkit/metrics";
 *
 * const options: MetricsOptions = { buckets: [0.01, 0.1, 1] };
 * ```
 */
export interface MetricsOptions {
  /** Where the numbers go. Default: the one default registry. */
  registry?: MetricsRegistry;
  /**
   * Bucket bounds of `http_request_duration_seconds`, in seconds,
   * ascending.
   *
   * @default {[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]}
   */
  buckets?: readonly number[];
}

/**
 * A middleware that counts and times every request (see the module
 * documentation for the metrics). Put it first in the router's
 * middleware, so that it sees every answer.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { metrics, metricsHandler } from "@fetchkit/toolkit/metrics";
 *
 * const router = createRouter({ middleware: [metrics()] });
 * router.get("/metrics", metricsHandler({ process: false }));
 * router.get("/", () => new Response("home"));
 * ```
 *
 * @param options The registry, and the duration buckets.
 * @returns The middleware.
 * @throws {TypeError} When the buckets are not ascending finite numbers, or
 * differ from those the registry's histogram already has.
 */
export function metrics(options: MetricsOptions = {}): Middleware {
  const http = httpMetrics(innerOf(options.registry), options.buckets);
  const inFlight = http.inFlight;
  return async (context, next) => {
    const start = performance.now();
    inFlight.value++;
    let response: Response;
    try {
      response = await next();
    } catch (error) {
      inFlight.value--;
      http.record(
        context.method,
        context.routePattern,
        500,
        (performance.now() - start) / 1000,
      );
      throw error;
    }
    inFlight.value--;
    http.record(
      context.method,
      context.routePattern,
      response.status,
      (performance.now() - start) / 1000,
    );
    http.track(response);
    return response;
  };
}

/**
 * Options of {@linkcode metricsHandler}.
 *
 * @example
 * ```ts
 * import type { MetricsHandlerOptions } from "@fetchkit/toolkit/metrics";
 *
 * const options: MetricsHandlerOptions = { process: false };
 * ```
 */
export interface MetricsHandlerOptions {
  /** The registry to expose. Default: the one default registry. */
  registry?: MetricsRegistry;
  /**
   * Add the process metrics (memory, event-loop delay, open event streams
   * and WebSockets). The delay is sampled by a timer that does not keep
   * the process alive; `registry.close()` stops it.
   *
   * @default {true}
   */
  process?: boolean;
  /**
   * Count the store calls (`store_operations_total`,
   * `store_operation_duration_seconds`) until `registry.close()`.
   *
   * @default {true}
   */
  store?: boolean;
}

const STORE_BUCKETS = [
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
];

const MAX_CACHED = 1000;

interface StoreCells {
  outcomes: Map<string, ValueCell>;
  duration: HistogramCell;
}

function storeMetrics(registry: Registry): void {
  if (registry.parts.has("store")) return;
  registry.parts.set("store", true);
  const calls = registry.counter({
    name: "store_operations_total",
    help:
      "Store calls by store, operation and outcome (ok, error, timeout, unavailable).",
    labelNames: ["store", "operation", "outcome"],
  });
  const duration = registry.histogram({
    name: "store_operation_duration_seconds",
    help: "Time a store call took, in seconds.",
    labelNames: ["store", "operation"],
    buckets: STORE_BUCKETS,
  });
  // The series' cells by store and operation, so that a call (a memory
  // store's, every request) builds no label key; at most MAX_CACHED pairs
  // (the registry bounds the series themselves).
  const cached = new Map<string, Map<string, StoreCells>>();
  let pairs = 0;
  function cellsOf(store: string, operation: string): StoreCells {
    let byOperation = cached.get(store);
    const found = byOperation?.get(operation);
    if (found !== undefined) return found;
    const cells: StoreCells = {
      outcomes: new Map(),
      duration: duration.child([store, operation]),
    };
    if (pairs < MAX_CACHED) {
      if (byOperation === undefined) cached.set(store, byOperation = new Map());
      byOperation.set(operation, cells);
      pairs++;
    }
    return cells;
  }
  const stop = observeStoreCalls(({ store, what }, outcome, seconds) => {
    const operation = what ?? "(unnamed)";
    const cells = cellsOf(store, operation);
    let count = cells.outcomes.get(outcome);
    if (count === undefined) {
      count = calls.child([store, operation, outcome]);
      cells.outcomes.set(outcome, count);
    }
    count.value++;
    duration.observeCell(cells.duration, seconds);
  });
  registry.onClose(() => {
    stop();
    registry.parts.delete("store");
  });
}

const OPENMETRICS = /application\/openmetrics-text/i;

/**
 * A handler for `GET /metrics`: the registry's metrics in the text format
 * 0.0.4, or in OpenMetrics 1.0 when the request's `Accept` asks for it.
 * It takes the router's context or a plain `Request`.
 *
 * @example
 * ```ts
 * import { metricsHandler } from "@fetchkit/toolkit/metrics";
 *
 * const scrape = metricsHandler({ process: false, store: false });
 * const response = scrape(new Request("http://localhost/metrics", {
 *   headers: { accept: "application/openmetrics-text; version=1.0.0" },
 * }));
 * response.headers.get("content-type"); // "application/openmetrics-text; version=1.0.0; charset=utf-8"
 * ```
 *
 * @param options The registry, and whether to add process and store metrics.
 * @returns The handler.
 */
export function metricsHandler(
  options: MetricsHandlerOptions = {},
): (context: { request: Request } | Request) => Response {
  const registry = innerOf(options.registry);
  if (options.process !== false) processMetrics(registry);
  if (options.store !== false) storeMetrics(registry);
  return (context) => {
    const request = context instanceof Request ? context : context.request;
    const openMetrics = OPENMETRICS.test(request.headers.get("accept") ?? "");
    return new Response(registry.expose(openMetrics), {
      headers: {
        "content-type": openMetrics
          ? OPENMETRICS_CONTENT_TYPE
          : TEXT_CONTENT_TYPE,
        "cache-control": "no-store",
      },
    });
  };
}
