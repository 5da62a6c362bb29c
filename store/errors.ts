/**
 * What a store failure is: an outage (the store is down, slow, full or
 * locked: answer `503` and try again later) or anything else (a bug, a
 * value too large: the application's error).
 *
 * @module
 */

import { HttpError } from "../http_error/mod.ts";

/** Options of {@linkcode StoreUnavailableError}. */
export interface StoreUnavailableErrorOptions {
  /** The error the store gave, kept for logs. */
  cause?: unknown;
  /** The `Retry-After` the client is sent, in seconds. Default `5`. */
  retryAfterSeconds?: number;
}

/**
 * A store (Deno KV, Redis, or an application's own) could not answer: it
 * is down, did not answer in time, is full, or stayed locked by other
 * processes. An `HttpError` with status `503` and `Retry-After`, whose
 * message (which names the store and what failed) is logged and hidden
 * from the client; the next request tries the store again.
 *
 * @example
 * ```ts
 * import { StoreUnavailableError } from "@fetchkit/toolkit/store";
 *
 * const error = new StoreUnavailableError("Redis", "Redis did not answer within 5000 ms");
 * const response = error.toResponse();
 * response.status; // 503
 * response.headers.get("Retry-After"); // "5"
 * await response.text(); // "Service Unavailable"
 * ```
 */
export class StoreUnavailableError extends HttpError {
  /** The store that failed, such as `"Redis"` or `"Deno KV"`. */
  readonly store: string;
  /** The `Retry-After` sent to the client, in seconds. */
  readonly retryAfterSeconds: number;

  /**
   * Creates the error for an outage of `store`.
   *
   * @param store The store that failed, such as `"Redis"`.
   * @param message What failed, for the logs.
   * @param options The cause and `Retry-After`.
   */
  constructor(
    store: string,
    message: string,
    options?: StoreUnavailableErrorOptions,
  ) {
    const retryAfterSeconds = options?.retryAfterSeconds ?? 5;
    super(503, message, {
      cause: options?.cause,
      expose: false,
      headers: {
        "Retry-After": String(retryAfterSeconds),
        "Cache-Control": "no-store",
      },
    });
    this.name = "StoreUnavailableError";
    this.store = store;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

// Error codes (Node, Bun, Deno's node:net) of a peer that is gone or slow,
// and of a disk that is full.
const OUTAGE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTCONN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
  "ENOSPC",
  "EDQUOT",
]);

// Deno's error classes for the same (Deno.errors.*), read by name so the
// check runs on every runtime.
const OUTAGE_NAMES = new Set([
  "ConnectionRefused",
  "ConnectionReset",
  "ConnectionAborted",
  "NotConnected",
  "BrokenPipe",
  "TimedOut",
  // `AbortSignal.timeout()` (a DOMException).
  "TimeoutError",
  // ioredis: a command given up after its retries, every cluster node failed.
  "MaxRetriesPerRequestError",
  "ClusterAllFailedError",
]);

// Every way node-redis (4 to 6) gives a command up, by class. Its error
// classes set no `name` (every one is "Error"), and its command timeout
// (5 s by default, also what abandons commands queued while it
// reconnects) is a `TimeoutError` with an empty message, so they are
// known by their constructor's name, along the prototype chain.
// Not here: `AbortError` (the caller's own signal), `WatchError` (a lost
// optimistic transaction), `ErrorReply` (decided by its text below).
const OUTAGE_CLASSES = new Set([
  "ClientClosedError", // a command on a closed client
  "ClientOfflineError", // disconnected, with the offline queue off
  "DisconnectsClientError", // queued commands of a client being closed
  "SocketClosedUnexpectedlyError", // the connection dropped
  "ConnectionTimeoutError", // a connect that took too long
  "SocketTimeoutError", // `socket.socketTimeout` passed without data
  "ReconnectStrategyError", // the reconnect strategy gave up
  "TimeoutError", // `commandOptions.timeout`, 5 s by default
  "SocketTimeoutDuringMaintenanceError", // (a TimeoutError)
  "CommandTimeoutDuringMaintenanceError", // (a TimeoutError)
  "RootNodesUnavailableError", // a cluster none of whose nodes answer
  "MaxCommandRedirectionsError", // a cluster moving slots (failover)
  "ScanIteratorInterruptedError", // a Sentinel master change
]);

// Messages of outages that come without a code or a telling class: SQLite
// under Deno KV ("database or disk is full" is a TypeError), a closed KV
// handle, node-redis's offline queue and its full command queue
// (`maxCommandsQueueLength`).
const OUTAGE_MESSAGE =
  /database or disk is full|database is locked|database (?:is )?closed|disk I\/O error|the client is (?:closed|offline)|socket closed unexpectedly|connection (?:is )?closed|connection timeout|ECONNREFUSED|ECONNRESET|did not answer within|^The queue is full$/i;

// Error replies of a Redis (or Valkey) server that cannot serve now: a
// cluster without a master for the slot, a slot being moved, a replica
// promoted or still loading, a script running past its limit, a server
// out of memory or unable to persist. A client shows them as the text of
// the reply, which starts with the code.
const OUTAGE_REPLY =
  /^(?:CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|READONLY|BUSY|NOREPLICAS|MISCONF|OOM|UNBLOCKED)\b/;

/** Whether a class along `error`'s prototype chain is a client's outage. */
function outageClass(error: Error): boolean {
  for (
    let proto = Object.getPrototypeOf(error);
    proto !== null && proto !== Error.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor
      ?.name;
    if (typeof name === "string" && OUTAGE_CLASSES.has(name)) return true;
  }
  return false;
}

/**
 * Whether `error` (or an error in its `cause` chain) is a store outage:
 * a refused, reset or closed connection, a timeout, a full disk, a
 * database that stayed locked or was closed, a Redis or Valkey server
 * that cannot serve now (`CLUSTERDOWN`, `TRYAGAIN`, `LOADING`,
 * `MASTERDOWN`, `READONLY`, `BUSY`, `NOREPLICAS`, `MISCONF`, `OOM`), and
 * every way node-redis gives a command up (its command timeout, 5 s by
 * default, is a `TimeoutError` with no message; a closed, offline or
 * reconnecting client; a cluster whose nodes do not answer or keep
 * redirecting). Decided by what the error says (its code, its name, its
 * message, the name of its class), never by `instanceof` a client's
 * class: Deno KV reports a full disk as a `TypeError`, and node-redis'
 * errors all have the name `"Error"`.
 *
 * @example
 * ```ts
 * import { isStoreOutage } from "@fetchkit/toolkit/store";
 *
 * isStoreOutage(new TypeError("database or disk is full")); // true
 * isStoreOutage(new RangeError("Session too large: 70000 bytes")); // false
 * ```
 *
 * @param error Anything thrown by a store call.
 * @returns `true` for an outage.
 */
export function isStoreOutage(error: unknown): boolean {
  for (let depth = 0; depth < 8 && error instanceof Error; depth++) {
    if (error instanceof StoreUnavailableError) return true;
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && OUTAGE_CODES.has(code)) return true;
    if (OUTAGE_NAMES.has(error.name) || OUTAGE_CLASSES.has(error.name)) {
      return true;
    }
    // A closed Deno KV handle: "Database closed" or "Bad resource ID".
    if (error.name === "BadResource") return true;
    if (OUTAGE_MESSAGE.test(error.message)) return true;
    if (OUTAGE_REPLY.test(error.message)) return true;
    if (outageClass(error)) return true;
    error = error.cause;
  }
  return false;
}

/**
 * `error` as the router should see it: an outage becomes a
 * {@linkcode StoreUnavailableError} (a `503` with `Retry-After`) naming
 * `store`; anything else is returned unchanged, to be rethrown.
 *
 * @example
 * ```ts
 * import { StoreUnavailableError, toStoreError } from "@fetchkit/toolkit/store";
 *
 * const error = toStoreError(new TypeError("database or disk is full"), "Deno KV");
 * error instanceof StoreUnavailableError; // true
 * ```
 *
 * @param error Anything thrown by a store call.
 * @param store The store's name, such as `"Deno KV"` or `"Redis"`.
 * @returns A `StoreUnavailableError` for an outage, else `error`.
 */
export function toStoreError(error: unknown, store: string): unknown {
  if (error instanceof StoreUnavailableError || !isStoreOutage(error)) {
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(store, `${store} failed: ${message}`, {
    cause: error,
  });
}
