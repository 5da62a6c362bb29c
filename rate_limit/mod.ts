/**
 * Rate limiting as middleware: `rateLimit({ limit, windowMs })` answers
 * `429 Too Many Requests` once a client is over its budget, with the
 * IETF `RateLimit-Policy` and `RateLimit` headers
 * (draft-ietf-httpapi-ratelimit-headers) on every counted response.
 *
 * Two algorithms, chosen with the `algorithm` option:
 *
 * **`"gcra"` (the default)**, the generic cell rate algorithm (a token
 * bucket kept as one timestamp per key): `limit` requests may come back
 * to back, then one every `windowMs / limit`. For request rates (an API,
 * a page, a client address). Chosen over the alternatives because:
 *
 * - a fixed window lets a client send `2 × limit` within moments across a
 *   window boundary, and sends every refused client back at the same
 *   instant when the window turns; GCRA has no boundary;
 * - a sliding log keeps one entry per request; GCRA keeps one number per
 *   key, so a store needs one atomic read-modify-write (one Lua call on
 *   Redis, one compare-and-set on Deno KV) and counts exactly under
 *   concurrency;
 * - `Retry-After` says exactly when the next request will pass, and a
 *   refused request is not counted, so hammering does not extend a ban.
 *
 * Over any stretch of `windowMs`, a client gets at most `limit` at once
 * and at most `2 × limit − 1` in all (a burst, then the steady rate), the
 * same bound as a fixed window, but never more than `limit` in a row.
 *
 * **`"lockout"`**: a count per key, forgotten `windowMs` after the last
 * counted request. Once it reaches `limit`, every request is refused
 * until then; a refused request is not counted and does not move the
 * window, so nobody can keep a key locked longer than one window after
 * its last counted request. For failed logins and other guesses (5 per
 * account per 15 minutes): within any `windowMs` after the limit is
 * reached a guesser gets nothing more, where GCRA would hand back one
 * attempt every `windowMs / limit`. The price: a client that keeps
 * coming back just before the window ends keeps its count (each counted
 * request starts the window again), and the whole limit returns at once.
 * Clear a key on success with `reset(key)`.
 *
 * Both keep one small value per key, updated atomically in every store,
 * and give the same headers: `r` is what may still pass, `t` the seconds
 * until the full limit is back (for a lockout, until the count is
 * forgotten).
 *
 * Stores: {@linkcode createMemoryRateLimitStore} (one process, the
 * default, at most 100,000 keys), {@linkcode createKvRateLimitStore}
 * (Deno KV) and {@linkcode createRedisRateLimitStore} (Redis). Servers
 * sharing a KV database or a Redis share each key's budget exactly. A
 * store that is down or slower than its `timeout` (5 s) answers `503` with
 * `Retry-After`, or lets requests pass uncounted with `failOpen: true`.
 *
 * To count only some outcomes (failed logins, say), give `countResponse`:
 * every request takes its unit before the handler runs, so concurrent
 * requests cannot overshoot the limit, and those whose answer does not
 * count give it back afterwards (see {@linkcode RateLimitOptions}).
 *
 * @example Per client address, and per email on the login form
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { formData } from "@fetchkit/toolkit/form-data-middleware";
 * import {
 *   createMemoryRateLimitStore,
 *   rateLimit,
 * } from "@fetchkit/toolkit/rate-limit-middleware";
 *
 * const store = createMemoryRateLimitStore(); // or the KV or Redis store
 * const perAddress = rateLimit({ name: "address", limit: 20, windowMs: 60_000, store });
 * const perEmail = rateLimit({
 *   name: "email",
 *   algorithm: "lockout",
 *   limit: 5,
 *   windowMs: 15 * 60_000,
 *   store,
 *   key: ({ get }) => String(get(FormData).get("email") ?? "").toLowerCase() || undefined,
 * });
 * const router = createRouter({ middleware: [formData()] });
 * router.post("/login", perAddress, perEmail, async ({ get }) => {
 *   const email = String(get(FormData).get("email")).toLowerCase();
 *   // ...check the password; on success, forget the failures:
 *   await perEmail.reset(email);
 *   return new Response("welcome");
 * });
 * ```
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";
import type { Middleware } from "../router/types.ts";
import { formatIp, isIpv4, parseIp } from "../router/ip_address.ts";
import { NativeResponse } from "../response/native.ts";
import { editHeaders } from "../response/edit_headers.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { toBase64Url } from "../runtime/base64.ts";
import { createMemoryRateLimitStore } from "./memory_store.ts";
import { StoreUnavailableError, toStoreError } from "../store/errors.ts";
import type {
  RateLimitAlgorithm,
  RateLimitPolicy,
  RateLimitResult,
  RateLimitStore,
} from "./store.ts";

export type {
  RateLimitAlgorithm,
  RateLimitPolicy,
  RateLimitResult,
  RateLimitStore,
} from "./store.ts";
export {
  createMemoryRateLimitStore,
  type MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
} from "./memory_store.ts";
export {
  createKvRateLimitStore,
  type KvRateLimitStoreOptions,
  type RateLimitKv,
  type RateLimitKvAtomic,
  type RateLimitKvKeyPart,
} from "./kv_store.ts";
export {
  createRedisRateLimitStore,
  type RedisEvalOptions,
  type RedisRateLimitClient,
  type RedisRateLimitStoreOptions,
} from "./redis_store.ts";

/** Options of {@linkcode rateLimit}. */
export interface RateLimitOptions {
  /**
   * Requests allowed back to back; with GCRA also per `windowMs` on
   * average, with a lockout the count at which requests are refused.
   */
  limit: number;
  /**
   * The window in milliseconds: with a lockout, how long after the last
   * counted request the count is forgotten.
   */
  windowMs: number;
  /**
   * How requests are counted (see the module docs): `"gcra"`, a token
   * bucket, for request rates; `"lockout"`, `limit` per key then nothing
   * until `windowMs` after the last counted one, for login attempts and
   * other guesses.
   *
   * @default {"gcra"}
   */
  algorithm?: RateLimitAlgorithm;
  /**
   * What to count under. Default: the client address
   * (`context.remoteAddr`; an IPv6 client by its `/64` network, see
   * `ipv6Subnet`). A request whose key is `undefined` is not counted and
   * gets no RateLimit headers. A key longer than 256 characters (say, an
   * email a client padded) is stored as its SHA-256, so an entry never
   * grows with what a client sends, and fits Deno KV's 2 KiB keys.
   */
  key?: (
    context: RequestContext,
  ) => string | undefined | Promise<string | undefined>;
  /**
   * Where counts live. Default: a memory store of this limiter's own
   * (at most 100,000 keys; see {@linkcode createMemoryRateLimitStore}).
   */
  store?: RateLimitStore;
  /**
   * The policy's name, in the headers and in the store's keys: letters,
   * digits, `_`, `.` and `-`. Limiters on one store with the same name
   * share their counts (and must have the same `limit`, `windowMs` and
   * `algorithm`);
   * give each limiter its own name.
   *
   * @default {"default"}
   */
  name?: string;
  /**
   * Send `RateLimit-Policy` and `RateLimit` on counted responses.
   *
   * @default {true}
   */
  headers?: boolean;
  /**
   * The prefix length an IPv6 client is counted by in the default key: one
   * subscriber usually holds a whole `/64` (or more), and could otherwise
   * take a new address per request. `128` counts single addresses.
   *
   * @default {64}
   */
  ipv6Subnet?: number;
  /**
   * Answers a refused request (the default is a plain-text `429 Too Many
   * Requests`). Return a `429` of your own, an HTML page say; the
   * `Retry-After` and RateLimit headers are added to it unless it has them.
   */
  onLimit?: (
    context: RequestContext,
    result: RateLimitResult,
  ) => Response | Promise<Response>;
  /**
   * Decides, after the handler ran, whether its request counts: `false`
   * gives the request back to the budget (say, count failed logins only:
   * `(response) => response.status !== 303`, or only errors:
   * `(response) => response.status >= 400`). Default: every request
   * counts.
   *
   * Under concurrency: every request is counted when it arrives, before
   * the handler runs, and given back once its answer is known. So at most
   * `limit` requests are ever in flight or counted at once, and concurrent
   * guesses cannot overshoot the limit; the price is that while `limit`
   * requests are in flight, one more is refused even if all of them turn
   * out not to count. The give-back is atomic in every store and never
   * lowers a count below nothing (an entry that expired or was `reset`
   * meanwhile stays empty). A handler that throws counts. The `RateLimit`
   * header of a given-back response shows one more request remaining.
   * With a lockout, the window the given-back request restarted is not
   * undone.
   */
  countResponse?: (
    response: Response,
    context: RequestContext,
  ) => boolean | Promise<boolean>;
  /**
   * What happens when the store is down or does not answer in time (its
   * `timeout`, 5 s by default): `false` refuses the request with `503
   * Service Unavailable` and `Retry-After` (a thrown
   * `StoreUnavailableError`, which the router answers), as a limiter that
   * cannot count must not let guesses through unchecked; `true` lets it
   * through uncounted, without RateLimit headers, and logs the outage
   * once until the store answers again. Failing open does not make every
   * request wait for a store that just failed: after an outage, requests
   * pass at once for the outage's `Retry-After` (5 s), then the next one
   * asks the store again. Every way a client can give up counts as an
   * outage (see `isStoreOutage()`), node-redis' own 5 s command timeout
   * included. Keep the default for logins and
   * anything guarded against guessing; `true` suits limits that only
   * protect capacity.
   *
   * A give-back (`countResponse`) that fails is logged and the response
   * served: the request then stays counted.
   *
   * @default {false}
   */
  failOpen?: boolean;
}

/** The middleware of {@linkcode rateLimit}, with a way to forget a key. */
export type RateLimitMiddleware = Middleware & {
  /** Forgets `key`'s count (say, after a successful login). */
  reset(key: string): Promise<void>;
};

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** Longest key stored as it is. */
const MAX_KEY_LENGTH = 256;
const encoder = new TextEncoder();

/**
 * The key as stored: itself, or `#` and its SHA-256 when it is long (or
 * starts with `#`, so that no short key can name a hashed one).
 */
function storedKey(key: string): string {
  return key.length <= MAX_KEY_LENGTH && key.charCodeAt(0) !== 35 /* # */
    ? key
    : "#" + toBase64Url(sha256(encoder.encode(key)));
}
// Which policy each name has on each store: one name, one policy.
const policiesByStore = new WeakMap<RateLimitStore, Map<string, string>>();

function tooManyRequests(): Response {
  return new NativeResponse("Too Many Requests", {
    status: 429,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

/** The default key: the client address, an IPv6 one by its network. */
function addressKey(
  subnet: number,
): (context: RequestContext) => string | undefined {
  return (context) => {
    const hostname = context.remoteAddr?.hostname;
    if (hostname === undefined || !hostname.includes(":")) return hostname;
    const groups = parseIp(hostname);
    if (groups === undefined) return hostname;
    if (isIpv4(groups) || subnet >= 128) return formatIp(groups);
    let bits = subnet;
    for (let i = 0; i < 8; i++, bits -= 16) {
      groups[i] &= bits >= 16 ? 0xffff : bits <= 0 ? 0 : 0xffff << (16 - bits);
    }
    return `${formatIp(groups)}/${subnet}`;
  };
}

/**
 * Creates rate-limiting middleware: each request is counted under its key
 * (by default the client address), and past `limit` it is answered `429`
 * with `Retry-After` (whole seconds, rounded up) instead of running the
 * handler. See the module docs for the two algorithms.
 *
 * Every counted response carries, in the form of the current IETF draft:
 *
 * - `RateLimit-Policy: "<name>";q=<limit>;w=<window in seconds>`
 * - `RateLimit: "<name>";r=<remaining>;t=<seconds until the full limit is back>`
 *
 * Several limiters on one response append their items to both headers.
 *
 * The default key needs the client address: serve with
 * `Deno.serve(router.fetch)` (which passes it), or `router.fetch(request,
 * info)`; behind a proxy, set the router's `trustProxy`, or every client
 * counts as the proxy. Without an address, requests are not counted, and
 * a warning is logged once.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { rateLimit } from "@fetchkit/toolkit/rate-limit-middleware";
 *
 * const router = createRouter({
 *   middleware: [rateLimit({ limit: 2, windowMs: 60_000 })],
 * });
 * router.get("/", () => new Response("hello"));
 * const info = {
 *   remoteAddr: { hostname: "192.0.2.1", port: 1234, transport: "tcp" },
 * };
 * const request = () => router.fetch(new Request("http://localhost/"), info);
 * (await request()).headers.get("RateLimit"); // '"default";r=1;t=30'
 * await request();
 * const refused = await request();
 * refused.status; // 429
 * refused.headers.get("Retry-After"); // "30"
 * ```
 *
 * @example An HTML page for refused requests
 * ```ts
 * import { rateLimit } from "@fetchkit/toolkit/rate-limit-middleware";
 * import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
 * import { html } from "@fetchkit/toolkit/html-template";
 *
 * const limiter = rateLimit({
 *   limit: 10,
 *   windowMs: 60_000,
 *   onLimit: (_context, { retryAfterMs }) =>
 *     createHtmlResponse(
 *       html`<h1>Slow down</h1><p>Try again in ${Math.ceil(retryAfterMs / 1000)} s.</p>`,
 *       { status: 429 },
 *     ),
 * });
 * ```
 *
 * @example A lockout: five failed logins per email, then none for 15 minutes
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { rateLimit } from "@fetchkit/toolkit/rate-limit-middleware";
 *
 * const perEmail = rateLimit({
 *   name: "login-email",
 *   algorithm: "lockout",
 *   limit: 5,
 *   windowMs: 15 * 60_000,
 *   key: ({ url }) => url.searchParams.get("email")?.toLowerCase(),
 * });
 * const router = createRouter();
 * router.post("/login", perEmail, () => new Response("wrong password"));
 * const attempt = () =>
 *   router.fetch(
 *     new Request("http://localhost/login?email=ada@example.com", {
 *       method: "POST",
 *     }),
 *   );
 * for (let i = 0; i < 5; i++) await attempt();
 * const refused = await attempt();
 * refused.status; // 429
 * refused.headers.get("Retry-After"); // "900"
 * await perEmail.reset("ada@example.com"); // after a successful login
 * ```
 *
 * @example Count failed logins only, per client address
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { rateLimit } from "@fetchkit/toolkit/rate-limit-middleware";
 *
 * const failures = rateLimit({
 *   name: "login-failures",
 *   limit: 2,
 *   windowMs: 60 * 60_000,
 *   // A login answered 204 succeeded: it is given back.
 *   countResponse: (response) => response.status !== 204,
 * });
 * const router = createRouter();
 * router.post("/login", failures, ({ url }) =>
 *   new Response(null, {
 *     status: url.searchParams.get("password") === "right" ? 204 : 401,
 *   }));
 * const info = {
 *   remoteAddr: { hostname: "192.0.2.1", port: 1234, transport: "tcp" },
 * };
 * const login = (password: string) =>
 *   router.fetch(
 *     new Request(`http://localhost/login?password=${password}`, { method: "POST" }),
 *     info,
 *   );
 * for (let i = 0; i < 10; i++) await login("right"); // all 204: none counted
 * await login("wrong");
 * await login("wrong");
 * (await login("wrong")).status; // 429
 * ```
 *
 * @param options Limit, window, algorithm, key, store, name, headers, the
 * 429 hook, which outcomes count, and what to do when the store is down.
 * @returns The middleware, with `reset(key)`.
 * @throws {TypeError} When `limit` is not a whole number ≥ 1, `windowMs`
 * not a positive number, `algorithm` not `"gcra"` or `"lockout"`, `name`
 * not of letters, digits, `_`, `.`, `-`, the name is already used on the
 * store with another policy, or `countResponse` is not a function or its
 * store has no `giveBack`.
 */
export function rateLimit(options: RateLimitOptions): RateLimitMiddleware {
  const limiter = createLimiter(options ?? ({} as RateLimitOptions));
  const { store, policy, prefix, keyOf, onLimit, countResponse } = limiter;
  // One async function, and no promise from the store or the key when
  // they answer synchronously (the memory store and the default key do).
  const middleware: Middleware = async (context, next) => {
    let key = keyOf(context);
    if (key !== undefined && typeof key !== "string") key = await key;
    if (key === undefined) {
      if (!limiter.warned) warnNoKey(limiter);
      return;
    }
    // Failing open after an outage: pass at once, without waiting for a
    // store that just failed (each call would hold the request up to the
    // store's timeout), until the outage's Retry-After has passed.
    if (limiter.openUntil !== 0) {
      if (performance.now() < limiter.openUntil) return;
      limiter.openUntil = 0;
    }
    const stored = prefix + storedKey(key);
    let result: RateLimitResult | Promise<RateLimitResult>;
    try {
      result = store.hit(stored, policy);
      if (typeof (result as PromiseLike<unknown>).then === "function") {
        result = await result;
      }
    } catch (error) {
      storeFailed(limiter, error);
      return; // failing open: the request passes uncounted
    }
    limiter.outageLogged = false;
    if (!(result as RateLimitResult).allowed) {
      const refused = onLimit === undefined
        ? tooManyRequests()
        : await onLimit(context, result as RateLimitResult);
      return decorate(limiter, refused, result as RateLimitResult, true);
    }
    const response = await next();
    if (
      countResponse !== undefined && !await countResponse(response, context)
    ) {
      await store.giveBack!(stored, policy);
      const counted = result as RateLimitResult;
      result = {
        ...counted,
        remaining: Math.min(counted.limit, counted.remaining + 1),
      };
    }
    return decorate(limiter, response, result as RateLimitResult, false);
  };
  return Object.assign(middleware, {
    reset: async (key: string): Promise<void> => {
      await store.reset(prefix + storedKey(key));
    },
  });
}

/** One `rateLimit()` middleware's checked options and its running state. */
interface Limiter {
  readonly name: string;
  readonly store: RateLimitStore;
  readonly policy: RateLimitPolicy;
  /** `name:`, before every key in the store. */
  readonly prefix: string;
  readonly keyOf: NonNullable<RateLimitOptions["key"]>;
  readonly headers: boolean;
  /** The `RateLimit-Policy` value, and the start of each `RateLimit` item. */
  readonly policyHeader: string;
  readonly itemStart: string;
  readonly onLimit: RateLimitOptions["onLimit"];
  readonly countResponse: RateLimitOptions["countResponse"];
  readonly failOpen: boolean;
  /** Whether the missing client address was already warned about. */
  warned: boolean;
  /** Whether the current store outage was already logged. */
  outageLogged: boolean;
  /**
   * With `failOpen`, after an outage: `performance.now()` until which
   * requests pass without asking the store; `0` when the store is asked.
   */
  openUntil: number;
}

/** Checks `options` and claims the limiter's name on its store. */
function createLimiter(options: RateLimitOptions): Limiter {
  const {
    limit,
    windowMs,
    algorithm = "gcra",
    name = "default",
    headers = true,
    ipv6Subnet = 64,
    onLimit,
    countResponse,
    failOpen = false,
  } = options;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(
      `rateLimit(): limit must be a whole number >= 1, got ${limit}`,
    );
  }
  if (typeof windowMs !== "number" || !(windowMs > 0) || !isFinite(windowMs)) {
    throw new TypeError(
      `rateLimit(): windowMs must be a positive number of milliseconds, got ${windowMs}`,
    );
  }
  if (algorithm !== "gcra" && algorithm !== "lockout") {
    throw new TypeError(
      `rateLimit(): algorithm must be "gcra" or "lockout", got ${
        JSON.stringify(algorithm)
      }`,
    );
  }
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new TypeError(
      `rateLimit(): name must be 1-64 letters, digits, "_", "." or "-", got ${
        JSON.stringify(name)
      }`,
    );
  }
  if (!Number.isSafeInteger(ipv6Subnet) || ipv6Subnet < 1 || ipv6Subnet > 128) {
    throw new TypeError(
      `rateLimit(): ipv6Subnet must be a whole number from 1 to 128, got ${ipv6Subnet}`,
    );
  }
  if (countResponse !== undefined && typeof countResponse !== "function") {
    throw new TypeError(
      `rateLimit(): countResponse must be a function (response, context) => boolean, got ${typeof countResponse}`,
    );
  }
  const store = options.store ?? createMemoryRateLimitStore();
  if (countResponse !== undefined && typeof store.giveBack !== "function") {
    throw new TypeError(
      "rateLimit(): countResponse needs a store with giveBack(key, policy); this store has none",
    );
  }
  const policy: RateLimitPolicy = { limit, windowMs, algorithm };
  claimName(store, name, policy);
  return {
    name,
    store,
    policy,
    prefix: name + ":",
    keyOf: options.key ?? addressKey(ipv6Subnet),
    headers,
    policyHeader: `"${name}";q=${limit};w=${Math.ceil(windowMs / 1000)}`,
    itemStart: `"${name}";r=`,
    onLimit,
    countResponse,
    failOpen,
    warned: options.key !== undefined,
    outageLogged: false,
    openUntil: 0,
  };
}

/**
 * Records that `name` counts under `policy` on `store`; two limiters with
 * one name and different policies would share counters and corrupt both.
 */
function claimName(
  store: RateLimitStore,
  name: string,
  { limit, windowMs, algorithm }: RateLimitPolicy,
): void {
  const policyText = `${limit}/${windowMs}` +
    (algorithm === "gcra" ? "" : ` (${algorithm})`);
  let names = policiesByStore.get(store);
  if (names === undefined) policiesByStore.set(store, names = new Map());
  const existing = names.get(name);
  if (existing !== undefined && existing !== policyText) {
    throw new TypeError(
      `rateLimit(): the name "${name}" is already used on this store with limit/windowMs ${existing}; give this limiter (${policyText}) its own name`,
    );
  }
  names.set(name, policyText);
}

/** A store failure: rethrown, as a 503 for an outage, unless failing open. */
function storeFailed(limiter: Limiter, error: unknown): void {
  const failure = toStoreError(error, "rate limit store");
  if (!limiter.failOpen || !(failure instanceof StoreUnavailableError)) {
    throw failure;
  }
  limiter.openUntil = performance.now() + failure.retryAfterSeconds * 1000;
  if (!limiter.outageLogged) {
    limiter.outageLogged = true;
    console.error(
      `rateLimit(): the store of "${limiter.name}" is unavailable; requests pass uncounted (failOpen) until it answers:`,
      error,
    );
  }
}

function applyHeaders(
  limiter: Limiter,
  target: Headers,
  { result, refused }: { result: RateLimitResult; refused: boolean },
): void {
  if (limiter.headers) {
    target.append("RateLimit-Policy", limiter.policyHeader);
    target.append(
      "RateLimit",
      limiter.itemStart + result.remaining + ";t=" +
        Math.ceil(result.resetMs / 1000),
    );
  }
  if (refused && !target.has("Retry-After")) {
    target.set(
      "Retry-After",
      String(Math.max(1, Math.ceil(result.retryAfterMs / 1000))),
    );
  }
}

/** Adds the RateLimit headers (and Retry-After when refused). */
function decorate(
  limiter: Limiter,
  response: Response,
  result: RateLimitResult,
  refused: boolean,
): Response {
  if (!limiter.headers && !refused) return response;
  return editHeaders(
    response,
    (headers, outcome) => applyHeaders(limiter, headers, outcome),
    { result, refused },
  );
}

function warnNoKey(limiter: Limiter): void {
  limiter.warned = true;
  console.warn(
    "rateLimit(): a request without a client address was not counted; serve with Deno.serve(router.fetch) or pass its info to router.fetch(request, info)",
  );
}
