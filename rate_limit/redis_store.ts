/**
 * A rate-limit store on Redis: shared by every server that uses the same
 * Redis.
 *
 * @module
 */

import { checkTimeout, withTimeout } from "../store/timeout.ts";
import { replicaWaiter, scriptRunner } from "../store/redis_client.ts";
import {
  algorithmOf,
  lockoutResult,
  type RateLimitPolicy,
  type RateLimitResult,
  type RateLimitStore,
  resultOf,
} from "./store.ts";

/** Keys and arguments of `EVAL`/`EVALSHA`, as `npm:redis` takes them. */
export interface RedisEvalOptions {
  /** `KEYS` of the script. */
  keys: string[];
  /** `ARGV` of the script. */
  arguments: string[];
}

/**
 * The commands the store uses: a connected `npm:redis` client or cluster
 * client (`createCluster()`) fits, and so does any client (or adapter) of
 * the same shape.
 */
export interface RedisRateLimitClient {
  /** `EVAL script numkeys keys... args...`. */
  eval(script: string, options: RedisEvalOptions): Promise<unknown>;
  /**
   * `EVALSHA sha1 ...`. Optional: with it, the script's text is sent only
   * the first time (and again if Redis answers `NOSCRIPT`).
   */
  evalSha?(sha1: string, options: RedisEvalOptions): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
}

/** Options of {@linkcode createRedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** A connected client. */
  client: RedisRateLimitClient;
  /** Prefix of every key: state lives under `<prefix><key>`. Default `"rate_limit:"`. */
  prefix?: string;
  /**
   * How the count that refuses is confirmed: the count that reaches the
   * limit (its request is allowed with none remaining, and the next is
   * refused). A refused request writes nothing and waits for nothing: it
   * is refused (`429`) whatever the replicas, so `failOpen` cannot turn a
   * lagging replica into a pass.
   *
   * - `"replica"` (default for a cluster client, `createCluster()`): only
   *   once a replica has the count (`WAIT 1 <replicaTimeout>` to the
   *   master that owns the key); when none confirms within
   *   `replicaTimeout`, the call fails with a `StoreUnavailableError`
   *   (503, or a pass with `failOpen: true`), and the count stays on the
   *   master. Counts below the limit are not waited for: a failover can
   *   lose those made in its last moment, so a key may allow that many
   *   requests again, never more than `limit` before a confirmed refusal.
   * - `"replica-aof"`: as `"replica"`, and the replica has also written
   *   it to its append-only file (`WAITAOF 0 1 <replicaTimeout>`; Redis or
   *   Valkey 7.2 and later, replicas with `appendonly yes`), so it also
   *   survives that replica's restart.
   * - `"none"` (default for a one-node client): once the master has it.
   *   A master that fails over before replicating can lose the count
   *   that locked a key out, and the next request is let through.
   *
   * Needs a client with `sendCommand` (node-redis) for `"replica"` and
   * `"replica-aof"`.
   */
  durability?: "replica" | "replica-aof" | "none";
  /**
   * Milliseconds a replica has to confirm (`durability: "replica"`).
   *
   * @default {1000}
   */
  replicaTimeout?: number;
  /**
   * Milliseconds to wait for Redis before a call fails as an outage, a
   * `StoreUnavailableError` (503 with `Retry-After`, or a pass with
   * `rateLimit({ failOpen: true })`). A client that queues commands while
   * disconnected (node-redis' default offline queue), or a Redis busy
   * with a slow command, would otherwise hold every request. `Infinity`
   * waits.
   *
   * @default {5000}
   */
  timeout?: number;
}

// GCRA in one step, on Redis' own clock (so servers' clocks need not
// agree). KEYS[1]: the key. ARGV: limit, window in ms. The arrival time is
// stored as a number in ms; Redis writes a Lua number argument with all 17
// digits, so no string.format is needed. Returns one integer (the cheapest
// reply to make and to parse): when allowed, the stored arrival time minus
// now in nanoseconds (rounded; ms values on the clock's scale are only
// exact to about 0.25 µs anyway); when refused, -1 minus that.
/** The script, exported for benchmarks (not part of the package API). */
export const SCRIPT = `
local time = redis.call("TIME")
local now = time[1] * 1000 + time[2] / 1000
local window = tonumber(ARGV[2])
local interval = window / tonumber(ARGV[1])
local tat = tonumber(redis.call("GET", KEYS[1])) or 0
local base = tat > now and tat or now
local nextTat = base + interval
if nextTat - now > window + 0.000001 then
  return -1 - math.floor((tat - now) * 1000000 + 0.5)
end
redis.call("SET", KEYS[1], nextTat, "PX", math.max(1, math.ceil(nextTat - now)))
return math.floor((nextTat - now) * 1000000 + 0.5)
`;

// A lockout in one step. KEYS[1]: the key, holding the count and expiring
// (PX) windowMs after the last counted request; Redis never returns an
// expired key, so the expiry is the window, on Redis' clock. ARGV: limit,
// window in ms. Returns { 1 if allowed, the count, ms until it is
// forgotten }. A value that is no count (not a whole number >= 0) counts
// as none.
/** The lockout script, exported for benchmarks (not part of the package API). */
export const LOCKOUT_SCRIPT = `
local limit = tonumber(ARGV[1])
local window = math.ceil(tonumber(ARGV[2]))
local count = tonumber(redis.call("GET", KEYS[1]) or "0")
if count == nil or count < 0 or count ~= math.floor(count) then
  count = 0
end
if count >= limit then
  local left = redis.call("PTTL", KEYS[1])
  if left < 0 then
    redis.call("PEXPIRE", KEYS[1], window)
    left = window
  end
  return { 0, count, left }
end
redis.call("SET", KEYS[1], count + 1, "PX", window)
return { 1, count + 1, window }
`;

// Giving one request back, GCRA: the arrival time moved back by one
// interval, on Redis' clock; deleted when that is not after now, so a
// give-back never banks more than the full limit. ARGV: limit, window.
/** The GCRA give-back script (not part of the package API). */
export const GIVE_BACK_SCRIPT = `
local time = redis.call("TIME")
local now = time[1] * 1000 + time[2] / 1000
local interval = tonumber(ARGV[2]) / tonumber(ARGV[1])
local tat = tonumber(redis.call("GET", KEYS[1]))
if tat == nil or tat <= now then
  return 0
end
local back = tat - interval
if back <= now + 0.000001 then
  redis.call("DEL", KEYS[1])
  return 1
end
redis.call("SET", KEYS[1], back, "PX", math.max(1, math.ceil(back - now)))
return 1
`;

// Giving one request back, lockout: the count lowered by one (DECR keeps
// the key's expiry), deleted at one; nothing to give back stays nothing.
/** The lockout give-back script (not part of the package API). */
export const LOCKOUT_GIVE_BACK_SCRIPT = `
local count = tonumber(redis.call("GET", KEYS[1]) or "0")
if count == nil or count <= 0 or count ~= math.floor(count) then
  return 0
end
if count <= 1 then
  redis.call("DEL", KEYS[1])
else
  redis.call("DECR", KEYS[1])
end
return 1
`;

/**
 * The result from the script's reply: the stored arrival time minus now
 * in nanoseconds when allowed, -1 minus that when refused.
 */
function gcraResult(answer: unknown, policy: RateLimitPolicy): RateLimitResult {
  // node-redis and ioredis give a number; other clients may not.
  const reply = typeof answer === "number"
    ? answer
    : typeof answer === "bigint" || typeof answer === "string"
    ? Number(answer)
    : NaN;
  if (!Number.isFinite(reply)) {
    throw new Error(
      `Rate limit store: unexpected reply from Redis: ${
        typeof answer === "bigint" ? answer : JSON.stringify(answer)
      }`,
    );
  }
  return reply >= 0
    ? resultOf(true, reply / 1e6, policy)
    : resultOf(false, (-1 - reply) / 1e6, policy);
}

/**
 * Creates a store that keeps rate-limit state in Redis under
 * `<prefix><key>`: one number per key, updated by a Lua script, so each
 * request costs one round trip and servers sharing the Redis share each
 * key's budget exactly. The script runs on Redis' clock (`TIME`), so the
 * servers' clocks need not agree. Each key expires (`PX`) when its full
 * limit is back. A lockout (`algorithm: "lockout"`) keeps its count under
 * the key, expiring `windowMs` after the last counted request: Redis
 * never answers with an expired key, so the expiry is the window.
 *
 * With a client that has `evalSha` (node-redis does), the script is sent
 * by its SHA-1 digest, and by its text only when Redis does not know it
 * yet. When Redis is down or does not answer within `timeout` (5 s by
 * default), the call fails with a `StoreUnavailableError`: the router
 * answers `503` with `Retry-After` (a limiter that cannot count does not
 * let requests through unchecked), unless the limiter was made with
 * `failOpen: true`. Other errors from Redis reach the router as they are.
 *
 * On Redis Cluster (a node-redis `createCluster()` client as `client`),
 * each key is one slot's key, so limits spread over the masters and stay
 * atomic: every script touches its one key. After a failover the new
 * master may lack counts its old master acknowledged but had not yet
 * replicated (Redis replicates asynchronously): a key can then allow up
 * to the requests counted in that last moment again. On a cluster the
 * count that reaches the limit waits for a replica by
 * default (`durability: "replica"`), so a confirmed lockout survives a
 * failover; see the option.
 *
 * @example
 * ```ts ignore
 * import { createClient } from "redis";
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import {
 *   createRedisRateLimitStore,
 *   rateLimit,
 * } from "@fetchkit/toolkit/rate-limit-middleware";
 *
 * const client = createClient({ url: "redis://127.0.0.1:6379" });
 * await client.connect();
 * const store = createRedisRateLimitStore({ client });
 * const router = createRouter({
 *   middleware: [rateLimit({ limit: 100, windowMs: 60_000, store })],
 * });
 * ```
 *
 * @param options The client and the key prefix.
 * @returns The store.
 * @throws {TypeError} When `client` has no `eval`.
 */
export function createRedisRateLimitStore(
  options: RedisRateLimitStoreOptions,
): RateLimitStore {
  const { client, prefix = "rate_limit:" } = options ?? {};
  if (
    client === null || typeof client !== "object" ||
    typeof client.eval !== "function"
  ) {
    throw new TypeError(
      "createRedisRateLimitStore() needs `client`: a connected Redis client with eval() (npm:redis)",
    );
  }
  const timeout = checkTimeout(options.timeout, "createRedisRateLimitStore");
  const runNow = scriptRunner(client);
  const replica = replicaWaiter(client, options, "createRedisRateLimitStore");

  /** `result`, once a replica has it when it refuses (or will refuse next). */
  async function confirmed(
    key: string,
    result: RateLimitResult,
  ): Promise<RateLimitResult> {
    // Only the count that reaches the limit: a refusal wrote nothing, and
    // stays a refusal (429) whatever the replicas say.
    if (replica === undefined || !result.allowed || result.remaining > 0) {
      return result;
    }
    await withTimeout(() => replica(key, "rate-limit count"), timeout, {
      store: "Redis",
      what: "rate limit",
    });
    return result;
  }
  // The script's arguments per policy, made once.
  const argumentsOf = new WeakMap<RateLimitPolicy, string[]>();

  function run(script: string, options: RedisEvalOptions): Promise<unknown> {
    return withTimeout(() => runNow(script, options), timeout, {
      store: "Redis",
      what: "rate limit",
    });
  }

  function unexpected(reply: unknown): Error {
    return new Error(
      `Rate limit store: unexpected reply from Redis: ${JSON.stringify(reply)}`,
    );
  }

  return {
    async hit(
      key: string,
      policy: RateLimitPolicy,
    ): Promise<RateLimitResult> {
      const lockout = algorithmOf(policy) === "lockout";
      let args = argumentsOf.get(policy);
      if (args === undefined) {
        args = [String(policy.limit), String(policy.windowMs)];
        argumentsOf.set(policy, args);
      }
      const options = { keys: [prefix + key], arguments: args };
      if (lockout) {
        const reply = await run(LOCKOUT_SCRIPT, options);
        if (!Array.isArray(reply) || reply.length !== 3) {
          throw unexpected(reply);
        }
        return await confirmed(
          options.keys[0],
          lockoutResult(
            Number(reply[0]) === 1,
            Number(reply[1]),
            Number(reply[2]),
            policy,
          ),
        );
      }
      return await confirmed(
        options.keys[0],
        gcraResult(await run(SCRIPT, options), policy),
      );
    },
    async giveBack(key: string, policy: RateLimitPolicy): Promise<void> {
      const lockout = algorithmOf(policy) === "lockout";
      await run(lockout ? LOCKOUT_GIVE_BACK_SCRIPT : GIVE_BACK_SCRIPT, {
        keys: [prefix + key],
        arguments: [String(policy.limit), String(policy.windowMs)],
      });
    },
    async reset(key) {
      await withTimeout(() => client.del(prefix + key), timeout, {
        store: "Redis",
        what: "rate limit reset",
      });
    },
  };
}
