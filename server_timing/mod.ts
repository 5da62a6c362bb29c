/**
 * `Server-Timing` response headers: how long the request took on the
 * server (`total`) and named steps within it (`db`, `render`, ...), shown
 * by the browser's developer tools in the request's Timing tab.
 *
 * Off in production by default (`DENO_ENV` or `NODE_ENV` is
 * `production`, or `DENO_ENV` cannot be read, say under Deno's
 * `--allow-env=PORT`): timings tell a visitor how long your queries take,
 * which helps timing attacks and leaks what a request did. `enabled: true`
 * turns it on regardless.
 *
 * One `serverTiming()` per request writes the header: one under another
 * (a `mount()` section or a route carrying its own) stays off, and the
 * entries recorded below it go to the outer one, as in Hono.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { serverTiming, time } from "@fetchkit/toolkit/server-timing-middleware";
 *
 * const router = createRouter({ middleware: [serverTiming({ enabled: true })] });
 * router.get("/", async (context) => {
 *   const rows = await time(context, "db", () => Promise.resolve([1, 2, 3]));
 *   return Response.json(rows);
 * });
 * const response = await router.fetch(new Request("http://localhost/"));
 * response.headers.get("Server-Timing"); // "db;dur=0.1, total;dur=0.3"
 * ```
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";
import { createContextKey } from "../router/context_key.ts";
import type { ContextKey } from "../router/context_key.ts";
import type { Middleware } from "../router/types.ts";
import { editHeaders } from "../response/edit_headers.ts";

/** Options of {@linkcode serverTiming}. */
export interface ServerTimingOptions {
  /**
   * Whether to write the header. When `false`, `time()` still runs its
   * function and `startTime`/`endTime` do nothing, so code that measures
   * need not check.
   *
   * @default {true} unless `DENO_ENV` or `NODE_ENV` is `production` or
   * `DENO_ENV` cannot be read
   */
  enabled?: boolean;
  /**
   * Adds an entry named `total`: from this middleware to the response.
   *
   * @default {true}
   */
  total?: boolean;
  /**
   * Digits after the decimal point of each duration (milliseconds).
   *
   * @default {1}
   */
  precision?: number;
}

/** Options of {@linkcode time} and {@linkcode startTime}. */
export interface TimingOptions {
  /** Shown beside the metric's name by developer tools (`desc="..."`). */
  description?: string;
}

/** A metric's name: an HTTP token (letters, digits, `!#$%&'*+-.^_`|~`). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_ENTRIES = 100;

/** The timings of one request. */
class Timings {
  // Most requests record nothing: both are made on first use.
  entries: { name: string; dur: number; desc?: string }[] | undefined =
    undefined;
  running: Map<string, { start: number; desc?: string }> | undefined =
    undefined;
}

function record(
  timings: Timings,
  name: string,
  dur: number,
  desc: string | undefined,
): void {
  const entries = timings.entries ??= [];
  if (entries.length < MAX_ENTRIES) entries.push({ name, dur, desc });
}

const TimingsKey: ContextKey<Timings | undefined> = createContextKey<
  Timings
>();

function checkName(name: string): void {
  if (!TOKEN.test(name)) {
    throw new TypeError(
      `Server-Timing metric name ${
        JSON.stringify(name)
      } must be an HTTP token (letters, digits and !#$%&'*+-.^_\`|~, no spaces)`,
    );
  }
}

function quote(text: string): string {
  // A quoted-string: backslash-escape quotes and backslashes, and drop
  // control characters, which a header value cannot carry.
  // deno-lint-ignore no-control-regex -- removing control characters is the point
  return `"${text.replace(/[\x00-\x1f\x7f]/g, "").replace(/["\\]/g, "\\$&")}"`;
}

/** The variable's value; `null` when the environment cannot be read. */
function readEnv(name: string): string | undefined | null {
  try {
    const deno = (globalThis as {
      Deno?: { env: { get(name: string): string | undefined } };
    }).Deno;
    if (deno !== undefined) return deno.env.get(name);
    const process = (globalThis as {
      process?: { env?: Record<string, string | undefined> };
    }).process;
    return process?.env?.[name];
  } catch {
    // No permission to read it (Deno's `--allow-env=PORT`).
    return null;
  }
}

/**
 * Whether this may be production: `DENO_ENV` or `NODE_ENV` says so, or
 * `DENO_ENV` cannot be read (fail closed: a production server run with
 * few permissions must not tell visitors its timings). An unreadable
 * `NODE_ENV` beside a readable `DENO_ENV` (`--allow-env=DENO_ENV`) leaves
 * the decision to `DENO_ENV`.
 */
function mayBeProduction(): boolean {
  const deno = readEnv("DENO_ENV");
  return deno === null || deno === "production" ||
    readEnv("NODE_ENV") === "production";
}

/**
 * Creates middleware that writes a `Server-Timing` header on every
 * response: the entries recorded with {@linkcode time} or
 * {@linkcode startTime}/{@linkcode endTime}, then `total`. Put it first in
 * the router's `middleware` so that `total` covers everything.
 *
 * An entry still running when the response is ready is left out. At most
 * 100 entries are kept per request.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { endTime, serverTiming, startTime } from "@fetchkit/toolkit/server-timing-middleware";
 *
 * const router = createRouter({ middleware: [serverTiming()] });
 * router.get("/", (context) => {
 *   startTime(context, "render", { description: "Render the page" });
 *   const body = "<h1>Hello</h1>";
 *   endTime(context, "render");
 *   return new Response(body, { headers: { "Content-Type": "text/html" } });
 * });
 * ```
 *
 * @param options `enabled`, `total` and `precision`.
 * @returns The middleware.
 * @throws {TypeError} When `precision` is not an integer from 0 to 6.
 */
export function serverTiming(options: ServerTimingOptions = {}): Middleware {
  const { total = true, precision = 1 } = options;
  if (!Number.isInteger(precision) || precision < 0 || precision > 6) {
    throw new TypeError(
      `serverTiming(): precision must be an integer from 0 to 6, got ${precision}`,
    );
  }
  const enabled = options.enabled ?? !mayBeProduction();
  if (!enabled) return (_context, next) => next();
  const scale = 10 ** precision;
  const format = (ms: number) => String(Math.round(ms * scale) / scale);

  return async (context, next) => {
    // Under another serverTiming() (a mount() section with its own): that
    // one writes the header; entries recorded here go to it.
    if (context.get(TimingsKey) !== undefined) return next();
    const start = performance.now();
    const timings = new Timings();
    context.set(TimingsKey, timings);
    const response = await next();
    let value = "";
    for (const { name, dur, desc } of timings.entries ?? []) {
      value += (value === "" ? "" : ", ") + `${name};dur=${format(dur)}` +
        (desc ? `;desc=${quote(desc)}` : "");
    }
    if (total) {
      value += (value === "" ? "" : ", ") +
        `total;dur=${format(performance.now() - start)}`;
    }
    if (value === "") return response;
    return editHeaders(response, appendTiming, value);
  };
}

/**
 * Starts a named timing; {@linkcode endTime} with the same name records
 * it. Does nothing without an enabled `serverTiming()`.
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 * import { endTime, startTime } from "@fetchkit/toolkit/server-timing-middleware";
 *
 * const handler: Handler = (context) => {
 *   startTime(context, "work");
 *   const answer = 6 * 7;
 *   endTime(context, "work");
 *   return new Response(String(answer));
 * };
 * ```
 *
 * @param context The request's context.
 * @param name The metric name, an HTTP token such as `db` or `cache-read`.
 * @param options `description`, shown beside the name by developer tools.
 * @throws {TypeError} When `name` is not an HTTP token.
 */
export function startTime(
  context: RequestContext,
  name: string,
  options: TimingOptions = {},
): void {
  checkName(name);
  const timings = context.get(TimingsKey);
  if (timings === undefined) return;
  (timings.running ??= new Map()).set(name, {
    start: performance.now(),
    desc: options.description,
  });
}

/**
 * Ends the timing started by {@linkcode startTime} under `name` and
 * records it. Ending a name that is not running does nothing.
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 * import { endTime, startTime } from "@fetchkit/toolkit/server-timing-middleware";
 *
 * const handler: Handler = async (context) => {
 *   startTime(context, "fetch-profile");
 *   const profile = await Promise.resolve({ name: "Ada" });
 *   endTime(context, "fetch-profile");
 *   return Response.json(profile);
 * };
 * ```
 *
 * @param context The request's context.
 * @param name The name given to `startTime`.
 */
export function endTime(context: RequestContext, name: string): void {
  const timings = context.get(TimingsKey);
  if (timings === undefined) return;
  const running = timings.running?.get(name);
  if (running === undefined) return;
  timings.running!.delete(name);
  record(timings, name, performance.now() - running.start, running.desc);
}

/**
 * Runs `fn` and records how long it took (until its promise settles)
 * under `name`, even when it throws. Returns what `fn` returns.
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 * import { time } from "@fetchkit/toolkit/server-timing-middleware";
 *
 * const handler: Handler = async (context) => {
 *   const users = await time(context, "db", () => Promise.resolve(["Ada"]), {
 *     description: "Users query",
 *   });
 *   return Response.json(users);
 * };
 * ```
 *
 * @param context The request's context.
 * @param name The metric name, an HTTP token.
 * @param fn The work to time.
 * @param options `description`, shown beside the name by developer tools.
 * @returns What `fn` returns.
 * @throws {TypeError} When `name` is not an HTTP token; and whatever `fn` throws.
 */
export async function time<T>(
  context: RequestContext,
  name: string,
  fn: () => T | Promise<T>,
  options: TimingOptions = {},
): Promise<T> {
  checkName(name);
  const timings = context.get(TimingsKey);
  if (timings === undefined) return await fn();
  const start = performance.now();
  try {
    return await fn();
  } finally {
    record(timings, name, performance.now() - start, options.description);
  }
}

function appendTiming(headers: Headers, value: string): void {
  headers.append("Server-Timing", value);
}
