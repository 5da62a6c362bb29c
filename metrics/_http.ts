/**
 * The HTTP metrics of a registry, and the per-request path that records
 * them: label cells are found through a map by route and an array by
 * method, so a request builds no label string.
 *
 * @module
 */

import { registry as openResponses } from "../serve/shared.ts";
import { type OpenGauges, openGauges } from "./_process.ts";
import type {
  Counter,
  Gauge,
  Histogram,
  HistogramCell,
  Registry,
  ValueCell,
} from "./_registry.ts";

/** The standard methods; any other counts as `"other"`. */
const METHODS = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "CONNECT",
  "OPTIONS",
  "TRACE",
  "PATCH",
  "other",
] as const;
const OTHER = 9;

/** The label of a route no route matched (404, 405, answered before routing). */
export const UNMATCHED = "(unmatched)";
/** The label of routes past `maxRoutes`. */
const OTHER_ROUTE = "(other)";

function methodIndex(method: string): number {
  switch (method) {
    case "GET":
      return 0;
    case "HEAD":
      return 1;
    case "POST":
      return 2;
    case "PUT":
      return 3;
    case "DELETE":
      return 4;
    case "CONNECT":
      return 5;
    case "OPTIONS":
      return 6;
    case "TRACE":
      return 7;
    case "PATCH":
      return 8;
  }
  // `fetch` upper-cases only some methods; "patch" is PATCH still.
  if (method.length <= 7) {
    const upper = method.toUpperCase();
    if (upper !== method) {
      const index = methodIndex(upper);
      if (index !== OTHER) return index;
    }
  }
  return OTHER;
}

interface MethodCells {
  readonly duration: HistogramCell;
  readonly statuses: Map<number, ValueCell>;
}

type RouteCells = (MethodCells | undefined)[];

/** The HTTP metrics of one registry. */
export interface HttpMetrics {
  readonly requests: Counter;
  readonly duration: Histogram;
  readonly inFlight: ValueCell;
  readonly open: OpenGauges;
  record(
    method: string,
    route: string | undefined,
    status: number,
    seconds: number,
  ): void;
  track(response: Response): void;
}

/** Most distinct route patterns; the rest count as `"(other)"`. */
const MAX_ROUTES = 1000;

/** The HTTP metrics of `registry`, registered on first use. */
export function httpMetrics(
  registry: Registry,
  buckets: readonly number[] | undefined,
): HttpMetrics {
  const found = registry.parts.get("http") as HttpMetrics | undefined;
  if (found !== undefined) {
    if (
      buckets !== undefined &&
      buckets.join(",") !== found.duration.buckets.join(",")
    ) {
      throw new TypeError(
        `metrics(): this registry's http_request_duration_seconds already has buckets [${
          found.duration.buckets.join(", ")
        }]; use another registry for other buckets`,
      );
    }
    return found;
  }
  const requests = registry.counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status.",
    labelNames: ["method", "route", "status"],
    maxSeries: 100_000,
  });
  const duration = registry.histogram({
    name: "http_request_duration_seconds",
    help:
      "Time from a request's arrival at the middleware to its response's headers, in seconds.",
    labelNames: ["method", "route"],
    buckets,
    maxSeries: 20_000,
  });
  const inFlightGauge: Gauge = registry.gauge({
    name: "http_requests_in_flight",
    help: "HTTP requests being answered now.",
  });
  const inFlight = inFlightGauge.child([]);
  const open = openGauges(registry);
  const streams = open.streams.child([]);
  const routes = new Map<string, RouteCells>();
  const table = openResponses();

  function addMethod(
    cells: RouteCells,
    index: number,
    route: string,
  ): MethodCells {
    return cells[index] = {
      duration: duration.child([METHODS[index]!, route]),
      statuses: new Map(),
    };
  }

  function addStatus(
    byMethod: MethodCells,
    index: number,
    route: string,
    status: number,
  ): ValueCell {
    const cell = requests.child([METHODS[index]!, route, String(status)]);
    byMethod.statuses.set(status, cell);
    return cell;
  }

  function addRoute(route: string): RouteCells {
    const cells: RouteCells = [];
    routes.set(route, cells);
    return cells;
  }

  const metrics: HttpMetrics = {
    requests,
    duration,
    inFlight,
    open,
    record(method, route, status, seconds) {
      let name = route ?? UNMATCHED;
      let cells = routes.get(name);
      if (cells === undefined) {
        if (routes.size >= MAX_ROUTES) name = OTHER_ROUTE;
        cells = routes.get(name) ?? addRoute(name);
      }
      const index = methodIndex(method);
      const byMethod = cells[index] ?? addMethod(cells, index, name);
      const counter = byMethod.statuses.get(status) ??
        addStatus(byMethod, index, name, status);
      counter.value++;
      duration.observeCell(byMethod.duration, seconds);
    },
    track(response) {
      // Event streams that passed through here, until they end. (Open
      // WebSockets are counted by upgradeWebSocket() for the process.)
      const entry = table.get(response);
      if (entry === undefined || entry.kind !== "closeable") return;
      if (response.status === 101) return;
      streams.value++;
      const closed = () => streams.value--;
      entry.done.then(closed, closed);
    },
  };
  registry.parts.set("http", metrics);
  return metrics;
}
