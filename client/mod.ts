/**
 * A typed client for a route map: {@linkcode createClient} gives an object
 * shaped like the map, one function per route, whose input is typed from
 * the route's pattern and schemas and whose `data` is typed from its
 * `response` schema. The types come from the route map directly (a plain
 * object), with no chain of generic calls to infer through.
 *
 * It runs wherever `fetch` does: browsers, Deno, Node and Bun. It never
 * throws for a status or a body that is not JSON, only for a network
 * error (what `fetch` itself throws) and for an answer over
 * `maxResponseBytes` ({@linkcode ResponseTooLargeError}).
 *
 * **Redirects.** Outside browsers the client follows redirects itself (at
 * most 20, as `fetch` does): one to the same origin keeps every header; one
 * to another origin carries none of the headers the caller set (the
 * `headers` option and a call's own: `Authorization`, `Cookie`,
 * `X-Api-Key`, everything), where `fetch` drops only `Authorization`, so a
 * key meant for one API never reaches a host it redirects to. A redirect
 * to another origin that would send the body there too (a `307` or `308`;
 * a `301` or `302` of any method but `POST`, such as a `PUT`) is not
 * followed: the call resolves to the `3xx`, as with
 * `{ redirect: "manual" }`, which leaves every redirect to the caller. In
 * browsers `fetch` follows them, under CORS.
 *
 * **Answer size.** The body is read whole (to parse it) only up to
 * `maxResponseBytes` (16 MiB by default): past it, or when
 * `Content-Length` declares more, the call rejects with a
 * `ResponseTooLargeError` naming the limit and the body is cancelled, so a
 * server (or a host it redirects to) cannot make the client hold gigabytes.
 * A call with `{ stream: true }` reads nothing: `data` is `undefined` and
 * `response.body` is the stream, for downloads.
 *
 * ```ts
 * import { createClient } from "@fetchkit/toolkit/client";
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { resources } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const Note = z.object({ id: z.number(), title: z.string() });
 * const routes = {
 *   notes: resources("notes", {
 *     only: ["show", "create"],
 *     schemas: {
 *       show: { params: z.object({ id: z.coerce.number() }), response: Note },
 *       create: { body: z.object({ title: z.string() }), response: Note },
 *     },
 *   }),
 * };
 * const router = createRouter();
 * router.map(routes, {
 *   actions: {
 *     notes: {
 *       actions: {
 *         show: ({ input }) => Response.json({ id: input.params.id, title: "Hi" }),
 *         create: ({ input }) => Response.json({ id: 1, ...input.body }, { status: 201 }),
 *       },
 *     },
 *   },
 * });
 *
 * // In the browser: createClient(routes, { baseUrl: location.origin })
 * const client = createClient(routes, { baseUrl: "http://localhost", fetch: router.fetch });
 * const created = await client.notes.create({ body: { title: "Hi" } });
 * if (created.ok) console.log(created.data.id); // 1 (a number)
 * const shown = await client.notes.show({ params: { id: 1 } });
 * console.log(shown.status); // 200
 * ```
 *
 * @module
 */
import { Route } from "../routes/route.ts";
import type { RouteMap } from "../routes/route_map.ts";
import type { HrefArgs, ParamValue } from "../routes/params.ts";
import type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";

/** Headers for every request, or a function giving them (for a token that changes). */
export type ClientHeaders =
  | HeadersInit
  | (() => HeadersInit | Promise<HeadersInit>);

/** Options of {@linkcode createClient}. */
export interface ClientOptions {
  /** The server's origin (and base path), such as `https://api.example.com`. */
  baseUrl: string | URL;
  /**
   * The `fetch` to call: the global one by default; a router's `fetch` to
   * call an app in process (tests), or a wrapper that adds retries.
   */
  fetch?: (request: Request) => Response | Promise<Response>;
  /** Headers sent with every request (a call's own `init.headers` win). */
  headers?: ClientHeaders;
  /**
   * The largest answer body read, in bytes; a call's own
   * `maxResponseBytes` wins.
   *
   * @default {16777216} (16 MiB)
   */
  maxResponseBytes?: number;
}

/**
 * What a call takes besides its input: `RequestInit` (headers, signal,
 * `redirect: "manual"`...), a size limit of its own, and `stream`.
 */
export interface ClientInit extends RequestInit {
  /** The largest answer body read, in bytes, for this call. */
  maxResponseBytes?: number;
  /**
   * Leave the body unread: `data` is `undefined`, and `response.body` is
   * the stream (no size limit applies).
   */
  stream?: boolean;
}

/**
 * An answer was larger than `maxResponseBytes` (as read, or as its
 * `Content-Length` declared): the call rejects with this, naming the
 * request and the limit, and the body is cancelled.
 *
 * @example
 * ```ts
 * import { ResponseTooLargeError } from "@fetchkit/toolkit/client";
 *
 * const error = new ResponseTooLargeError("GET https://api.example.com/big", 1024);
 * console.log(error.message.includes("1024 bytes")); // true
 * ```
 */
export class ResponseTooLargeError extends RangeError {
  /** The limit that was passed, in bytes. */
  readonly maxResponseBytes: number;

  /**
   * Creates the error for `request` past `maxResponseBytes`.
   *
   * @param request The request, as `GET https://...`.
   * @param maxResponseBytes The limit.
   * @param declared The `Content-Length` the answer declared, if it did.
   */
  constructor(request: string, maxResponseBytes: number, declared?: number) {
    super(
      `The answer to ${request} is over maxResponseBytes (${maxResponseBytes} bytes)` +
        (declared === undefined
          ? ""
          : `: Content-Length declares ${declared} bytes`) +
        "; raise maxResponseBytes, or call with { stream: true } to read it as a stream",
    );
    this.name = "ResponseTooLargeError";
    this.maxResponseBytes = maxResponseBytes;
  }
}

/**
 * What a call resolves to: `ok` (a 2xx status), the `status`, the `data`
 * (the parsed JSON when the response is JSON, otherwise its text) and the
 * `response` itself (its body already read). When `ok`, `data` is typed
 * from the route's `response` schema (`unknown` without one).
 *
 * @example
 * ```ts
 * import type { ClientResult } from "@fetchkit/toolkit/client";
 *
 * function titleOf(result: ClientResult<{ title: string }>): string {
 *   return result.ok ? result.data.title : `error ${result.status}`;
 * }
 * ```
 */
export type ClientResult<T> =
  | {
    /** The status is 2xx. */
    ok: true;
    /** The response status. */
    status: number;
    /** The body: the `response` schema's output type. */
    data: T;
    /** The response (its body already read). */
    response: Response;
  }
  | {
    /** The status is not 2xx. */
    ok: false;
    /** The response status. */
    status: number;
    /** The body: parsed JSON (such as `{ error, fieldErrors }`) or text. */
    data: unknown;
    /** The response (its body already read). */
    response: Response;
  };

/**
 * The input type of schema `S` (`never` when `S` is none), read by indexed
 * access as `StandardSchemaV1.InferInput` does: cheaper to check than
 * matching the interface with `infer`.
 *
 * @example
 * ```ts
 * import type { SchemaInput } from "@fetchkit/toolkit/client";
 * import * as z from "zod";
 *
 * const Title = z.string().default("");
 * const title: SchemaInput<typeof Title> = undefined;
 * ```
 */
export type SchemaInput<S> = S extends StandardSchemaV1
  ? NonNullable<S["~standard"]["types"]>["input"]
  : never;
/**
 * The output type of schema `S` (`unknown` when `S` is none).
 *
 * @example
 * ```ts
 * import type { SchemaOutput } from "@fetchkit/toolkit/client";
 * import * as z from "zod";
 *
 * const Id = z.coerce.number();
 * const id: SchemaOutput<typeof Id> = 1;
 * ```
 */
export type SchemaOutput<S> = S extends StandardSchemaV1
  ? NonNullable<S["~standard"]["types"]>["output"]
  : unknown;

/**
 * `params` of a call: from the pattern (`href()`'s parameters), required
 * when the pattern has a required parameter.
 *
 * @example
 * ```ts
 * import type { ParamsPart } from "@fetchkit/toolkit/client";
 *
 * const part: ParamsPart<"/notes/:id"> = { params: { id: 1 } };
 * ```
 */
export type ParamsPart<P extends string> = [] extends HrefArgs<P>
  ? { params?: Exclude<HrefArgs<P>[0], undefined> }
  : { params: HrefArgs<P>[0] };

/**
 * `query` of a call: the `query` schema's input type, or a plain record.
 *
 * @example
 * ```ts
 * import type { QueryPart } from "@fetchkit/toolkit/client";
 *
 * const part: QueryPart<Record<never, never>> = { query: { page: 2 } };
 * ```
 */
export type QueryPart<S> = S extends { readonly query: infer Q }
  ? Record<never, never> extends SchemaInput<Q> ? { query?: SchemaInput<Q> }
  : { query: SchemaInput<Q> }
  : { query?: QueryRecord };

/**
 * `body` of a call: the `body` schema's input type (required), or a form;
 * without a schema, any body.
 *
 * @example
 * ```ts
 * import type { BodyPart } from "@fetchkit/toolkit/client";
 * import * as z from "zod";
 *
 * const schemas = { body: z.object({ title: z.string() }) };
 * const part: BodyPart<typeof schemas> = { body: { title: "Hi" } };
 * ```
 */
export type BodyPart<S> = S extends { readonly body: infer B }
  ? { body: SchemaInput<B> | FormData | URLSearchParams }
  : { body?: unknown };

/**
 * The input of a call to route `P` with schemas `S`: `params` typed from
 * the pattern (required when it has a required parameter), `query` and
 * `body` from the schemas' input types. A `FormData` or
 * `URLSearchParams` body is sent as a form.
 *
 * @example
 * ```ts
 * import type { CallInput } from "@fetchkit/toolkit/client";
 * import * as z from "zod";
 *
 * const schemas = { body: z.object({ title: z.string() }) };
 * const input: CallInput<"/notes/:id", typeof schemas> = {
 *   params: { id: 1 },
 *   body: { title: "Hi" },
 * };
 * ```
 */
export type CallInput<P extends string, S> =
  & ParamsPart<P>
  & QueryPart<S>
  & BodyPart<S>;

/** A query as a record: repeated names from arrays. */
export type QueryRecord = Record<
  string,
  ParamValue | null | undefined | readonly ParamValue[]
>;

/**
 * One route of the client: call it with the route's input (optional when
 * nothing is required) and `RequestInit` extras (headers, signal, ...).
 *
 * @example
 * ```ts
 * import type { RouteCall } from "@fetchkit/toolkit/client";
 *
 * async function showTraced(show: RouteCall<"/notes/:id", Record<never, never>>) {
 *   return await show({ params: { id: 1 } }, { headers: { "X-Trace": "1" } });
 * }
 * ```
 */
export type RouteCall<P extends string, S> = Record<never, never> extends
  CallInput<P, S> ? (
    input?: CallInput<P, S>,
    init?: ClientInit,
  ) => Promise<ClientResult<ResponseOf<S>>>
  : (
    input: CallInput<P, S>,
    init?: ClientInit,
  ) => Promise<ClientResult<ResponseOf<S>>>;

/**
 * The `data` of a successful call: the `response` schema's output type, or
 * `unknown` without one.
 *
 * @example
 * ```ts
 * import type { ResponseOf } from "@fetchkit/toolkit/client";
 * import * as z from "zod";
 *
 * const schemas = { response: z.object({ id: z.number() }) };
 * const data: ResponseOf<typeof schemas> = { id: 1 };
 * ```
 */
export type ResponseOf<S> = S extends { readonly response: infer R }
  ? SchemaOutput<R>
  : unknown;

/**
 * The client of route map `R`: the same shape, one {@linkcode RouteCall}
 * per route.
 *
 * @example
 * ```ts
 * import type { Client } from "@fetchkit/toolkit/client";
 * import { route } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const routes = route({ health: { method: "GET", pattern: "/health" } });
 * type Api = Client<typeof routes>; // { health: RouteCall<"/health", ...> }
 * ```
 */
export type Client<R> = {
  [K in keyof R]: R[K] extends Route<string, infer P, infer S> ? RouteCall<P, S>
    : Client<R[K]>;
};

/**
 * Makes a typed client for a route map (the same value the server maps).
 * Each route is a function taking `{ params, query, body }` and an
 * optional `RequestInit`:
 *
 * - `params` fill the pattern (percent-encoded, as `href()` does);
 * - `query` becomes the query string: arrays repeat the name, nested
 *   objects are written `a.b` and `a[0].b` (the server's `parseQuery`
 *   rules; for a route with a `query` schema a one-item array is written
 *   `a[]`, so it parses back as an array), `null` and `undefined` are
 *   left out;
 * - `body` is sent as JSON (`Content-Type: application/json`), or as a
 *   form when it is a `FormData` or `URLSearchParams`;
 * - a route for `ANY` method is called with `GET`, or `POST` with a body.
 *
 * It resolves to `{ ok, status, data, response }` whatever the status;
 * only a network error (from `fetch`) rejects.
 *
 * @example
 * ```ts
 * import { createClient } from "@fetchkit/toolkit/client";
 * import { route } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const routes = route({
 *   search: { method: "GET", pattern: "/search", query: z.object({ q: z.string() }) },
 * });
 * const client = createClient(routes, {
 *   baseUrl: "https://api.example.com",
 *   headers: { Authorization: "Bearer token" },
 *   fetch: (request) => Response.json({ url: request.url }),
 * });
 * const result = await client.search({ query: { q: "deno" } });
 * console.log(result.data); // { url: "https://api.example.com/search?q=deno" }
 * ```
 *
 * @param routes The route map, as built with `route()`, `resources()`, `form()`.
 * @param options `baseUrl`, and optionally `fetch` and `headers`.
 * @returns The client, shaped like the route map.
 */
export function createClient<const R extends RouteMap>(
  routes: R,
  options: ClientOptions,
): Client<R> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("createClient(routes, options): options are required");
  }
  const base = new URL(String(options.baseUrl));
  // A base path is kept: "https://host/api" + "/notes" is "/api/notes".
  const basePath = base.pathname.replace(/\/+$/, "");
  const send = options.fetch ?? ((request: Request) => fetch(request));
  if (typeof send !== "function") {
    throw new TypeError("createClient option fetch must be a function");
  }
  const shared = options.headers;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE;
  checkLimit(maxResponseBytes, "createClient option maxResponseBytes");

  function call(target: Route) {
    return async (
      input: {
        params?: Record<string, ParamValue | null | undefined>;
        query?: unknown;
        body?: unknown;
      } = {},
      init: ClientInit = {},
    ): Promise<ClientResult<unknown>> => {
      const path = (target.href as (
        params?: Record<string, ParamValue | null | undefined>,
      ) => string)(input.params);
      const url = new URL(base.origin + basePath + path);
      if (input.query !== undefined && input.query !== null) {
        writeQuery(
          url.searchParams,
          "",
          input.query,
          0,
          target.schemas?.query !== undefined,
        );
      }
      const headers = new Headers(
        typeof shared === "function" ? await shared() : shared,
      );
      for (const [name, value] of new Headers(init.headers)) {
        headers.set(name, value);
      }
      if (!headers.has("accept")) headers.set("accept", "application/json");
      let body: BodyInit | undefined;
      if (input.body !== undefined) {
        if (
          input.body instanceof FormData ||
          input.body instanceof URLSearchParams
        ) {
          body = input.body;
        } else {
          body = JSON.stringify(input.body);
          if (!headers.has("content-type")) {
            headers.set("content-type", "application/json");
          }
        }
      }
      const method = target.method === "ANY"
        ? (body === undefined ? "GET" : "POST")
        : target.method;
      const { maxResponseBytes: ownLimit, stream, ...requestInit } = init;
      const limit = ownLimit ?? maxResponseBytes;
      if (ownLimit !== undefined) checkLimit(ownLimit, "maxResponseBytes");
      const response = await sendFollowing(
        send,
        url,
        { ...requestInit, method, headers, body },
      );
      if (stream === true) {
        return {
          ok: response.ok,
          status: response.status,
          data: undefined,
          response,
        } as ClientResult<unknown>;
      }
      const data = await readData(response, limit, `${method} ${url}`);
      return {
        ok: response.ok,
        status: response.status,
        data,
        response,
      } as ClientResult<unknown>;
    };
  }

  function build(map: RouteMap): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(map)) {
      out[name] = entry instanceof Route ? call(entry) : build(entry);
    }
    return out;
  }
  return build(routes) as Client<R>;
}

const JSON_TYPE = /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

const DEFAULT_MAX_RESPONSE = 16 * 1024 * 1024;
const MAX_REDIRECTS = 20;
const decoder = new TextDecoder();

function checkLimit(value: number, name: string): void {
  if (typeof value !== "number" || !(value >= 0)) {
    throw new RangeError(
      `${name} must be a number of bytes >= 0, got ${value}`,
    );
  }
}

/**
 * Browsers (pages and their workers) follow redirects under CORS, and hide
 * a manual one's target (an opaque redirect): there `fetch` follows. Deno,
 * Node, Bun and Workers runtimes name themselves otherwise.
 */
const IN_BROWSER = typeof (globalThis as { document?: unknown }).document ===
    "object" ||
  /^Mozilla\//.test(
    (globalThis as { navigator?: { userAgent?: string } }).navigator
      ?.userAgent ?? "",
  );

/**
 * Sends the request and follows redirects as the module docs say: same
 * origin with every header, another origin with none the caller set, a
 * `307`/`308` to another origin not at all.
 */
async function sendFollowing(
  send: (request: Request) => Response | Promise<Response>,
  url: URL,
  init: RequestInit,
): Promise<Response> {
  const mode = init.redirect ?? "follow";
  if (IN_BROWSER || mode === "manual") {
    return await send(new Request(url, init));
  }
  let current = url;
  let request = init;
  for (let hops = 0;; hops++) {
    const response = await send(
      new Request(current, { ...request, redirect: "manual" }),
    );
    const location = response.headers.get("location");
    if (
      response.status < 300 || response.status > 308 ||
      response.status === 304 || response.status === 305 ||
      response.status === 306 || location === null
    ) {
      return response;
    }
    if (mode === "error") {
      await response.body?.cancel();
      throw new TypeError(
        `${init.method} ${url} was redirected (${response.status}) and redirect is "error"`,
      );
    }
    if (hops === MAX_REDIRECTS) {
      await response.body?.cancel();
      throw new TypeError(
        `${init.method} ${url}: more than ${MAX_REDIRECTS} redirects`,
      );
    }
    const next = new URL(location, current);
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      return response;
    }
    const crossOrigin = next.origin !== current.origin;
    const keepsBody = response.status === 307 || response.status === 308;
    const method = String(request.method ?? "GET").toUpperCase();
    const toGet = !keepsBody && !(method === "GET" || method === "HEAD") &&
      (response.status === 303 || method === "POST");
    // The body would go to a host the caller did not name: not followed.
    // 301 and 302 keep it too, for any method but POST (a PUT, a PATCH).
    if (crossOrigin && !toGet && request.body != null) return response;
    await response.body?.cancel();
    const headers = crossOrigin ? new Headers() : new Headers(request.headers);
    if (toGet) {
      headers.delete("content-type");
      headers.delete("content-length");
    }
    request = {
      ...request,
      method: toGet ? "GET" : method,
      body: toGet ? undefined : request.body,
      headers,
    };
    current = next;
  }
}

/**
 * The body, read up to `limit` bytes: JSON when the response says so and
 * parses; otherwise the text.
 */
async function readData(
  response: Response,
  limit: number,
  what: string,
): Promise<unknown> {
  const text = decoder.decode(await readUpTo(response, limit, what));
  const type = response.headers.get("content-type");
  if (type !== null && JSON_TYPE.test(type) && text !== "") {
    try {
      return JSON.parse(text);
    } catch {
      // A body that says JSON but is not: its text, never a throw.
    }
  }
  return text;
}

/** The body's bytes; a `ResponseTooLargeError` past `limit`. */
async function readUpTo(
  response: Response,
  limit: number,
  what: string,
): Promise<Uint8Array> {
  const body = response.body;
  if (body === null) return new Uint8Array(0);
  const length = response.headers.get("content-length");
  const declared = length === null ? NaN : Number(length);
  if (declared > limit) {
    await body.cancel().catch(() => {});
    throw new ResponseTooLargeError(what, limit, declared);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new ResponseTooLargeError(what, limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

// Deeper than any query a form rule on the server accepts (16 segments).
const MAX_QUERY_DEPTH = 16;

/**
 * Writes a value as query pairs by `parseQuery`'s name rules. For a route
 * with a query schema (read by `parseQuery`), a one-item array is written
 * `name[]`, which parses back as an array; otherwise the name repeats, as
 * `searchParams.getAll(name)` expects.
 */
function writeQuery(
  out: URLSearchParams,
  name: string,
  value: unknown,
  depth: number,
  parsed: boolean,
): void {
  if (value === null || value === undefined) return;
  if (depth > MAX_QUERY_DEPTH) {
    throw new TypeError(
      `Query value "${name}" is nested deeper than ${MAX_QUERY_DEPTH} levels`,
    );
  }
  if (Array.isArray(value)) {
    const flat = value.every((item) =>
      item === null || typeof item !== "object"
    );
    const scalarName = parsed && value.length === 1 ? `${name}[]` : name;
    value.forEach((item, index) => {
      // Scalars repeat the name; objects need their index.
      writeQuery(
        out,
        flat ? scalarName : `${name}[${index}]`,
        item,
        depth + 1,
        parsed,
      );
    });
  } else if (value instanceof Date) {
    out.append(name, value.toISOString());
  } else if (typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      writeQuery(
        out,
        name === "" ? key : `${name}.${key}`,
        item,
        depth + 1,
        parsed,
      );
    }
  } else if (name !== "") {
    out.append(name, String(value));
  }
}
