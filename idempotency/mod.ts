/**
 * The `Idempotency-Key` request header as middleware
 * (draft-ietf-httpapi-idempotency-key-header): a client that sends a
 * `POST` again after a lost answer gets the first answer back instead of
 * a second order, on one server or across every server sharing the store.
 *
 * - The first request with a key runs; its answer (status, headers, body)
 *   is kept for `ttl` seconds.
 * - The same key with the same request (method, path and query, SHA-256
 *   of the body) gets that answer replayed, with
 *   `Idempotent-Replayed: true`; the handler does not run.
 * - The same key with a different request: `422 Unprocessable Content`.
 * - The same key while the first is still running: `409 Conflict`, with
 *   `Retry-After: 1`.
 * - No key where `required`: `400 Bad Request`; a malformed key (empty,
 *   over 255 characters, not printable ASCII): `400`.
 * - A request body over `maxRequestBytes`: `413 Content Too Large`.
 *
 * Errors are `application/problem+json` (RFC 9457) naming what was wrong.
 *
 * Rules chosen where the draft leaves room:
 *
 * - Keys are scoped: by default to the session the request's cookie
 *   named (with the `session` option, which needs `session()` to run
 *   before `idempotency()`: a `TypeError` otherwise), else to the client
 *   address, so one
 *   client cannot replay another's answer by sending its key. `scope`
 *   replaces this (say, the authenticated user id).
 * - The key may come as a Structured Field string (`"abc"`, as the draft
 *   writes it) or bare (`abc`); both name the same key.
 * - Only `POST` and `PATCH` use keys (the `methods` option changes that);
 *   other methods pass by.
 * - A handler that throws or answers `5xx` keeps nothing: the key is
 *   released and the client's retry runs again (a `503` during an outage
 *   must not be replayed for a day). So do `401`, `408`, `425` and `429`
 *   (from the handler or middleware after this one, say `rateLimit()` or
 *   `jwt()`): they ask for the same request again, later or with
 *   credentials, and a retry with the same key must then run. Handlers whose effects may have
 *   happened before a `5xx` should make them transactional.
 * - `Set-Cookie` is never kept or replayed.
 * - A body over `maxBodyBytes` is not kept: a repeat gets the original
 *   status and headers with an empty body and `Idempotent-Replayed: true`,
 *   rather than running the handler again.
 * - A server that dies mid-request holds its key for `lockTimeout`
 *   milliseconds (the entry then expires and a retry runs).
 * - The request body is read once, bounded by `maxRequestBytes` (`413`,
 *   or `408` when the client stalls), and handed on: handlers read
 *   `context.request` as usual.
 *
 * What each store guarantees, and for how long:
 *
 * | store | a key in flight | an answered key | when it cannot keep a new key |
 * |---|---|---|---|
 * | memory (`createMemoryCacheStore`) | kept for `lockTimeout`, never dropped for other keys or `cache()` entries | kept for `ttl`, likewise; lost when the process ends | `503` with `Retry-After` (or `onFull`), and the handler does not run |
 * | Deno KV (`createKvCacheStore`) | kept for `lockTimeout` | kept for `ttl` (expiry checked on read), across restarts; bodies over about 56 KiB keep status and headers only | a full disk: `503` |
 * | Redis (`createRedisCacheStore`) | kept for `lockTimeout` | kept for `ttl`, as long as Redis keeps it: with `maxmemory-policy` other than `noeviction`, Redis may drop keys that have a time to live when memory runs short, and a retry then runs again; across Redis restarts only with its persistence (RDB, AOF) on; on Redis Cluster claims and answers are confirmed only once a replica has them (`durability: "replica"`, the default for a cluster client: else `503`), so a failover does not run a retry twice; on one node with replicas, pass `durability: "replica"` to `createRedisCacheStore` | Redis refuses writes (`noeviction` when full): `503` |
 *
 * The memory store reserves 8 KiB for each key in flight, so that its
 * answer can always be recorded: the status and headers at least, the
 * body too when there is room (otherwise a repeat gets the status and
 * headers with an empty body, as for bodies over `maxBodyBytes`). Size
 * the store for the keys of a `ttl` (a day by default): roughly 300 bytes
 * plus the answer's body a key, and limit how fast one client can make
 * new keys (`rateLimit()`), since a full store refuses everyone's new keys.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { createMemoryCacheStore } from "@fetchkit/toolkit/cache-middleware";
 * import { idempotency } from "@fetchkit/toolkit/idempotency-middleware";
 *
 * const store = createMemoryCacheStore();
 * const router = createRouter();
 * let orders = 0;
 * router.post("/orders", idempotency({ store, required: true }), () =>
 *   Response.json({ order: ++orders }, { status: 201 }));
 *
 * const send = () =>
 *   router.fetch(
 *     new Request("http://localhost/orders", {
 *       method: "POST",
 *       headers: { "Idempotency-Key": '"8e03978e-40d5-43e8-bc93-6894a57f9324"' },
 *       body: "{}",
 *     }),
 *     { remoteAddr: { hostname: "192.0.2.1", port: 1234, transport: "tcp" } },
 *   );
 * const first = await send();
 * const again = await send();
 * console.log(await first.json(), await again.json()); // { order: 1 } { order: 1 }
 * console.log(again.headers.get("Idempotent-Replayed")); // "true"
 * ```
 *
 * @module
 */

import { requestWithBody } from "../runtime/request_copy.ts";
import { atLeast } from "../store/options.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import type { RequestContext } from "../router/context.ts";
import type { AnyContextKey } from "../router/context_key.ts";
import type { Middleware } from "../router/types.ts";
import { NativeResponse } from "../response/native.ts";
import { toBase64Url } from "../runtime/base64.ts";
import { stateOf } from "../session/session.ts";
import {
  decodeRecord,
  encodeRecord,
  keptHeaders,
  readBodyUpTo,
} from "../store/response_record.ts";
import type { CacheStore } from "../cache/stores.ts";
import { StoreFullError } from "../cache/memory_store.ts";
import { readBytes, resolveBodyLimits } from "../validation/read_body.ts";
import { HttpError } from "../http_error/mod.ts";

export {
  type CacheStore,
  createKvCacheStore,
  createMemoryCacheStore,
  createRedisCacheStore,
  StoreFullError,
} from "../cache/stores.ts";

/** Options of {@linkcode idempotency}. */
export interface IdempotencyOptions {
  /** Where keys and answers are kept: a memory, Deno KV or Redis cache store. */
  store: CacheStore;
  /**
   * Seconds a key and its answer are kept after the first request ends.
   *
   * @default {86400} (a day)
   */
  ttl?: number;
  /**
   * Refuse requests without `Idempotency-Key` (`400`).
   *
   * @default {false}
   */
  required?: boolean;
  /**
   * The context key `session()` stores the session under: keys are then
   * scoped to the session the request's cookie names. Requests without one
   * (a new session) are scoped to their address.
   */
  session?: AnyContextKey;
  /**
   * Whose keys these are; replaces the session and address scope. Return
   * the authenticated user's id, say. `undefined` falls back to the default.
   */
  scope?: (
    context: RequestContext,
  ) => string | undefined | Promise<string | undefined>;
  /**
   * The methods that use keys.
   *
   * @default {["POST", "PATCH"]}
   */
  methods?: readonly string[];
  /**
   * Milliseconds a request holds its key while it runs; a server that
   * dies mid-request frees the key after this.
   *
   * @default {60000}
   */
  lockTimeout?: number;
  /**
   * The largest answer body kept, in bytes (bounded by the store's entry
   * size; about 56 KiB on Deno KV).
   *
   * @default {1048576} (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * The largest request body hashed into the fingerprint; a longer one
   * gets `413`.
   *
   * @default {1048576} (1 MiB)
   */
  maxRequestBytes?: number;
  /**
   * The answer to a new key when the store has no room left for it (the
   * memory store full of keys in flight or answered, which it never
   * drops). Default: `503 Service Unavailable` with `Retry-After`, as
   * `application/problem+json`.
   */
  onFull?: (
    context: RequestContext,
    error: StoreFullError,
  ) => Response | Promise<Response>;
}

/** What is kept under a key. */
interface Kept {
  /** `"running"` or `"done"`. */
  st: "running" | "done";
  /** The request's fingerprint. */
  fp: string;
  /** Status (done). */
  s?: number;
  /** Headers (done). */
  h?: [string, string][];
  /** The body was too large to keep (done). */
  big?: boolean;
}

const MAX_KEY_LENGTH = 255;
/**
 * Answers that say "not done, send it again" (later, or with credentials):
 * kept, they would be replayed to that very retry for `ttl`.
 */
const RETRY_LATER = new Set([401, 408, 425, 429]);
const encoder = new TextEncoder();
/** A bare key: printable ASCII without spaces or quotes. */
const BARE_KEY = /^[\x21\x23-\x7e]+$/;

/** The key from the header value, or what is wrong with it. */
function parseIdempotencyKey(
  value: string,
): { key: string } | { error: string } {
  const text = value.trim();
  let key: string;
  if (text.startsWith('"')) {
    // A Structured Field string: printable ASCII, \" and \\ escaped.
    key = "";
    let index = 1;
    for (; index < text.length; index++) {
      const char = text[index];
      if (char === "\\") {
        const escaped = text[++index];
        if (escaped !== '"' && escaped !== "\\") {
          return {
            error:
              'Idempotency-Key: only \\" and \\\\ may be escaped in a quoted key',
          };
        }
        key += escaped;
      } else if (char === '"') {
        break;
      } else if (char < " " || char > "~") {
        return {
          error: "Idempotency-Key must be printable ASCII (a UUID, say)",
        };
      } else {
        key += char;
      }
    }
    if (index !== text.length - 1) {
      return {
        error:
          'Idempotency-Key: a quoted key must be one string, "like-this", with nothing after it',
      };
    }
  } else {
    if (text !== "" && !BARE_KEY.test(text)) {
      return {
        error:
          "Idempotency-Key must be printable ASCII without spaces (a UUID, say)",
      };
    }
    key = text;
  }
  if (key.length === 0) return { error: "Idempotency-Key is empty" };
  if (key.length > MAX_KEY_LENGTH) {
    return {
      error:
        `Idempotency-Key is ${key.length} characters; the limit is ${MAX_KEY_LENGTH}`,
    };
  }
  return { key };
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  422: "Unprocessable Content",
  503: "Service Unavailable",
};

/**
 * Bytes a key holds in the store while its request runs: room for the
 * answer's status and headers, so that recording the answer never fails
 * for want of room (the body is kept too when there is room for it).
 */
const RESERVE_BYTES = 8192;
/** The most a record without a body may take within that reservation. */
const HEAD_RECORD_MAX = RESERVE_BYTES - 1024;

function problem(
  status: number,
  detail: string,
  headers: Record<string, string> = {},
): Response {
  return new NativeResponse(
    JSON.stringify({
      type: "about:blank",
      title: TITLES[status],
      status,
      detail,
    }),
    {
      status,
      headers: {
        "Content-Type": "application/problem+json",
        "Cache-Control": "no-store",
        ...headers,
      },
    },
  );
}

function hex(bytes: Uint8Array): string {
  return toBase64Url(bytes);
}

/**
 * A done record without its body (and, past the reservation, without its
 * headers): what is kept when the store has no room for the body.
 */
function headRecord(kept: Kept): Uint8Array {
  const head = encodeRecord({ ...kept, big: true } satisfies Kept);
  if (head.byteLength <= HEAD_RECORD_MAX) return head;
  return encodeRecord({ ...kept, h: [], big: true } satisfies Kept);
}

/**
 * Reads the body once, bounded (413 past `limits.maxBytes`, 408 when the
 * client stalls), and hands the rest of the chain a request holding those
 * bytes (`requestWithBody`, not `request.clone()`, which prints Deno's
 * legacy-abort warning).
 */
async function takeBody(
  context: RequestContext,
  limits: ReturnType<typeof resolveBodyLimits>,
): Promise<Uint8Array> {
  const request = context.request;
  if (request.body === null) return new Uint8Array(0);
  const bytes = await readBytes(request, limits);
  const copy = requestWithBody(request, bytes as BodyInit);
  // `request` is read-only to handlers, not to the middleware that took
  // its body: the rest of the chain reads the copy.
  (context as { request: Request }).request = copy;
  return bytes;
}

/**
 * Creates the `Idempotency-Key` middleware (see the module docs for every
 * answer it gives). Put it on the routes that create or change things,
 * after `session()` when keys are scoped to the session.
 *
 * Exactly once: the first request writes its key as running with a
 * compare-and-set that succeeds only when the key is absent, so among
 * concurrent requests with one key, in one process or many sharing the
 * store, one runs the handler; the others get `409` (or, once it is done,
 * the replay). The answer is then written over the running entry with a
 * compare-and-set on its version.
 *
 * When the store fails, the request is not run: an error reaches the
 * router (a `503` when the store is down), since running it unguarded
 * could do it twice. A memory store full of keys it must keep answers a
 * new key `503` with `Retry-After` (or `onFull`'s answer) the same way.
 *
 * @example Scoped to the signed-in user, required
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { createMemoryCacheStore } from "@fetchkit/toolkit/cache-middleware";
 * import { idempotency } from "@fetchkit/toolkit/idempotency-middleware";
 *
 * const UserId = createContextKey<string>();
 * const router = createRouter();
 * router.post(
 *   "/payments",
 *   idempotency({
 *     store: createMemoryCacheStore(),
 *     required: true,
 *     scope: ({ get }) => get(UserId),
 *   }),
 *   () => new Response("paid", { status: 201 }),
 * );
 * const response = await router.fetch(
 *   new Request("http://localhost/payments", { method: "POST" }),
 * );
 * console.log(response.status); // 400: no Idempotency-Key
 * ```
 *
 * @param options The store and the rules.
 * @returns The middleware.
 * @throws {TypeError} When `store` is missing.
 * @throws {RangeError} When a number option is out of range.
 */
export function idempotency(options: IdempotencyOptions): Middleware {
  const { store } = options ?? {};
  if (
    store === null || typeof store !== "object" ||
    typeof store.get !== "function" || typeof store.set !== "function"
  ) {
    throw new TypeError(
      "idempotency() needs `store`: createMemoryCacheStore(), createKvCacheStore() or createRedisCacheStore()",
    );
  }
  const ttlMs = atLeast("idempotency()", "ttl", options.ttl ?? 86_400, 1) *
    1000;
  const lockTimeout = atLeast(
    "idempotency()",
    "lockTimeout",
    options.lockTimeout ?? 60_000,
    1,
  );
  const maxBodyBytes = Math.min(
    atLeast(
      "idempotency()",
      "maxBodyBytes",
      options.maxBodyBytes ?? 1024 * 1024,
      0,
    ),
    store.maxValueBytes - 8192,
  );
  const maxRequestBytes = atLeast(
    "idempotency()",
    "maxRequestBytes",
    options.maxRequestBytes ?? 1024 * 1024,
    0,
  );
  const bodyLimits = resolveBodyLimits(
    { maxBytes: maxRequestBytes },
    "idempotency()",
  );
  const methods = new Set(
    (options.methods ?? ["POST", "PATCH"]).map((method) =>
      method.toUpperCase()
    ),
  );
  const required = options.required === true;
  let lastFullLog = 0;
  const sessionKey = options.session;

  async function scopeOf(context: RequestContext): Promise<string> {
    const chosen = await options.scope?.(context);
    if (chosen !== undefined) return "scope:" + chosen;
    if (sessionKey !== undefined) {
      // Without the session, the address scope would let one session's
      // answer reach another behind the same address: a misordered chain
      // is the application's bug, told at its first request.
      if (!context.has(sessionKey)) {
        throw new TypeError(
          "idempotency(): no session under the `session` key; run session() before idempotency()",
        );
      }
      const session = context.get(sessionKey);
      const loaded = typeof session === "object" && session !== null
        ? stateOf(session).loadedId
        : undefined;
      if (loaded !== undefined) return "session:" + loaded;
    }
    const address = context.remoteAddr?.hostname;
    return address === undefined ? "anonymous" : "address:" + address;
  }

  function replay(kept: Kept, body: Uint8Array): Response {
    const headers = new Headers(kept.h);
    headers.set("Idempotent-Replayed", "true");
    return new NativeResponse(
      kept.big || body.byteLength === 0 ? null : body.slice() as BodyInit,
      { status: kept.s, headers },
    );
  }

  return async function idempotencyMiddleware(context, next) {
    if (!methods.has(context.request.method)) return next();
    const header = context.headers.get("idempotency-key");
    if (header === null) {
      if (!required) return next();
      return problem(
        400,
        `${context.request.method} ${context.url.pathname} needs an Idempotency-Key header (a UUID, say)`,
      );
    }
    const parsed = parseIdempotencyKey(header);
    if ("error" in parsed) return problem(400, parsed.error);
    let body: Uint8Array;
    try {
      body = await takeBody(context, bodyLimits);
    } catch (error) {
      if (!(error instanceof HttpError) || error.status >= 500) throw error;
      return problem(
        error.status,
        error.status === 413
          ? `The request body is over the ${maxRequestBytes}-byte limit for requests with an Idempotency-Key`
          : error.message,
      );
    }
    // Hashed: a long URL must not make the record outgrow its reservation.
    const fingerprint = hex(sha256(encoder.encode(
      `${context.request.method} ${context.url.pathname}${context.url.search} ${
        hex(sha256(body))
      }`,
    )));
    const scope = await scopeOf(context);
    const key = "idempotency\n" +
      hex(sha256(encoder.encode(scope + "\n" + parsed.key)));

    // The usual case, a new key, costs one write: claim it; only when
    // that fails, read what holds it.
    const running = encodeRecord(
      { st: "running", fp: fingerprint } satisfies Kept,
    );
    let version: string | undefined;
    for (let attempt = 0; version === undefined; attempt++) {
      try {
        version = await store.set(key, running, {
          ttlMs: lockTimeout,
          ifVersion: null,
          pinned: true,
          reserveBytes: RESERVE_BYTES,
          durable: true,
        });
      } catch (error) {
        if (!(error instanceof StoreFullError)) throw error;
        return await full(context, error);
      }
      if (version !== undefined) break;
      const current = await store.get(key);
      if (current !== undefined) {
        const record = decodeRecord(current.value);
        const kept = record?.meta as Kept | undefined;
        if (kept !== undefined && kept.fp !== fingerprint) {
          return problem(
            422,
            "This Idempotency-Key was used for a different request (method, path or body); send a new key for a new request",
          );
        }
        if (kept === undefined || kept.st === "running") {
          return problem(
            409,
            "A request with this Idempotency-Key is still being processed; retry shortly",
            { "Retry-After": "1" },
          );
        }
        return replay(kept, record!.body);
      }
      if (attempt === 2) {
        // The key keeps appearing and vanishing: treat it as running.
        return problem(
          409,
          "A request with this Idempotency-Key is still being processed; retry shortly",
          { "Retry-After": "1" },
        );
      }
    }

    let response: Response;
    try {
      response = await next();
    } catch (error) {
      await release(key, version);
      throw error;
    }
    if (response.status >= 500 || RETRY_LATER.has(response.status)) {
      await release(key, version);
      return response;
    }
    let answer: Awaited<ReturnType<typeof readBodyUpTo>>;
    try {
      answer = await readBodyUpTo(response, maxBodyBytes);
    } catch (error) {
      // The body failed while streaming: the handler failed, as a throw.
      await release(key, version);
      throw error;
    }
    const kept: Kept = {
      st: "done",
      fp: fingerprint,
      s: response.status,
      h: keptHeaders(response.headers),
    };
    if (!answer.complete) kept.big = true;
    try {
      let written: string | undefined;
      try {
        written = await store.set(
          key,
          encodeRecord(kept, answer.complete ? answer.bytes : undefined),
          { ttlMs, ifVersion: version, pinned: true, durable: true },
        );
      } catch (error) {
        if (!(error instanceof StoreFullError)) throw error;
        // No room for the body: the status and headers, within the room
        // the key reserved, so that a retry is replayed, never run again.
        written = await store.set(key, headRecord(kept), {
          ttlMs,
          ifVersion: version,
          pinned: true,
          durable: true,
        });
      }
      if (written === undefined) {
        console.error(
          `idempotency(): the request outlived its ${lockTimeout} ms hold on its key; its answer was not kept`,
        );
      }
    } catch (error) {
      console.error(
        `idempotency(): the ${store.name} store failed to keep an answer; the key is released when its hold expires:`,
        error,
      );
    }
    // An empty body as null: a 204 or 205 may have no body at all.
    return new NativeResponse(
      answer.complete
        ? answer.bytes.byteLength === 0 ? null : answer.bytes as BodyInit
        : answer.body,
      response,
    );
  };

  /** A new key and no room for it: 503, or the application's answer. */
  async function full(
    context: RequestContext,
    error: StoreFullError,
  ): Promise<Response> {
    const now = Date.now();
    if (now - lastFullLog > 60_000) {
      lastFullLog = now;
      console.error(
        `idempotency(): ${error.message}; new keys get 503 until some expire (a ${
          ttlMs / 1000
        } s ttl). Give the store more room or keep keys for less time.`,
      );
    }
    if (options.onFull !== undefined) {
      return await options.onFull(context, error);
    }
    return problem(
      503,
      "The server holds as many Idempotency-Keys as it has room for; retry this request later with the same key",
      { "Retry-After": String(error.retryAfterSeconds) },
    );
  }

  async function release(key: string, version: string): Promise<void> {
    try {
      await store.delete(key, { ifVersion: version });
    } catch (error) {
      console.error(
        `idempotency(): the ${store.name} store failed to release a key; it is released when its hold expires:`,
        error,
      );
    }
  }
}
