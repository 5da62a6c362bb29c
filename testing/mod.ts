/**
 * A test client that acts as a browser on one origin, calling the app in
 * process (no socket, no port): {@linkcode createTestClient} keeps a
 * {@linkcode CookieJar} across requests, follows redirects when asked, and
 * sends the `Origin` and `Sec-Fetch-Site: same-origin` headers a browser
 * sends for a page's own forms, so apps behind `csrf()` accept its posts.
 *
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { form, route } from "@fetchkit/toolkit/fetch-router/routes";
 * import { formData } from "@fetchkit/toolkit/form-data-middleware";
 * import { csrf } from "@fetchkit/toolkit/csrf-middleware";
 * import { redirect } from "@fetchkit/toolkit/response/redirect";
 * import { createTestClient } from "@fetchkit/toolkit/testing";
 *
 * const routes = route({ home: "/", login: form("login") });
 * const router = createRouter({ middleware: [csrf(), formData()] });
 * router.map(routes, {
 *   actions: {
 *     home: ({ headers }) => new Response(`cookie: ${headers.get("cookie")}`),
 *     login: {
 *       actions: {
 *         index: () => new Response("<form method=post>", { headers: { "Content-Type": "text/html" } }),
 *         action: ({ get }) => {
 *           const name = String(get(FormData)?.get("name"));
 *           const response = redirect(routes.home.href(), 303);
 *           response.headers.append("Set-Cookie", `user=${name}; Path=/; HttpOnly`);
 *           return response;
 *         },
 *       },
 *     },
 *   },
 * });
 *
 * const client = createTestClient(router);
 * const home = await client.post(routes.login.action, { form: { name: "ada" }, redirect: "follow" });
 * await home.text(); // "cookie: user=ada"
 * client.cookies.get("user"); // "ada"
 * ```
 *
 * What it does as a browser would, and where it stops:
 *
 * - Cookies follow RFC 6265 (see {@linkcode CookieJar}): `Secure` cookies
 *   are only kept and sent when the client's origin is `https:`; give
 *   `origin: "https://app.example"` to test an app that sets them.
 * - Unsafe requests (`POST`, `PUT`, `PATCH`, `DELETE`) carry `Origin` (the
 *   client's origin); every request carries `Sec-Fetch-Site: same-origin`.
 *   Headers you give win, so a cross-site attack is one call away
 *   (`headers: { "Sec-Fetch-Site": "cross-site" }`).
 * - `redirect: "follow"` (per call, or for every call through the client's
 *   options; `html()` follows by default, as a browser navigating does)
 *   follows up to 20 redirects: `303`, and `301`/`302` after `POST`, turn
 *   into a `GET` without the body; `307` and `308` repeat the method and
 *   body. A redirect to another origin is not followed (the app only
 *   answers its own): that response is returned as it is. The final
 *   response's `url` and `redirected` say where it ended, as `fetch`'s do.
 * - A route (from `route()`, `resources()`, `form()`) is a target as well
 *   as a path: its `params` are type-checked against its pattern, and a
 *   `json` body against its `body` schema.
 * - Bodies of known length (`json`, `form`, `multipart`, strings, bytes,
 *   blobs) carry `Content-Length` as a browser sends them, so
 *   `bodyLimit()` answers a test as it answers HTTP; a stream has none.
 * - A call's `signal` aborts it as it aborts a `fetch()`: the call rejects
 *   with the signal's reason even while the handler has not answered, and
 *   the handler's `request.signal` aborts.
 * - The cookie jar refuses a `Domain` that is a public suffix (`com`,
 *   `co.uk`, `github.io`; a built-in list of the common ones).
 * - The handler gets `{ remoteAddr: 127.0.0.1 }` as `Deno.serve` would
 *   give, so per-address rate limits work (`remoteAddr` option to change).
 *
 * The handler can also be the global `fetch` with a real server's origin:
 * then the client is a cookie-keeping browser over HTTP.
 *
 * @module
 */
import { Route } from "../routes/route.ts";
import type { HrefArgs, ParamValue } from "../routes/params.ts";
import type { RouteMap } from "../routes/route_map.ts";
import type { ParamsPart, SchemaInput } from "../client/mod.ts";
import { CookieJar } from "./cookie_jar.ts";

export {
  CookieJar,
  type CookieJarOptions,
  defaultPath,
  domainMatch,
  pathMatch,
  type StoredCookie,
} from "./cookie_jar.ts";

/** A request handler: `router.fetch`, Hono's `app.fetch`, a `Deno.serve` handler. */
export type FetchHandler = (
  request: Request,
  info: { remoteAddr: { hostname: string; port: number; transport: string } },
) => Response | Promise<Response>;

/** Something with a `fetch` handler: a router from `createRouter()`, a Hono app. */
export interface HasFetch {
  /** Answers a request. */
  fetch(request: Request, ...rest: never[]): Response | Promise<Response>;
}

/** Options of {@linkcode createTestClient}. */
export interface TestClientOptions {
  /** The origin the client browses, such as `https://app.example`. Default `http://localhost`. */
  origin?: string;
  /** Follow redirects on every call (`"follow"`), or return them (`"manual"`, the default). */
  redirect?: "follow" | "manual";
  /** A jar to use, such as another client's (`other.cookies`), to share cookies. */
  cookies?: CookieJar;
  /** Headers sent with every request; a call's own win. */
  headers?: HeadersInit;
  /** The client address the handler sees. Default `127.0.0.1`. */
  remoteAddr?: string;
}

/** A form's fields: repeated names from arrays; files for multipart. */
export type FormInit = Record<
  string,
  ParamValue | Blob | null | undefined | readonly (ParamValue | Blob)[]
>;

/** Options of every call: headers, a query, redirects. */
export interface RequestOptions {
  /** Request headers; they win over the client's own. */
  headers?: HeadersInit;
  /** A query string: text, pairs or a record (arrays repeat the name). */
  query?: string | URLSearchParams | Record<string, unknown>;
  /** Follow redirects (`"follow"`) or not (`"manual"`); default the client's. */
  redirect?: "follow" | "manual";
  /** Aborts the call. */
  signal?: AbortSignal;
}

/** A body, at most one of `form`, `json`, `multipart` and `body`. */
export interface BodyOptions<J = unknown> {
  /** Sent as `application/x-www-form-urlencoded` (files need `multipart`). */
  form?: FormInit;
  /** Sent as JSON. */
  json?: J;
  /** Sent as `multipart/form-data`: values, `Blob`s and `File`s. */
  multipart?: FormInit | FormData;
  /** Any other body, sent as given. */
  body?: BodyInit;
}

/**
 * What a call goes to: a path (`/posts?page=2`), an absolute URL, a route,
 * or a group of routes such as `form()`'s, where the call takes the one
 * route of its method (`post` the `action`, `get` the `index`).
 */
export type Target = string | URL | Route | RouteMap;

/** `json` typed by a route's `body` schema, when it has one. */
export type JsonOf<S> = S extends { readonly body: infer B } ? SchemaInput<B>
  : unknown;

/**
 * `[pattern, schemas]` of the route a call to `T` with method `M` goes
 * to: `T` itself, or the routes of group `T` for `M` (or `ANY`).
 */
export type RouteParts<T, M extends string> = T extends
  Route<string, infer P, infer S> ? [P, S]
  : {
    [K in keyof T]: T[K] extends Route<infer X, infer P, infer S>
      ? X extends M | "ANY" ? [P, S] : never
      : never;
  }[keyof T];

/**
 * The options argument of a call with method `M` to `T`, with options `O`:
 * for a route, its `params` (required when its pattern has a required
 * parameter), and `json` typed from its `body` schema; for a group without
 * a route of that method, nothing fits.
 */
export type CallArgs<T, O, M extends string> = T extends string | URL
  ? [options?: O]
  : [RouteParts<T, M>] extends [never] ? [options: never]
  : RouteParts<T, M> extends [infer P extends string, infer S]
    ? [] extends HrefArgs<P> ? [options?: O & ParamsPart<P> & BodyTyped<O, S>]
    : [options: O & ParamsPart<P> & BodyTyped<O, S>]
  : [options: never];

/**
 * For calls with a body (options `O` take one), `json` typed from the
 * route's `body` schema `S`.
 */
export type BodyTyped<O, S> = O extends BodyOptions ? { json?: JsonOf<S> }
  : unknown;

/** A call without a body with method `M`: `get`, `head`, `delete`. */
export type Call<M extends string> = <const T extends Target>(
  target: T,
  ...options: CallArgs<T, RequestOptions, M>
) => Promise<Response>;

/** A call with a body with method `M`: `post`, `put`, `patch`. */
export type BodyCall<M extends string> = <const T extends Target>(
  target: T,
  ...options: CallArgs<T, RequestOptions & BodyOptions, M>
) => Promise<Response>;

/** A call that answers the page's text: `html`. */
export type TextCall = <const T extends Target>(
  target: T,
  ...options: CallArgs<T, RequestOptions, "GET">
) => Promise<string>;

/** The client {@linkcode createTestClient} makes. */
export interface TestClient {
  /** The origin it browses. */
  readonly origin: string;
  /** Its cookies. */
  readonly cookies: CookieJar;
  /** `GET` a path, URL or route. */
  readonly get: Call<"GET">;
  /** `HEAD`. */
  readonly head: Call<"HEAD">;
  /** `DELETE`. */
  readonly delete: Call<"DELETE">;
  /** `POST` with `{ form }`, `{ json }`, `{ multipart }` or `{ body }`. */
  readonly post: BodyCall<"POST">;
  /** `PUT`, with a body as `post`. */
  readonly put: BodyCall<"PUT">;
  /** `PATCH`, with a body as `post`. */
  readonly patch: BodyCall<"PATCH">;
  /**
   * `GET` a page as a browser navigates (following redirects unless
   * `redirect: "manual"`) and give its text. Throws when the final
   * response is not HTML, naming its status and type.
   */
  readonly html: TextCall;
  /**
   * Sends any request through the client (cookies, browser headers,
   * redirects): a path or URL with `RequestInit`, or a `Request`.
   */
  fetch(
    input: string | URL | Request,
    init?: RequestInit & { redirect?: "follow" | "manual" },
  ): Promise<Response>;
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const MAX_REDIRECTS = 20;
const BODY_HEADERS = [
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
];

/**
 * The handler's answer, or the signal's reason once it aborts first: a
 * caller's `signal` ends the call as it ends a `fetch()`, even while the
 * handler has not answered.
 */
function untilAborted(
  answer: Response | Promise<Response>,
  signal: AbortSignal,
): Promise<Response> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<Response>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(answer).then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  });
}

function handlerOf(app: HasFetch | FetchHandler | typeof fetch): FetchHandler {
  // The global fetch takes RequestInit second, not a server's info.
  if (app === globalThis.fetch) return (request) => fetch(request);
  if (typeof app === "function") return app as FetchHandler;
  if (
    app !== null && typeof app === "object" && typeof app.fetch === "function"
  ) {
    return (request, info) =>
      (app.fetch as (r: Request, i: unknown) => Response | Promise<Response>)(
        request,
        info,
      );
  }
  throw new TypeError(
    "createTestClient(app): give a router (anything with a fetch method) or a fetch handler function",
  );
}

function checkOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new TypeError(
      `createTestClient(): origin "${origin}" is not a URL such as "http://localhost"`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(
      `createTestClient(): origin "${origin}" must be http: or https:`,
    );
  }
  return url.origin;
}

function appendField(
  out: URLSearchParams | FormData,
  name: string,
  value: ParamValue | Blob | null | undefined,
): void {
  if (value === null || value === undefined) return;
  if (value instanceof Blob) {
    if (out instanceof URLSearchParams) {
      throw new TypeError(
        `Field "${name}" is a file: send files with { multipart }, not { form }`,
      );
    }
    out.append(name, value);
  } else out.append(name, String(value));
}

function fill<T extends URLSearchParams | FormData>(
  out: T,
  fields: FormInit,
): T {
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) {
      for (const item of value) appendField(out, name, item);
    } else {appendField(
        out,
        name,
        value as ParamValue | Blob | null | undefined,
      );}
  }
  return out;
}

/** The body and its Content-Type from a call's options. */
function bodyOf(
  options: BodyOptions,
): { body: BodyInit | undefined; type: string | undefined } {
  const given = (["form", "json", "multipart", "body"] as const).filter((key) =>
    options[key] !== undefined
  );
  if (given.length > 1) {
    throw new TypeError(
      `Give one body, not ${given.join(" and ")}`,
    );
  }
  if (options.form !== undefined) {
    return {
      body: fill(new URLSearchParams(), options.form),
      type: "application/x-www-form-urlencoded;charset=UTF-8",
    };
  }
  if (options.json !== undefined) {
    return { body: JSON.stringify(options.json), type: "application/json" };
  }
  if (options.multipart !== undefined) {
    const data = options.multipart instanceof FormData
      ? options.multipart
      : fill(new FormData(), options.multipart);
    // The Request sets multipart's Content-Type with its boundary.
    return { body: data, type: undefined };
  }
  return { body: options.body, type: undefined };
}

function searchOf(query: RequestOptions["query"]): string {
  if (query === undefined) return "";
  if (typeof query === "string") {
    return query === "" ? "" : (query.startsWith("?") ? query : "?" + query);
  }
  const pairs = query instanceof URLSearchParams
    ? query
    : new URLSearchParams();
  if (!(query instanceof URLSearchParams)) {
    for (const [name, value] of Object.entries(query)) {
      if (value === null || value === undefined) continue;
      if (Array.isArray(value)) {
        for (const item of value) pairs.append(name, String(item));
      } else pairs.append(name, String(value));
    }
  }
  const text = pairs.toString();
  return text === "" ? "" : "?" + text;
}

/**
 * Makes a client that calls `app` in process as a browser on `origin`
 * would; see the module docs for what it does as a browser does.
 *
 * @example Testing a csrf() app's form, cookies and a redirect
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { csrf } from "@fetchkit/toolkit/csrf-middleware";
 * import { createTestClient } from "@fetchkit/toolkit/testing";
 *
 * const router = createRouter({ middleware: [csrf()] });
 * router.post("/theme", () =>
 *   new Response(null, { status: 303, headers: { Location: "/", "Set-Cookie": "theme=dark" } }));
 * router.get("/", ({ headers }) => new Response(headers.get("cookie") ?? "none"));
 *
 * const client = createTestClient(router);
 * const page = await client.post("/theme", { form: { theme: "dark" }, redirect: "follow" });
 * await page.text(); // "theme=dark"
 * page.redirected; // true
 *
 * const attack = await client.post("/theme", { headers: { "Sec-Fetch-Site": "cross-site" } });
 * attack.status; // 403
 * ```
 *
 * @param app A router (or anything with `fetch`), a fetch handler
 * function, or the global `fetch` (with a real server's `origin`).
 * @param options The origin, redirects, a shared jar, default headers.
 * @returns The client.
 */
export function createTestClient(
  app: HasFetch | FetchHandler | typeof fetch,
  options: TestClientOptions = {},
): TestClient {
  const handler = handlerOf(app);
  const origin = checkOrigin(options.origin ?? "http://localhost");
  const jar = options.cookies ?? new CookieJar();
  const defaultRedirect = options.redirect ?? "manual";
  const shared = new Headers(options.headers);
  const info = {
    remoteAddr: {
      hostname: options.remoteAddr ?? "127.0.0.1",
      port: 0,
      transport: "tcp",
    },
  };

  /** One exchange, without redirects: cookies in and out. */
  async function exchange(
    url: URL,
    method: string,
    headers: Headers,
    body: BodyInit | null | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    const sent = new Headers(headers);
    const cookie = jar.cookieHeader(url);
    // A Cookie header given by the caller is sent as given.
    if (cookie !== "" && !sent.has("cookie")) sent.set("cookie", cookie);
    if (!sent.has("sec-fetch-site")) sent.set("sec-fetch-site", "same-origin");
    if (UNSAFE.has(method) && !sent.has("origin")) sent.set("origin", origin);
    const request = new Request(url, {
      method,
      headers: sent,
      body: method === "GET" || method === "HEAD" ? undefined : body,
      signal,
      // A real fetch handler must hand redirects back to us.
      redirect: "manual",
    });
    const response = signal === undefined
      ? await handler(request, info)
      : await untilAborted(handler(request, info), signal);
    if (!(response instanceof Response)) {
      throw new TypeError(
        `The app answered ${method} ${url.pathname} with ${typeof response}, not a Response`,
      );
    }
    jar.storeResponse(response, url);
    return response;
  }

  async function send(
    url: URL,
    method: string,
    headers: Headers,
    body: BodyInit | null | undefined,
    redirect: "follow" | "manual",
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    // A body is sent again on 307 and 308: keep streams as bytes.
    if (
      redirect === "follow" && body instanceof ReadableStream
    ) body = await new Response(body).arrayBuffer();
    // A body of known length goes with its Content-Length, as a browser
    // sends it (bodyLimit() refuses a large one before reading it); a
    // stream has none. FormData is encoded here, boundary and all.
    if (
      body != null && !(body instanceof ReadableStream) &&
      method !== "GET" && method !== "HEAD"
    ) {
      const encoded = new Request("http://body.invalid/", {
        method: "POST",
        body,
      });
      const type = encoded.headers.get("content-type");
      const bytes = new Uint8Array(await encoded.arrayBuffer());
      body = bytes;
      headers = new Headers(headers);
      if (type !== null && !headers.has("content-type")) {
        headers.set("content-type", type);
      }
      if (!headers.has("content-length")) {
        headers.set("content-length", String(bytes.byteLength));
      }
    }
    for (let hop = 0;; hop++) {
      const response = await exchange(url, method, headers, body, signal);
      const location = response.headers.get("location");
      const status = response.status;
      const isRedirect = status === 301 || status === 302 || status === 303 ||
        status === 307 || status === 308;
      if (redirect === "manual" || !isRedirect || location === null) {
        return markUrl(response, url, hop > 0);
      }
      const next = new URL(location, url);
      if (next.origin !== origin) return markUrl(response, url, hop > 0);
      if (hop === MAX_REDIRECTS) {
        throw new TypeError(
          `Too many redirects: more than ${MAX_REDIRECTS}, the last to ${next.href}`,
        );
      }
      await response.body?.cancel();
      // Fetch's "HTTP-redirect fetch": 303 (but HEAD), and 301/302 after POST, become GET.
      if (
        (status === 303 && method !== "GET" && method !== "HEAD") ||
        ((status === 301 || status === 302) && method === "POST")
      ) {
        method = "GET";
        body = undefined;
        headers = new Headers(headers);
        for (const name of BODY_HEADERS) headers.delete(name);
      }
      url = next;
    }
  }

  function resolve(
    target: Target,
    method: string,
    params: Record<string, ParamValue | null | undefined> | undefined,
    query: RequestOptions["query"],
  ): URL {
    let path: string;
    if (
      !(target instanceof Route) && !(target instanceof URL) &&
      typeof target === "object" && target !== null
    ) target = routeFor(target, method);
    if (target instanceof Route) {
      path = (target.href as (
        p?: Record<string, ParamValue | null | undefined>,
      ) => string)(params);
    } else path = String(target);
    const url = new URL(path, origin);
    const search = searchOf(query);
    if (search !== "") {
      url.search = url.search === ""
        ? search
        : url.search + "&" + search.slice(1);
    }
    return url;
  }

  function headersFor(given: HeadersInit | undefined, type?: string): Headers {
    const headers = new Headers(shared);
    if (type !== undefined) headers.set("content-type", type);
    for (const [name, value] of new Headers(given)) headers.set(name, value);
    return headers;
  }

  type AnyOptions = RequestOptions & BodyOptions & {
    params?: Record<string, ParamValue | null | undefined>;
  };

  function call(method: string, bodied: boolean) {
    // async: a bad target or body rejects, as every other failure does.
    return async (
      target: Target,
      options: AnyOptions = {},
    ): Promise<Response> => {
      const url = resolve(target, method, options.params, options.query);
      const { body, type } = bodied
        ? bodyOf(options)
        : { body: undefined, type: undefined };
      return await send(
        url,
        method,
        headersFor(options.headers, type),
        body,
        options.redirect ?? defaultRedirect,
        options.signal,
      );
    };
  }

  async function htmlCall(
    target: Target,
    options: AnyOptions = {},
  ): Promise<string> {
    const url = resolve(target, "GET", options.params, options.query);
    const headers = headersFor(options.headers);
    if (!headers.has("accept")) {
      headers.set("accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8");
    }
    const response = await send(
      url,
      "GET",
      headers,
      undefined,
      options.redirect ?? "follow",
      options.signal,
    );
    const type = response.headers.get("content-type") ?? "";
    const text = await response.text();
    if (!/^\s*(?:text\/html|application\/xhtml\+xml)\b/i.test(type)) {
      throw new TypeError(
        `GET ${url.pathname}${url.search} answered ${response.status} with ${
          type === "" ? "no Content-Type" : `Content-Type ${type}`
        }, not HTML: ${JSON.stringify(text.slice(0, 80))}`,
      );
    }
    return text;
  }

  function fetchCall(
    input: string | URL | Request,
    init: RequestInit & { redirect?: "follow" | "manual" } = {},
  ): Promise<Response> {
    if (input instanceof Request) {
      const url = new URL(input.url);
      return send(
        url,
        input.method,
        headersFor(input.headers),
        input.body,
        init.redirect ?? defaultRedirect,
        input.signal,
      );
    }
    const url = new URL(String(input), origin);
    return send(
      url,
      (init.method ?? "GET").toUpperCase(),
      headersFor(init.headers),
      init.body,
      init.redirect ?? defaultRedirect,
      init.signal ?? undefined,
    );
  }

  return {
    origin,
    cookies: jar,
    get: call("GET", false) as Call<"GET">,
    head: call("HEAD", false) as Call<"HEAD">,
    delete: call("DELETE", false) as Call<"DELETE">,
    post: call("POST", true) as BodyCall<"POST">,
    put: call("PUT", true) as BodyCall<"PUT">,
    patch: call("PATCH", true) as BodyCall<"PATCH">,
    html: htmlCall as TextCall,
    fetch: fetchCall,
  };
}

/** The one route of a group for `method` (or `ANY`). */
function routeFor(group: RouteMap, method: string): Route {
  const found = Object.entries(group).filter(([, entry]) =>
    entry instanceof Route &&
    (entry.method === method || entry.method === "ANY")
  ) as [string, Route][];
  if (found.length !== 1) {
    const names = Object.keys(group).join(", ");
    throw new TypeError(
      found.length === 0
        ? `No route for ${method} in the group of routes given (${names}): give the route itself`
        : `${found.length} routes for ${method} in the group given (${
          found.map(([name]) => name).join(", ")
        }): give the route itself`,
    );
  }
  return found[0][1];
}

/** Sets what `fetch` would: the URL that answered and whether redirects led there. */
function markUrl(response: Response, url: URL, redirected: boolean): Response {
  // Own properties shadow the read-only getters of Response.prototype.
  Object.defineProperty(response, "url", {
    value: url.href,
    configurable: true,
  });
  Object.defineProperty(response, "redirected", {
    value: redirected,
    configurable: true,
  });
  return response;
}
