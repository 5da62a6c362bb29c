/**
 * A shared response cache as middleware: `cache({ store })` keeps `200`
 * answers to `GET` in memory, Deno KV or Redis, serves them to later
 * requests with `Age` and `X-Cache: HIT`, and lets one request regenerate
 * an expired entry while the others wait for it or get the stale copy, on
 * one server or across every server sharing the store.
 *
 * What is stored follows the response's `Cache-Control` as a shared cache
 * must (RFC 9111):
 *
 * - never stored: `no-store`, `private` or `no-cache` responses, responses
 *   with `Set-Cookie`, `Vary: *`, statuses other than `200`, answers to
 *   requests with `Authorization`, `Range` or `Upgrade`, `text/event-stream`, and
 *   bodies over `maxBodyBytes`;
 * - how long: `s-maxage`, else `max-age`, else the `ttl` option (`0` or
 *   less: not stored); then `stale-while-revalidate` (the directive, else
 *   the option) seconds more as a stale copy;
 * - the key: the method (`HEAD` reads what `GET` stored), the URL (or the
 *   `key` option) and the request headers named by the `vary` option and by
 *   each response's own `Vary`.
 *
 * A hit on the memory store is answered in the same call (no promise), its
 * headers given to `Response` as a record made once per entry and second
 * of `Age`, and a text body (a text `Content-Type`, no `Content-Encoding`,
 * valid UTF-8) as a string decoded once per entry: the cheapest body on
 * every runtime, sent as exactly the stored bytes. Such an entry holds its
 * body twice (bytes and string), and the store's `maxBytes` counts both.
 * When `cache()` is the first middleware a request meets (the route's
 * first, and no router middleware) and has no `key` option, the router
 * asks it for a fresh memory hit before it builds the request's context
 * and chain; anything else (a miss, a stale entry, a refused header) goes
 * through the middleware as usual, so middleware placed before `cache()`
 * runs on every request, hits included.
 *
 * **Personalised pages are never stored.** A page with no `Vary` naming
 * what personalises it is the classic cache-poisoning case: the first
 * visitor's page served to everyone. So an answer built after a credential
 * was read for the request is not stored, unless its `Cache-Control` says
 * `public`: the session (`session()` marks the request once the handler
 * reads or writes it), a JWT (`jwt()`, from `Authorization` or a cookie),
 * a bearer token (`bearerAuth()`), Basic credentials (`basicAuth()`). This
 * holds whichever side of `cache()` those middleware sit, and with
 * `etag()` or `compress()` between them. A handler that reads a cookie of
 * its own should say `Cache-Control: private`.
 *
 * The request's own `Cache-Control` (`no-cache`, `max-age=0`) is ignored:
 * any client could otherwise make every request regenerate and so undo
 * the stampede protection.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { cache, createMemoryCacheStore } from "@fetchkit/toolkit/cache-middleware";
 *
 * const store = createMemoryCacheStore({ maxBytes: 32 * 1024 * 1024 });
 * const router = createRouter();
 * let built = 0;
 * router.get("/report", cache({ store, ttl: 60 }), () => {
 *   built++;
 *   return new Response(`report #${built}`);
 * });
 * const first = await router.fetch(new Request("http://localhost/report"));
 * const second = await router.fetch(new Request("http://localhost/report"));
 * console.log(first.headers.get("X-Cache"), second.headers.get("X-Cache")); // MISS HIT
 * console.log(await second.text()); // "report #1"
 * ```
 *
 * @module
 */

import { atLeast } from "../store/options.ts";
import { type RequestContext, requestHeaders } from "../router/context.ts";
import type { Middleware, Next } from "../router/types.ts";
import { NativeResponse } from "../response/native.ts";
import {
  decodeRecord,
  encodeRecord,
  keptHeaders,
  readBodyUpTo,
} from "../store/response_record.ts";
import type { CacheStore, VersionedValue } from "./stores.ts";
import { PEEK, type PeekedValue, StoreFullError } from "./memory_store.ts";
import { rememberText } from "../response/body_size.ts";
import { StoreUnavailableError } from "../store/errors.ts";
import { credentialRead } from "./credential.ts";
import { offerEarlyAnswer } from "../router/early_answer.ts";

export {
  type CacheSetOptions,
  type CacheStore,
  createKvCacheStore,
  createMemoryCacheStore,
  createRedisCacheStore,
  KV_MAX_VALUE_BYTES,
  type KvCacheStoreOptions,
  type KvKeyPart,
  type MemoryCacheStoreOptions,
  type RedisCacheStoreOptions,
  StoreFullError,
  type VersionedKv,
  type VersionedKvAtomic,
  type VersionedRedisClient,
  type VersionedRedisEvalOptions,
  type VersionedSetOptions,
  type VersionedStore,
  type VersionedValue,
} from "./stores.ts";

/** Options of {@linkcode cache}. */
export interface CacheOptions {
  /** Where responses are kept: a memory, Deno KV or Redis cache store. */
  store: CacheStore;
  /**
   * Seconds a response without `s-maxage` or `max-age` stays fresh; `0`
   * stores only responses that say how long themselves.
   *
   * @default {60}
   */
  ttl?: number;
  /**
   * What identifies the resource. Default: the request URL as the
   * request gives it (`context.request.url`: serialized, query included,
   * the same text as `context.url.href`). Return something narrower to
   * share entries, say the path without tracking parameters.
   */
  key?: (context: RequestContext) => string;
  /**
   * Request headers that select a variant of every response here, known
   * in advance (`["Accept-Language"]`). Headers a response names in its own
   * `Vary` are also honoured, at the cost of a second store read.
   */
  vary?: readonly string[];
  /**
   * Seconds a stale entry may still be served (`X-Cache: STALE`) while one
   * request regenerates it in the background. A response's own
   * `stale-while-revalidate` directive takes precedence.
   *
   * @default {0}
   */
  staleWhileRevalidate?: number;
  /**
   * The most milliseconds a request waits for another one (in this process
   * or another) to regenerate an entry; then it runs the handler itself.
   * Also how long the cross-process regeneration lock lives.
   *
   * @default {5000}
   */
  lockTimeout?: number;
  /**
   * The largest body stored, in bytes (larger ones pass through, with
   * `X-Cache: MISS`). At most what the store takes in one entry.
   *
   * @default {1048576} (1 MiB)
   */
  maxBodyBytes?: number;
}

/** A stored response, decoded. */
interface Entry {
  /** Status. */
  s: number;
  /** Headers. */
  h: [string, string][];
  /** When it was stored (ms since the epoch). */
  t: number;
  /** Fresh until (ms). */
  f: number;
  /** Servable stale until (ms). */
  x: number;
  /** `Age` it came with (s). */
  a: number;
  body: Uint8Array;
  /** What answers are built from, made at the first answer. */
  [PARTS]?: Parts;
}

/**
 * What every answer from one entry shares, built once: the headers as a
 * record (a record, not a `Headers`, is the cheapest init on every
 * runtime, and Deno keeps its fast serving path for it), the body as a
 * string where it is text, and the last inits made (only `Age` changes,
 * once a second).
 */
interface Parts {
  headers: Record<string, string>;
  /** The body as a string, `null` if it is not text or not UTF-8. */
  text: string | null | undefined;
  /**
   * The `Age` the inits below were made for, and the clock's window
   * (`from` ≤ now < `until`, ms) in which it is the age: one comparison
   * a hit instead of the arithmetic.
   */
  age: number;
  from: number;
  until: number;
  hit: ResponseInit | undefined;
  stale: ResponseInit | undefined;
  /**
   * Deno: a text `HIT` answer of this age built once, never sent itself;
   * each hit sends a clone (its header list copied, the string shared),
   * which Deno builds and serves for less than a `Response` whose init
   * has headers (router/_answers.ts: the 404, 34.7k instructions against
   * 20.7k over HTTP).
   */
  template: Response | undefined;
}

const PARTS: unique symbol = Symbol("parts");

/** What a response's `Vary` adds to the key, stored under the bare key. */
interface VaryIndex {
  /** The header names (lower case). */
  v: string[];
  /** Kept until (ms). */
  x: number;
}

type Stored = Entry | VaryIndex;

const CACHE_CONTROL_DIRECTIVE = /(?:^|,)\s*([A-Za-z-]+)\s*(?:=\s*"?(\d+)"?)?/g;

/** The `Cache-Control` directives, lower case, numbers where given. */
function directivesOf(value: string | null): Map<string, number | undefined> {
  const directives = new Map<string, number | undefined>();
  if (value === null) return directives;
  for (const match of value.matchAll(CACHE_CONTROL_DIRECTIVE)) {
    directives.set(
      match[1].toLowerCase(),
      match[2] === undefined ? undefined : Number(match[2]),
    );
  }
  return directives;
}

/** Lower-case header names from a `Vary` value, or `"*"`. */
function varyNames(value: string | null): string[] | "*" {
  if (value === null) return [];
  const names: string[] = [];
  for (const part of value.split(",")) {
    const name = part.trim().toLowerCase();
    if (name === "*") return "*";
    if (name !== "" && !names.includes(name)) names.push(name);
  }
  return names;
}

/** The part of a key that names request header values. */
function variantOf(names: readonly string[], headers: Headers): string {
  let part = "";
  for (const name of names) part += `\n${name}:${headers.get(name) ?? ""}`;
  return part;
}

function isEntry(stored: Stored): stored is Entry {
  return (stored as Entry).s !== undefined;
}

/** The description stored beside the body: the entry less what is made here. */
function metaOf(entry: Entry): Omit<Entry, "body"> {
  return {
    s: entry.s,
    h: entry.h,
    t: entry.t,
    f: entry.f,
    x: entry.x,
    a: entry.a,
  };
}

/** Types whose bodies are text, so sent as a string when valid UTF-8. */
const TEXT_TYPE =
  /^(?:text\/|application\/(?:json|javascript|ecmascript|xml|x-www-form-urlencoded)\b|[a-z]+\/[^;\s]*\+(?:json|xml)\b)/i;

// Fatal: bytes that are not UTF-8 stay bytes. ignoreBOM: a leading BOM is
// kept in the string, so the string encodes to exactly the stored bytes.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The parts of `entry`'s answers. `text`: whether to make the body's
 * string (entries the store hands out again, memory): only for a text
 * `Content-Type` without a `Content-Encoding` (a string body would get
 * `text/plain` where none was stored, and compressed bytes are no text).
 */
function partsOf(entry: Entry, text: boolean): Parts {
  let parts = entry[PARTS];
  if (parts === undefined) {
    const headers: Record<string, string> = {};
    for (const [name, value] of entry.h) {
      // Names come lower case and once each from a Headers; joined anyway.
      const had = headers[name];
      headers[name] = had === undefined ? value : `${had}, ${value}`;
    }
    parts = entry[PARTS] = {
      headers,
      text: undefined,
      age: -1,
      from: 0,
      until: 0,
      hit: undefined,
      stale: undefined,
      template: undefined,
    };
  }
  if (text && parts.text === undefined) {
    parts.text = null;
    const type = parts.headers["content-type"];
    const encoding = parts.headers["content-encoding"];
    if (isText(type, encoding)) {
      try {
        parts.text = utf8.decode(entry.body);
      } catch {
        // Not UTF-8: answered with the bytes.
      }
    }
  }
  return parts;
}

/** Whether a body of this type and encoding is sent as text. */
function isText(
  type: string | null | undefined,
  encoding: string | null | undefined,
): boolean {
  return typeof type === "string" && TEXT_TYPE.test(type) &&
    (typeof encoding !== "string" || encoding.toLowerCase() === "identity");
}

// Bun copies a `Headers` given in a Response's init for less than it reads
// a record (router/_answers.ts: about 1,600 instructions a 404); the copy
// is the response's own, so one `Headers` serves every hit of an age. Bun
// only: Node's adapters keep the given `Headers` as the response's.
const HEADERS_OBJECT = typeof (globalThis as { Bun?: unknown }).Bun !==
  "undefined";

const DENO = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined" &&
  !HEADERS_OBJECT;

/**
 * Makes `parts` answer for `now`: when `now` is outside the second its
 * inits were made for, the `Age` of `now` and that second's window, and
 * the inits and template of the age before dropped.
 */
function ageAt(entry: Entry, parts: Parts, now: number): void {
  if (now >= parts.from && now < parts.until) return;
  const elapsed = Math.max(0, Math.floor((now - entry.t) / 1000));
  parts.age = entry.a + elapsed;
  // Before `t` (a clock set back) the age stays `a` until `t + 1000`.
  parts.from = now < entry.t ? now : entry.t + elapsed * 1000;
  parts.until = entry.t + (elapsed + 1) * 1000;
  parts.hit = parts.stale = parts.template = undefined;
}

/** The init of an answer in `state`, made once per age (see `ageAt`). */
function initOf(
  entry: Entry,
  parts: Parts,
  state: "HIT" | "STALE",
): ResponseInit {
  const made = state === "HIT" ? parts.hit : parts.stale;
  if (made !== undefined) return made;
  const headers = {
    ...parts.headers,
    "age": String(parts.age),
    "x-cache": state,
  };
  const init: ResponseInit = {
    status: entry.s,
    headers: HEADERS_OBJECT ? new Headers(headers) : headers,
  };
  if (state === "HIT") parts.hit = init;
  else parts.stale = init;
  return init;
}

/**
 * A text answer: its size and text remembered for the logger, `etag()`
 * and `HEAD` without a read (a property write: on Bun a subclass per
 * entry with the text on its prototype cost about 700 instructions more
 * a response, in a loop under callgrind).
 */
function textAnswer(
  entry: Entry,
  parts: Parts,
  text: string,
  state: "HIT" | "STALE",
): Response {
  const response = DENO && state === "HIT"
    ? (parts.template ??= new NativeResponse(
      text,
      initOf(entry, parts, state),
    )).clone()
    : new NativeResponse(text, initOf(entry, parts, state));
  rememberText(response, text);
  return response;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Settles with `promise`, or with `undefined` after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const LOCK_VALUE = new Uint8Array([1]);

/**
 * Deno's `Response` copies a `Uint8Array` body when constructed, so a hit
 * can hand it the stored bytes. Elsewhere (Bun, Node's adapters' own
 * `Response` classes) a stream could hand the stored bytes to a reader that
 * changes or transfers them: give those a copy.
 */
const COPIES_BODY =
  typeof (globalThis as { Deno?: { version?: { deno?: unknown } } }).Deno
    ?.version?.deno === "string";

/**
 * Creates the cache middleware; put it on the routes (or the router)
 * whose answers may be shared between clients. See the module docs for
 * what is stored, for how long, and under which key.
 *
 * Every answer it gives says where it came from: `X-Cache: HIT` (from
 * the store, with `Age` in seconds), `MISS` (from the handler), or
 * `STALE` (an expired copy, while one request regenerates it).
 *
 * **No stampede.** When many requests miss one entry at once, one runs
 * the handler. In its process the others wait for that answer; in other
 * processes they find a lock in the store (written with compare-and-set,
 * so one process holds it) and read the store until the entry appears.
 * Nobody waits longer than `lockTimeout`: then it runs the handler itself.
 * With `staleWhileRevalidate`, an expired entry is served at once while a
 * single request regenerates it in the background.
 *
 * **Store outages.** A cache is an optimisation: when the store is down
 * (a `StoreUnavailableError`: Redis unreachable, KV closed, no answer
 * within the store's `timeout`), the request is answered by the handler,
 * uncached, and the error goes to `console.error`, rather than a `503`.
 * Other store errors reach the router. A failure to write an entry never
 * fails the request.
 *
 * @example Per language, stale copies for 30 s
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { cache, createMemoryCacheStore } from "@fetchkit/toolkit/cache-middleware";
 *
 * const router = createRouter();
 * router.get(
 *   "/news",
 *   cache({
 *     store: createMemoryCacheStore(),
 *     vary: ["Accept-Language"],
 *     staleWhileRevalidate: 30,
 *   }),
 *   ({ headers }) =>
 *     new Response(headers.get("Accept-Language")?.startsWith("fr") ? "Nouvelles" : "News", {
 *       headers: { "Cache-Control": "max-age=10", "Vary": "Accept-Language" },
 *     }),
 * );
 * const response = await router.fetch(
 *   new Request("http://localhost/news", { headers: { "Accept-Language": "fr" } }),
 * );
 * console.log(await response.text()); // "Nouvelles"
 * ```
 *
 * @param options The store, the default lifetime, the key, and the limits.
 * @returns The middleware.
 * @throws {TypeError} When `store` is missing.
 * @throws {RangeError} When a number option is negative or not finite.
 */
export function cache(options: CacheOptions): Middleware {
  const { store } = options ?? {};
  if (
    store === null || typeof store !== "object" ||
    typeof store.get !== "function" || typeof store.set !== "function"
  ) {
    throw new TypeError(
      "cache() needs `store`: createMemoryCacheStore(), createKvCacheStore() or createRedisCacheStore()",
    );
  }
  const ttlMs = atLeast("cache()", "ttl", options.ttl ?? 60, 0) * 1000;
  const staleMs = atLeast(
    "cache()",
    "staleWhileRevalidate",
    options.staleWhileRevalidate ?? 0,
    0,
  ) * 1000;
  const lockTimeout = atLeast(
    "cache()",
    "lockTimeout",
    options.lockTimeout ?? 5000,
    1,
  );
  // Room for the status, headers and times next to the body.
  const maxBodyBytes = Math.min(
    atLeast("cache()", "maxBodyBytes", options.maxBodyBytes ?? 1024 * 1024, 0),
    store.maxValueBytes - 8192,
  );
  // The default key is the request URL as the request gives it: the
  // serialized URL `context.url.href` would parse it into (a Request's
  // `url` is always serialized, and Node's adapter serializes what it
  // builds), so no parse per request.
  const keyOf = options.key ??
    ((context: RequestContext) => context.request.url);
  const vary = (options.vary ?? []).map((name) => name.toLowerCase());
  // The memory store reads synchronously: a hit there is answered in the
  // same call, with no promise.
  const peek = typeof (store as { [PEEK]?: unknown })[PEEK] === "function"
    ? (store as unknown as {
      [PEEK](key: string, now: number): PeekedValue | undefined;
    })
    : undefined;
  // Regenerations running in this process, by key.
  const running = new Map<string, Promise<Entry | undefined>>();

  // Descriptions decoded lately, by version: a KV or Redis read gives
  // new bytes each time, but an unchanged entry keeps its version. Kept
  // without their bodies, so the map holds no read's bytes.
  const byVersion = new Map<string, { meta: Stored; offset: number }>();

  function decode(read: VersionedValue | undefined): Stored | undefined {
    if (read === undefined) return undefined;
    const bytes = read.value;
    const known = byVersion.get(read.version);
    if (known !== undefined) {
      return isEntry(known.meta)
        ? { ...known.meta, body: bytes.subarray(known.offset) }
        : known.meta;
    }
    const record = decodeRecord(bytes);
    if (record === undefined || typeof record.meta !== "object") {
      return undefined;
    }
    const meta = record.meta as Stored;
    // The answer's parts made once per version, on the description every
    // later read of it copies.
    if (isEntry(meta)) partsOf(meta, false);
    byVersion.set(read.version, {
      meta,
      offset: bytes.byteLength - record.body.byteLength,
    });
    if (byVersion.size > 1000) {
      byVersion.delete(byVersion.keys().next().value!);
    }
    return isEntry(meta) ? { ...meta, body: record.body } : meta;
  }

  /**
   * A memory store's entry, decoded once per stored value (kept in the
   * store's own slot beside it, so a hit decodes nothing).
   */
  function decodeNow(read: PeekedValue | undefined): Stored | undefined {
    if (read === undefined) return undefined;
    let stored = read.memo as Stored | null | undefined;
    if (stored === undefined) {
      const record = decodeRecord(read.value);
      stored = record === undefined || typeof record.meta !== "object" ||
          record.meta === null
        ? null
        : record.meta as Stored;
      if (stored !== null && isEntry(stored)) stored.body = record!.body;
      read.memo = stored;
    }
    return stored ?? undefined;
  }

  /** The entry for a request: reads the bare key, then its variant if any. */
  async function lookup(
    primary: string,
    headers: Headers,
  ): Promise<{ key: string; entry: Entry | undefined }> {
    const stored = decode(await store.get(primary));
    if (stored === undefined || isEntry(stored)) {
      return { key: primary, entry: stored };
    }
    const key = primary + variantOf(stored.v, headers);
    const variant = decode(await store.get(key));
    return {
      key,
      entry: variant !== undefined && isEntry(variant) ? variant : undefined,
    };
  }

  /**
   * An answer from `entry`. `shared`: its body bytes are handed out again
   * (the memory store's, or one regeneration's to all its waiters), so a
   * text body goes as its string (the cheapest body on every runtime,
   * and nothing to copy) and other bytes as a copy where `Response` does
   * not copy them itself.
   */
  function answer(
    entry: Entry,
    state: "HIT" | "STALE",
    head: boolean,
    now: number,
    shared: boolean,
  ): Response {
    const parts = partsOf(entry, shared && !head);
    ageAt(entry, parts, now);
    if (head) return new NativeResponse(null, initOf(entry, parts, state));
    const text = parts.text;
    if (typeof text === "string") return textAnswer(entry, parts, text, state);
    const init = initOf(entry, parts, state);
    return new NativeResponse(
      (COPIES_BODY ? entry.body : entry.body.slice()) as BodyInit,
      init,
    );
  }

  function marked(response: Response, body?: BodyInit | null): Response {
    if (body === undefined) {
      try {
        response.headers.set("X-Cache", "MISS");
        return response;
      } catch {
        // Immutable headers (a fetch() answer): copied below. A 1xx (a
        // WebSocket upgrade) cannot be rebuilt: passed on as it is.
        if (response.status < 200) return response;
      }
    }
    const copy = new NativeResponse(
      body === undefined ? response.body : body,
      response,
    );
    copy.headers.set("X-Cache", "MISS");
    return copy;
  }

  /**
   * Stores `response` when it may be, and gives the answer to send (its
   * body read, when stored) with the entry made.
   */
  async function keep(
    response: Response,
    primary: string,
    context: RequestContext,
  ): Promise<{ response: Response; entry?: Entry }> {
    if (response.status !== 200 || response.headers.has("set-cookie")) {
      return { response: marked(response) };
    }
    const headers = context.headers;
    const directives = directivesOf(response.headers.get("cache-control"));
    if (
      directives.has("no-store") || directives.has("private") ||
      directives.has("no-cache")
    ) {
      return { response: marked(response) };
    }
    // Built from a credential (whichever side of cache() read it): one
    // visitor's page, unless the application said it is for everyone.
    const shared = directives.has("public");
    if (!shared && credentialRead(context)) {
      return { response: marked(response) };
    }
    const names = varyNames(response.headers.get("vary"));
    const type = response.headers.get("content-type") ?? "";
    if (names === "*" || type.startsWith("text/event-stream")) {
      return { response: marked(response) };
    }
    const lifetime = directives.get("s-maxage") ?? directives.get("max-age");
    const freshMs = lifetime === undefined ? ttlMs : lifetime * 1000;
    if (!(freshMs > 0)) return { response: marked(response) };
    const swr = directives.get("stale-while-revalidate");
    const body = await readBodyUpTo(response, maxBodyBytes);
    if (!body.complete) return { response: marked(response, body.body) };
    // A credential read while the body streamed counts as well.
    if (!shared && credentialRead(context)) {
      return { response: marked(response, body.bytes as BodyInit) };
    }
    const now = Date.now();
    const entry: Entry = {
      s: 200,
      h: keptHeaders(response.headers),
      t: now,
      f: now + freshMs,
      x: now + freshMs + (swr === undefined ? staleMs : swr * 1000),
      a: Math.max(0, Number(response.headers.get("age")) || 0),
      body: body.bytes,
    };
    const extra = names.filter((name) => !vary.includes(name));
    const ttl = { ttlMs: entry.x - now };
    try {
      const record = encodeRecord(metaOf(entry), body.bytes);
      // A memory entry answered as text keeps its body's string beside
      // the bytes: counted against the store's maxBytes too.
      const options = peek !== undefined &&
          isText(type, response.headers.get("content-encoding"))
        ? { ...ttl, reserveBytes: record.byteLength + body.bytes.byteLength }
        : ttl;
      if (extra.length === 0) {
        await store.set(primary, record, options);
      } else {
        const index: VaryIndex = { v: extra, x: entry.x };
        await store.set(primary, encodeRecord(index), ttl);
        await store.set(primary + variantOf(extra, headers), record, options);
      }
    } catch (error) {
      failed("store a response", error);
    }
    return { response: marked(response, body.bytes as BodyInit), entry };
  }

  let lastFullLog = 0;
  function failed(what: string, error: unknown): void {
    if (error instanceof StoreFullError) {
      // Full of entries it must keep (idempotency keys): said once a
      // minute, not once a request.
      if (Date.now() - lastFullLog < 60_000) return;
      lastFullLog = Date.now();
    }
    console.error(`cache(): the ${store.name} store failed to ${what}:`, error);
  }

  /** Waits for another process's regeneration: the entry, or `undefined`. */
  async function awaitOther(
    primary: string,
    lock: string,
    headers: Headers,
  ): Promise<Entry | undefined> {
    const deadline = Date.now() + lockTimeout;
    for (
      let delay = 5;
      Date.now() < deadline;
      delay = Math.min(50, delay * 2)
    ) {
      await sleep(Math.min(delay, deadline - Date.now()));
      const { entry } = await lookup(primary, headers);
      if (entry !== undefined && entry.f > Date.now()) return entry;
      if ((await store.get(lock)) === undefined) {
        // The lock gone: the entry was stored just before (read it once
        // more), or the other gave up or could not store.
        const { entry } = await lookup(primary, headers);
        return entry !== undefined && entry.f > Date.now() ? entry : undefined;
      }
    }
    return undefined;
  }

  /**
   * Runs the handler for `key` as the one regenerating it, unless another
   * process holds the lock (then waits for its entry, for `lockTimeout`).
   */
  async function regenerate(
    context: RequestContext,
    next: Next,
    primary: string,
    key: string,
    background: boolean,
  ): Promise<{ response?: Response; entry?: Entry }> {
    const lock = "lock\n" + key;
    let token: string | undefined;
    try {
      token = await store.set(lock, LOCK_VALUE, {
        ttlMs: lockTimeout,
        ifVersion: null,
      });
      if (token === undefined) {
        if (background) return {};
        const entry = await awaitOther(primary, lock, context.headers);
        if (entry !== undefined) return { entry };
      }
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      failed("take the regeneration lock", error);
      if (background) return {};
    }
    try {
      return await keep(await next(), primary, context);
    } finally {
      if (token !== undefined) {
        store.delete(lock, { ifVersion: token }).catch((error) =>
          failed("release the regeneration lock", error)
        );
      }
    }
  }

  /** Runs `regenerate` as this process's one regeneration of `key`. */
  function once(
    context: RequestContext,
    next: Next,
    primary: string,
    key: string,
    background: boolean,
  ): Promise<{ response?: Response; entry?: Entry }> {
    const result = regenerate(context, next, primary, key, background);
    const entry = result.then((done) => done.entry, () => undefined);
    running.set(key, entry);
    entry.then(() => {
      if (running.get(key) === entry) running.delete(key);
    });
    return result;
  }

  /**
   * What a lookup found: the key read last (the variant's, when the bare
   * key held a `Vary` index) and the entry, if any.
   */
  interface Found {
    key: string;
    entry: Entry | undefined;
  }

  /** Answers from what a lookup found, or regenerates. */
  function respond(
    context: RequestContext,
    next: Next,
    primary: string,
    found: Found,
    head: boolean,
    shared: boolean,
  ): Response | Promise<Response> {
    const { key, entry } = found;
    const now = Date.now();
    if (entry !== undefined && now < entry.f) {
      return answer(entry, "HIT", head, now, shared);
    }
    if (entry !== undefined && now < entry.x) {
      if (!head && !running.has(key)) {
        once(context, next, primary, key, true).then(
          ({ response }) => response?.body?.cancel(),
          (error) => failed("regenerate in the background", error),
        );
      }
      return answer(entry, "STALE", head, now, shared);
    }
    // HEAD has no body to store: it only reads what GET stored.
    if (head) return next();
    return regenerateOrWait(context, next, primary, key);
  }

  async function regenerateOrWait(
    context: RequestContext,
    next: Next,
    primary: string,
    key: string,
  ): Promise<Response> {
    const pending = running.get(key);
    if (pending !== undefined) {
      const other = await within(pending, lockTimeout);
      if (other !== undefined) {
        return answer(other, "HIT", false, Date.now(), true);
      }
      return (await keep(await next(), primary, context)).response;
    }
    const done = await once(context, next, primary, key, false);
    return done.response ??
      answer(done.entry!, "HIT", false, Date.now(), true);
  }

  /** A lookup on a store that answers later (Deno KV, Redis). */
  async function later(
    context: RequestContext,
    next: Next,
    primary: string,
    head: boolean,
  ): Promise<Response> {
    let found: Found;
    try {
      // lookup(), inlined: a hit on the bare key takes one await.
      const stored = decode(await store.get(primary));
      if (stored === undefined || isEntry(stored)) {
        found = { key: primary, entry: stored };
      } else {
        const key = primary + variantOf(stored.v, context.headers);
        const variant = decode(await store.get(key));
        found = {
          key,
          entry: variant !== undefined && isEntry(variant)
            ? variant
            : undefined,
        };
      }
    } catch (error) {
      // An outage: answer uncached. Anything else is a bug: the router's.
      if (!(error instanceof StoreUnavailableError)) throw error;
      failed("read", error);
      return next();
    }
    return respond(context, next, primary, found, head, false);
  }

  /**
   * A fresh memory hit from `read` (the store's value for `primary`), or
   * from its variant when that is a `Vary` index, answered now, or
   * `undefined`: the router's early answer (below).
   */
  function freshHit(
    read: PeekedValue | undefined,
    primary: string,
    headers: Headers,
    head: boolean,
    now: number,
  ): Response | undefined {
    const stored = decodeNow(read);
    if (stored === undefined) return undefined;
    if (isEntry(stored)) {
      return now < stored.f
        ? answer(stored, "HIT", head, now, true)
        : undefined;
    }
    const variant = decodeNow(
      peek![PEEK](primary + variantOf(stored.v, headers), now),
    );
    return variant !== undefined && isEntry(variant) && now < variant.f
      ? answer(variant, "HIT", head, now, true)
      : undefined;
  }

  // Not async: a memory hit is a Response, answered in this call.
  const middleware: Middleware = function cacheMiddleware(context, next) {
    const method = context.request.method;
    if (method !== "GET" && method !== "HEAD") return next();
    const headers = context.headers;
    if (refused(headers)) return next();
    const head = method === "HEAD";
    const primary = vary.length === 0
      ? "GET " + keyOf(context)
      : "GET " + keyOf(context) + variantOf(vary, headers);
    if (peek === undefined) return later(context, next, primary, head);
    const now = Date.now();
    const stored = decodeNow(peek[PEEK](primary, now));
    if (stored !== undefined && isEntry(stored) && now < stored.f) {
      // The hit path: nothing else to decide.
      return answer(stored, "HIT", head, now, true);
    }
    let found: Found;
    if (stored === undefined || isEntry(stored)) {
      found = { key: primary, entry: stored };
    } else {
      const key = primary + variantOf(stored.v, headers);
      const variant = decodeNow(peek[PEEK](key, now));
      found = {
        key,
        entry: variant !== undefined && isEntry(variant) ? variant : undefined,
      };
    }
    return respond(context, next, primary, found, head, true);
  };

  // The router asks a route whose first middleware this is for a fresh
  // memory hit before it builds the request's context and chain
  // (router/early_answer.ts); anything else (a miss, a stale entry, a
  // refused header) takes the ordinary way through the middleware above.
  // Not with a `key` of its own: that reads the context.
  if (peek !== undefined && options.key === undefined) {
    // The key of the URL asked last, kept: a hot page's requests then
    // make no key string (a concatenation, flattened and hashed again for
    // the store's look-up), only compare the URL with the last one.
    let lastUrl = "";
    let lastKey = "GET ";
    offerEarlyAnswer(middleware, function earlyHit(request, method, info) {
      if (method !== "GET" && method !== "HEAD") return undefined;
      const headers = requestHeaders(request, info);
      if (refused(headers)) return undefined;
      const url = request.url;
      if (url !== lastUrl) {
        lastKey = "GET " + url;
        lastUrl = url;
      }
      const primary = vary.length === 0
        ? lastKey
        : lastKey + variantOf(vary, headers);
      const now = Date.now();
      // The common hit in one function (small functions the JIT has not
      // inlined yet cost more than their work): an entry read before, a
      // GET, text, in the second its answer was made for.
      const read = peek![PEEK](primary, now);
      const stored = read?.memo as Stored | null | undefined;
      if (
        stored != null && method === "GET" && (stored as Entry).s !== undefined
      ) {
        const entry = stored as Entry;
        const parts = entry[PARTS];
        if (
          parts !== undefined && now < entry.f && now >= parts.from &&
          now < parts.until && typeof parts.text === "string" &&
          parts.hit !== undefined && !DENO
        ) {
          const response = new NativeResponse(parts.text, parts.hit);
          rememberText(response, parts.text);
          return response;
        }
      }
      return freshHit(read, primary, headers, method === "HEAD", now);
    });
  }
  return middleware;
}

/**
 * Whether a request is never answered from, nor stored in, a shared
 * cache: a credential's answer is its own (`Authorization`), a part is
 * not the whole (`Range`), an upgrade is no page (`Upgrade`).
 */
function refused(headers: Headers): boolean {
  return headers.has("authorization") || headers.has("range") ||
    headers.has("upgrade");
}
