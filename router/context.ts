/**
 * The request context handlers and middleware receive: request, URL, params,
 * validated input, and values set under context keys.
 *
 * @module
 */

import type {
  AnyContextKey,
  ContextLookup,
  ContextValue,
} from "./context_key.ts";
import { ContextKey, missingValue } from "./context_key.ts";
import { HttpError } from "../http_error/mod.ts";
import { editHeaders } from "../response/edit_headers.ts";
import { StagedHeaders } from "./_staged_headers.ts";
import { PARAMS_PROTOTYPE } from "../matcher/trie.ts";
import type {
  RemoteAddr,
  RemoteAddrResolver,
  ServeInfo,
} from "./remote_addr.ts";

/** Path parameters of a matched route, by name. */
export type Params = Record<string, string | undefined>;

/**
 * `context.input` when nothing more is known of it: a route with schemas
 * types it from their outputs (see `RouteInput` in
 * `@fetchkit/toolkit/fetch-router/routes`).
 *
 * @example
 * ```ts
 * import type { InputBase } from "@fetchkit/toolkit/fetch-router";
 *
 * const input: InputBase = { params: {}, query: undefined, body: undefined };
 * ```
 */
export interface InputBase {
  /** Path parameters: the `params` schema's output, or the matched strings. */
  readonly params: unknown;
  /** The query: the `query` schema's output, or `undefined`. */
  readonly query: unknown;
  /** The body: the `body` schema's output, or `undefined`. */
  readonly body: unknown;
}

// Set by RequestContext's static block: lets the router's validation give a
// context its input without a public setter.
let provide: (context: RequestContext, input: InputBase) => void;

const NO_PARAMS: Params = Object.freeze(Object.create(PARAMS_PROTOTYPE));

// Set by RequestContext's static block: lets the router give a context
// the connection info without a public method.
let connect: (
  context: RequestContext,
  info: ServeInfo | undefined,
  resolve: RemoteAddrResolver,
) => void;

// Set by RequestContext's static block: the staged response headers,
// taken once (so they are applied once).
let takeStaged: (context: RequestContext) => StagedHeaders | undefined;

/** The method of a {@linkcode StagedSink}, a key shared with `serve()`. */
export const STAGED_SINK: unique symbol = Symbol.for(
  "fetchkit.serve.stagedSink",
) as never;

/**
 * A method of the info `serve()` on Node gives a router's own `fetch`: the
 * path to route, read from the request target when `request.url` keeps
 * it exactly as sent, or `undefined` (then `request.url` is cut).
 */
export const ROUTE_PATH: unique symbol = Symbol.for(
  "fetchkit.serve.routePath",
) as never;

/**
 * A method of the info `serve()` on Node gives a router's own `fetch`:
 * `context.headers`, the request's headers read from the server's own
 * record of them (the same values as `request.headers`, for less).
 */
export const REQUEST_HEADERS: unique symbol = Symbol.for(
  "fetchkit.serve.requestHeaders",
) as never;

/**
 * Takes a request's staged response headers instead of the `Response`:
 * `serve()` on Node writes them into the response head itself (see
 * `acceptStagedSinks`). `write(to, staged)` puts them onto any object with
 * `set` and `append`, as `applyTo` puts them onto a `Headers` (one
 * function for every request, so handing them over makes no closure).
 */
export interface StagedSink {
  [STAGED_SINK](
    write: (to: HeaderTarget, staged: unknown) => void,
    staged: unknown,
  ): void;
}

/** What staged headers are written onto: a `Headers`, or a server's own record. */
export interface HeaderTarget {
  set(name: string, value: string): void;
  append(name: string, value: string): void;
}

// Set by RequestContext's static block: what the server passed.
let infoOf: (context: RequestContext) => ServeInfo | undefined;

// Whether a server ever asked for staged headers (serve() on Node): until
// then no request's info is looked at for a sink (a symbol an object
// lacks costs Bun about 120 ns to look up).
let sinks = false;

/**
 * A value made the first time `get` reads it (see `deferValue`): a parser
 * can offer two forms of one result and build only the one a handler asks
 * for.
 */
class Deferred {
  // Given the key read too: one Deferred may stand under two keys (see
  // `deferValues`), one object a request instead of two.
  readonly make: (source: unknown, key: unknown) => unknown;
  readonly source: unknown;
  constructor(
    make: (source: unknown, key: unknown) => unknown,
    source: unknown,
  ) {
    this.make = make;
    this.source = source;
  }
}

// Set by RequestContext's static block: `has` without making the detached
// `has` (a closure) for it.
let holds: (context: RequestContext, key: unknown) => boolean;

// Set by RequestContext's static block: stores a value without making the
// detached `set` (a closure) for it.
let put: (context: RequestContext, key: unknown, value: unknown) => void;

// Set by RequestContext's static block: one value under two keys.
let putTwo: (
  context: RequestContext,
  first: unknown,
  second: unknown,
  value: unknown,
) => void;

// Set by RequestContext's static block: the route a native router (Bun's)
// already matched, for the router's dispatch to take.
let routeSlot: (context: RequestContext, route: unknown) => unknown;

/**
 * `context.get`: works detached, as in `({ get }) => ...`.
 *
 * @example
 * ```ts
 * import type { ContextGet } from "@fetchkit/toolkit/fetch-router";
 *
 * function emailOf(get: ContextGet): string {
 *   return String(get(FormData).get("email") ?? "");
 * }
 * ```
 */
export type ContextGet = <K extends AnyContextKey>(key: K) => ContextLookup<K>;
/**
 * `context.set`: works detached, as in `({ set }) => ...`.
 *
 * @example
 * ```ts
 * import { type ContextSet, createContextKey } from "@fetchkit/toolkit/fetch-router";
 *
 * const Tenant = createContextKey("public");
 * function enter(set: ContextSet, tenant: string): void {
 *   set(Tenant, tenant);
 * }
 * ```
 */
export type ContextSet = <K extends AnyContextKey>(
  key: K,
  value: ContextValue<K>,
) => void;
/**
 * `context.has`: works detached, as in `({ has }) => ...`.
 *
 * @example
 * ```ts
 * import type { ContextHas } from "@fetchkit/toolkit/fetch-router";
 *
 * const parsed = (has: ContextHas): boolean => has(FormData);
 * ```
 */
export type ContextHas = (key: AnyContextKey) => boolean;

/**
 * The first argument of every handler and middleware: the request, its
 * matched parameters, and a typed store for values that middleware passes
 * on (the session, the parsed form, the current user, ...).
 *
 * `get`, `set` and `has` keep working when taken off the context, so
 * handlers may destructure it: `({ get, params }) => ...`. (Each is made
 * the first time it is read, once per request, and only if it is read.)
 *
 * What `get(key)` gives when nothing was set under `key`:
 * - a {@linkcode ContextKey}: its default (`undefined` for a key made
 *   without one, whose type then includes `undefined`);
 * - a class such as `FormData`: it throws a `TypeError` naming the missing
 *   middleware, so `get(FormData)` is typed `FormData`, never `undefined`;
 *   test with `has(FormData)` first when the value is optional;
 * - a symbol: `undefined` (its type is `unknown`).
 *
 * @example Read and write context values
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 *
 * const Started = createContextKey(0);
 * const router = createRouter({
 *   middleware: [(context, next) => {
 *     context.set(Started, performance.now());
 *     return next();
 *   }],
 * });
 * router.get("/posts/:id", ({ get, params }) =>
 *   new Response(`post ${params.id} at ${get(Started)}`)
 * );
 * ```
 *
 * @example A class key is typed as its instance and throws when missing
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { formData } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const router = createRouter({ middleware: [formData()] });
 * router.post("/subscribe", ({ get }) =>
 *   new Response(`subscribed ${get(FormData).get("email")}`)
 * );
 * ```
 */
export class RequestContext<P extends Params = Params, I = InputBase> {
  /** The incoming request. */
  readonly request: Request;
  /**
   * The method used for routing. It starts as `request.method`; router-level
   * middleware (such as `methodOverride()`) may change it before routing.
   */
  method: string;
  /**
   * Path parameters of the matched route, percent-decoded. For a route
   * without parameters it is one shared, frozen, empty object.
   */
  params: P;
  /**
   * The pattern of the matched route, with any mount prefix
   * (`"/posts/:id"`), set by the router when a route matches; `undefined`
   * before routing (in router middleware before `next()`) and when no
   * route matched. Tracing and metrics name requests by it: it has few
   * values, unlike the path.
   */
  routePattern: string | undefined = undefined;
  #url: URL | undefined = undefined;
  // Values under keys: a flat `[key, value, ...]` array while they are
  // few (cheaper to make and to scan than a `Map`), a `Map` past that.
  #values: Values | undefined = undefined;
  #get: ContextGet | undefined = undefined;
  #set: ContextSet | undefined = undefined;
  #has: ContextHas | undefined = undefined;
  #info: ServeInfo | undefined = undefined;
  #resolve: RemoteAddrResolver | undefined = undefined;
  #remoteAddr: RemoteAddr | undefined | null = null;
  #route: unknown = undefined;
  // `context.input` of a route with schemas, in a field of its own: a
  // `Map` made for it alone cost each validated request an allocation and
  // two hashed look-ups; a route without schemas pays one empty slot.
  #input: InputBase | undefined = undefined;
  #staged: StagedHeaders | undefined = undefined;

  static {
    infoOf = (context) => context.#info;
    connect = (context, info, resolve) => {
      context.#info = info;
      context.#resolve = resolve;
    };
    takeStaged = (context) => {
      const staged = context.#staged;
      context.#staged = undefined;
      return staged;
    };
    routeSlot = (context, route) => {
      const found = context.#route;
      if (route !== undefined) context.#route = route;
      return found;
    };
    holds = (context, key) =>
      context.#values !== undefined && hasKey(context.#values, key);
    put = (context, key, value) => {
      context.#values = storeValue(context.#values, key, value);
    };
    putTwo = (context, first, second, value) => {
      const values = context.#values;
      if (values === undefined && first !== second) {
        // Both at once: one array of four, not one of two grown to four.
        context.#values = [first, value, second, value];
      } else {
        context.#values = storeValue(
          storeValue(values, first, value),
          second,
          value,
        );
      }
    };
    provide = (context, input) => {
      context.#input = input;
    };
  }

  /**
   * Made by the router for each request; applications rarely create one,
   * except in tests of their middleware.
   *
   * @param request The incoming request.
   * @param params The matched path parameters.
   */
  constructor(request: Request, params?: P) {
    this.request = request;
    // Known without a read when Bun's router picked the route by method
    // (see `contextFor`); reading `request.method` costs Bun a native call.
    const method = presetMethod;
    if (method === undefined) this.method = request.method;
    else {
      presetMethod = undefined;
      this.method = method;
    }
    // A route without parameters shares one empty, frozen object, with
    // no prototype chain to Object.prototype, as for matched params.
    this.params = params ?? (NO_PARAMS as P);
  }

  /**
   * The request URL, parsed on first use. A URL that cannot be parsed
   * (Bun hands `/path` alone for a `Host` such as `a?x`) throws an
   * `HttpError` 400, so the client learns what was wrong, not a 500.
   */
  get url(): URL {
    return this.#url ??= requestUrl(this.request.url);
  }

  /**
   * The client's address, from the second argument of
   * `router.fetch(request, info)` (what `Deno.serve` passes), or
   * `undefined` when none was given. Behind a proxy, the router option
   * `trustProxy` makes it the client the proxy names. Read on first use;
   * middleware may set it.
   */
  get remoteAddr(): RemoteAddr | undefined {
    if (this.#remoteAddr === null) {
      this.#remoteAddr = this.#resolve === undefined
        ? undefined
        : this.#resolve(this.request, this.#info);
    }
    return this.#remoteAddr;
  }

  set remoteAddr(value: RemoteAddr | undefined) {
    this.#remoteAddr = value;
  }

  /**
   * The request headers: `request.headers`, or under `serve()` on Node the
   * same values read from `node:http`'s own record of them (fewer
   * instructions a read than the adapter's `Headers`). Received headers
   * are not for writing (Deno refuses it); a write made through
   * `context.request.headers` is not seen here on Node.
   */
  get headers(): Headers {
    return requestHeaders(this.request, this.#info);
  }

  /**
   * Headers for the response, staged: middleware and handlers write them
   * before or after the handler runs, and the router applies them once,
   * to the response the request is answered with (errors, 404 and 405
   * included), replacing headers of the same name (`Set-Cookie` is added
   * to the response's own, but for a line it has already). A middleware
   * that only stages headers can stay synchronous:
   * `(context, next) => { ...; return next(); }`.
   *
   * @example
   * ```ts
   * import { createRouter } from "@fetchkit/toolkit/fetch-router";
   *
   * const router = createRouter({
   *   middleware: [(context, next) => {
   *     context.responseHeaders.set("X-Frame-Options", "DENY");
   *     return next();
   *   }],
   * });
   * router.get("/", () => new Response("home"));
   * const response = await router.fetch(new Request("http://localhost/"));
   * response.headers.get("X-Frame-Options"); // "DENY"
   * ```
   */
  get responseHeaders(): Headers {
    return (this.#staged ??= new StagedHeaders()) as unknown as Headers;
  }

  /**
   * The validated input of a route with schemas: `{ params, query, body }`,
   * each the output of the route's schema, checked before the handler ran
   * (params and query failing answer `400`, the body `422`). For a part
   * without a schema, `params` is `context.params` and `query` and `body`
   * are `undefined` (the body is left unread for the handler).
   *
   * @example
   * ```ts
   * import { createRouter } from "@fetchkit/toolkit/fetch-router";
   * import { route } from "@fetchkit/toolkit/fetch-router/routes";
   * import * as z from "zod";
   *
   * const routes = route({
   *   show: { method: "GET", pattern: "/notes/:id", params: z.object({ id: z.coerce.number() }) },
   * });
   * const router = createRouter();
   * router.map(routes.show, ({ input }) => Response.json({ next: input.params.id + 1 }));
   * const response = await router.fetch(new Request("http://localhost/notes/41"));
   * console.log(await response.json()); // { next: 42 }
   * ```
   */
  get input(): I {
    const input = this.#input;
    if (input !== undefined) return input as I;
    return { params: this.params, query: undefined, body: undefined } as I;
  }

  /**
   * Reads the value stored under a key (see the class docs for what a key
   * with nothing set gives). Works detached: `const { get } = context`.
   *
   * @example
   * ```ts
   * import { createContextKey, RequestContext } from "@fetchkit/toolkit/fetch-router";
   *
   * const Locale = createContextKey("en");
   * const { get } = new RequestContext(new Request("http://localhost/"));
   * get(Locale); // "en"
   * ```
   */
  get get(): ContextGet {
    return this.#get ??= (key) => {
      const values = this.#values;
      if (values !== undefined) {
        let value = findValue(values, key);
        if (value !== MISSING) {
          if (value instanceof Deferred) {
            value = value.make(value.source, key);
            this.#values = storeValue(this.#values, key, value);
          }
          return value as ContextLookup<typeof key>;
        }
      }
      if (key instanceof ContextKey) {
        return key.defaultValue as ContextLookup<typeof key>;
      }
      if (typeof key === "function") throw missingValue(key);
      return undefined as ContextLookup<typeof key>;
    };
  }

  /**
   * Stores a value under a key for the rest of this request; its type
   * follows from the key. Works detached: `const { set } = context`.
   *
   * @example
   * ```ts
   * import { RequestContext } from "@fetchkit/toolkit/fetch-router";
   *
   * const { get, set } = new RequestContext(new Request("http://localhost/"));
   * set(FormData, new FormData());
   * get(FormData).has("email"); // false
   * ```
   */
  get set(): ContextSet {
    return this.#set ??= (key, value) => {
      this.#values = storeValue(this.#values, key, value);
    };
  }

  /**
   * Tells whether a value was set under a key (a default does not count).
   * Works detached: `const { has } = context`.
   *
   * @example
   * ```ts
   * import { RequestContext } from "@fetchkit/toolkit/fetch-router";
   *
   * const { has } = new RequestContext(new Request("http://localhost/"));
   * has(FormData); // false
   * ```
   */
  get has(): ContextHas {
    return this.#has ??= (key) =>
      this.#values !== undefined && hasKey(this.#values, key);
  }
}

/** A context's values: `[key, value, ...]` while few, then a `Map`. */
type Values = unknown[] | Map<unknown, unknown>;

/** The most keys held in the flat array before it becomes a `Map`. */
const FLAT_KEYS = 8;

/** What `findValue` gives for a key with nothing stored. */
const MISSING: unique symbol = Symbol("missing");

// Keys are objects, functions or symbols (`AnyContextKey`): `===` finds
// them as a `Map` would.
function indexOfKey(values: unknown[], key: unknown): number {
  for (let i = 0; i < values.length; i += 2) {
    if (values[i] === key) return i;
  }
  return -1;
}

function findValue(values: Values, key: unknown): unknown {
  if (values instanceof Map) {
    const value = values.get(key);
    return value !== undefined || values.has(key) ? value : MISSING;
  }
  const i = indexOfKey(values, key);
  return i === -1 ? MISSING : values[i + 1];
}

function hasKey(values: Values, key: unknown): boolean {
  return values instanceof Map
    ? values.has(key)
    : indexOfKey(values, key) !== -1;
}

/** Stores `value` under `key`: the same container, or the one it grew into. */
function storeValue(
  values: Values | undefined,
  key: unknown,
  value: unknown,
): Values {
  if (values === undefined) return [key, value];
  if (values instanceof Map) {
    values.set(key, value);
    return values;
  }
  const i = indexOfKey(values, key);
  if (i !== -1) values[i + 1] = value;
  else if (values.length < FLAT_KEYS * 2) values.push(key, value);
  else {
    const map = new Map<unknown, unknown>();
    for (let j = 0; j < values.length; j += 2) {
      map.set(values[j], values[j + 1]);
    }
    map.set(key, value);
    return map;
  }
  return values;
}

/**
 * `context.has(key)`, for middleware of this package: the same answer,
 * without making the detached `has` for a context whose handler may never
 * read it.
 */
export function hasValue(context: RequestContext, key: AnyContextKey): boolean {
  return holds(context, key);
}

/** Gives a context its validated input, for `context.input`. */
export function provideInput(context: RequestContext, input: InputBase): void {
  provide(context, input);
}

/**
 * Stores under `key` a value made by `make(source)` the first time `get`
 * reads it (once; `has` is true at once, and a `set` replaces it unmade).
 */
export function deferValue<K extends AnyContextKey, S>(
  context: RequestContext,
  key: K,
  make: (source: S) => ContextValue<K>,
  source: S,
): void {
  put(context, key, new Deferred(make as (source: unknown) => unknown, source));
}

/**
 * `deferValue` for two keys whose values are made from one source (a
 * form as `FormData` and as a record): `make(source, key)` makes the
 * value of the key read, each once; one object stands under both.
 */
export function deferValues<S>(
  context: RequestContext,
  first: AnyContextKey,
  second: AnyContextKey,
  make: (source: S, key: AnyContextKey) => unknown,
  source: S,
): void {
  const deferred = new Deferred(
    make as (source: unknown, key: unknown) => unknown,
    source,
  );
  putTwo(context, first, second, deferred);
}

// The method `contextFor` hands the next constructor call.
let presetMethod: string | undefined;

/**
 * A context for a request whose method is known already (Bun's router
 * picked its route by method): the same as `new RequestContext(request,
 * params)`, without reading `request.method`.
 */
export function contextFor(
  request: Request,
  params: Params | undefined,
  method: string,
): RequestContext {
  presetMethod = method;
  return new RequestContext(request, params);
}

/** Gives a context what the server passed, for `context.remoteAddr`. */
export function connectContext(
  context: RequestContext,
  info: ServeInfo | undefined,
  resolve: RemoteAddrResolver,
): void {
  connect(context, info, resolve);
}

/**
 * Stores the route a native router matched for this request (with
 * `route`), or reads it (without).
 */
export function matchedRoute(
  context: RequestContext,
  route?: unknown,
): unknown {
  return routeSlot(context, route);
}

/**
 * Applies the headers staged with `context.responseHeaders` to `response`
 * (once: a second call finds none). A response whose headers cannot
 * change (`Response.redirect()`, a fetched one) is copied first.
 */
export function applyStaged(
  context: RequestContext,
  response: Response,
): Response {
  const staged = takeStaged(context);
  if (staged === undefined || StagedHeaders.isEmpty(staged)) return response;
  if (sinks) {
    const info = infoOf(context) as Partial<StagedSink> | undefined;
    if (info !== undefined && info[STAGED_SINK] !== undefined) {
      info[STAGED_SINK](writeStaged, staged);
      return response;
    }
  }
  return editHeaders(response, StagedHeaders.applyTo, staged);
}

/**
 * The path to route as the server that passed the context's info read it
 * from the request target (serve() on Node, see `ROUTE_PATH`), or
 * `undefined`: the router then cuts it out of `request.url`. Reading it
 * there skips a scan of the adapter's URL string, which it built by
 * concatenation (flattened on the first scan) and which nothing else may
 * read (BENCHMARKS.md, "Fifth round: Node").
 */
export function servedRoutePath(context: RequestContext): string | undefined {
  // Only a server that asked for staged sinks gives such an info.
  if (!sinks) return undefined;
  return servedPathOf(infoOf(context));
}

/**
 * The request's headers as `context.headers` gives them, for a request
 * whose context is not built (see `early_answer.ts`): under `serve()` on
 * Node read from the server's own record, else `request.headers`.
 */
export function requestHeaders(
  request: Request,
  info: ServeInfo | undefined,
): Headers {
  if (sinks) {
    const served = (info as
      | { [REQUEST_HEADERS]?: () => Headers }
      | undefined)?.[REQUEST_HEADERS]?.();
    if (served !== undefined) return served;
  }
  return request.headers;
}

/**
 * {@linkcode servedRoutePath} for a request whose context is not built:
 * the path as the server read it, or `undefined`.
 */
export function servedPathOf(info: ServeInfo | undefined): string | undefined {
  if (!sinks) return undefined;
  return (info as { [ROUTE_PATH]?: () => string | undefined } | undefined)
    ?.[ROUTE_PATH]?.();
}

/** What a `StagedSink` calls to write the staged headers it took. */
function writeStaged(to: HeaderTarget, staged: unknown): void {
  StagedHeaders.applyTo(to, staged as StagedHeaders);
}

/**
 * From now on, a request whose connection info is a {@linkcode StagedSink}
 * has its staged headers sent there instead of onto the `Response` it is
 * answered with: for a server that writes them into the response head
 * itself (`serve()` on Node, where a header set on a built `Response` makes
 * its adapter build and walk a `Headers`: about 18,000 instructions a
 * request, BENCHMARKS.md "Every runtime against its fastest framework").
 * Such a server gives that info only to a router's `fetch` whose
 * `Response` goes to it unread.
 */
export function acceptStagedSinks(): void {
  sinks = true;
}

function requestUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new HttpError(
      400,
      "Bad Request: the request's URL could not be parsed; is its Host header a valid host?",
    );
  }
}
