/**
 * The Redis job store: every step of a job is one Lua script on keys
 * that share one hash tag per queue, so it runs alike on one node, a
 * Redis Cluster and Valkey.
 *
 * @module
 */

import {
  type ScriptClient,
  type ScriptOptions,
  scriptRunner,
} from "../store/redis_client.ts";
import type { ClaimedJob, DeadJob, JobStore } from "./store.ts";
import { localListeners } from "./_listeners.ts";

/**
 * The client the store needs: a connected node-redis client
 * (`createClient()`) or cluster client (`createCluster()`); the store
 * only runs scripts (`EVALSHA`, `EVAL` when a node lacks the script).
 */
export type RedisJobClient = ScriptClient;

/** Options of {@linkcode createRedisJobStore}. */
export interface RedisJobStoreOptions {
  /** Prefix of every key. Default `"jobs:"`. */
  prefix?: string;
}

// Keys of queue Q, all in one slot: `<prefix>{Q}` then
//   :w  list of waiting ids (pushed left, claimed from the right)
//   :d  sorted set of delayed ids by runAt
//   :a  sorted set of active ids by lease end
//   :x  sorted set of dead ids by failedAt
//   :j:<id>  hash: n name, p payload, m max attempts, v visibility ms,
//            k key, a attempts made, l lease, e last error, f failedAt
//   :k:<key>  the id holding a de-duplication key

const ADD = `
local b = KEYS[1]
local id, key = ARGV[1], ARGV[7]
if key ~= "" then
  local held = redis.call("GET", b .. ":k:" .. key)
  if held then return {held, 1} end
  redis.call("SET", b .. ":k:" .. key, id)
end
redis.call("HSET", b .. ":j:" .. id, "n", ARGV[2], "p", ARGV[3], "m", ARGV[4],
  "v", ARGV[5], "k", key, "a", 0)
if tonumber(ARGV[6]) > tonumber(ARGV[8]) then
  redis.call("ZADD", b .. ":d", ARGV[6], id)
else
  redis.call("LPUSH", b .. ":w", id)
end
return {id, 0}
`;

// Claims up to `limit` jobs (after putting back those whose lease
// passed); expects `b`, `limit`, `now` and `lease` set.
const CLAIM_BODY = `
local expired = redis.call("ZRANGEBYSCORE", b .. ":a", "-inf", now, "LIMIT", 0, 100)
for _, id in ipairs(expired) do
  redis.call("ZREM", b .. ":a", id)
  local j = b .. ":j:" .. id
  local f = redis.call("HMGET", j, "a", "m")
  if f[1] then
    redis.call("HDEL", j, "l")
    if tonumber(f[1]) >= tonumber(f[2]) then
      redis.call("HSET", j, "e", "lease expired", "f", now)
      redis.call("ZADD", b .. ":x", now, id)
    else
      redis.call("RPUSH", b .. ":w", id)
    end
  end
end
local due = redis.call("ZRANGEBYSCORE", b .. ":d", "-inf", now, "LIMIT", 0, 1000)
for _, id in ipairs(due) do
  redis.call("ZREM", b .. ":d", id)
  redis.call("LPUSH", b .. ":w", id)
end
local out = {}
for i = 1, limit do
  local id = redis.call("RPOP", b .. ":w")
  if not id then break end
  local j = b .. ":j:" .. id
  local f = redis.call("HMGET", j, "n", "p", "m", "v", "a")
  if f[1] then
    local attempt = tonumber(f[5]) + 1
    local leaseUntil = now + tonumber(f[4])
    redis.call("HSET", j, "a", attempt, "l", lease)
    redis.call("ZADD", b .. ":a", leaseUntil, id)
    out[#out + 1] = id
    out[#out + 1] = f[1]
    out[#out + 1] = f[2]
    out[#out + 1] = attempt
    out[#out + 1] = f[3]
    out[#out + 1] = leaseUntil
  end
end
`;

const CLAIM = `
local b = KEYS[1]
local limit, now, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
${CLAIM_BODY}
return out
`;

const FINISH = `
local b, id = KEYS[1], ARGV[1]
local j = b .. ":j:" .. id
if redis.call("HGET", j, "l") ~= ARGV[2] then return 0 end
local key = redis.call("HGET", j, "k")
redis.call("DEL", j)
redis.call("ZREM", b .. ":a", id)
if key and key ~= "" then
  local k = b .. ":k:" .. key
  if redis.call("GET", k) == id then redis.call("PEXPIRE", k, ARGV[3]) end
end
return 1
`;

// FINISH then CLAIM in one round trip (a worker whose job just ended
// takes the next): ARGV id, lease, retention, limit, now, new lease.
const FINISH_CLAIM = `
local b, id = KEYS[1], ARGV[1]
local j = b .. ":j:" .. id
local finished = 0
if redis.call("HGET", j, "l") == ARGV[2] then
  finished = 1
  local key = redis.call("HGET", j, "k")
  redis.call("DEL", j)
  redis.call("ZREM", b .. ":a", id)
  if key and key ~= "" then
    local k = b .. ":k:" .. key
    if redis.call("GET", k) == id then redis.call("PEXPIRE", k, ARGV[3]) end
  end
end
local limit, now, lease = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
${CLAIM_BODY}
table.insert(out, 1, finished)
return out
`;

const FAIL = `
local b, id = KEYS[1], ARGV[1]
local j = b .. ":j:" .. id
if redis.call("HGET", j, "l") ~= ARGV[2] then return 0 end
redis.call("ZREM", b .. ":a", id)
redis.call("HDEL", j, "l")
redis.call("HSET", j, "e", ARGV[3])
if ARGV[4] == "" then
  redis.call("HSET", j, "f", ARGV[5])
  redis.call("ZADD", b .. ":x", ARGV[5], id)
elseif tonumber(ARGV[4]) > tonumber(ARGV[5]) then
  redis.call("ZADD", b .. ":d", ARGV[4], id)
else
  redis.call("LPUSH", b .. ":w", id)
end
return 1
`;

const RELEASE = `
local b, id = KEYS[1], ARGV[1]
local j = b .. ":j:" .. id
if redis.call("HGET", j, "l") ~= ARGV[2] then return 0 end
redis.call("ZREM", b .. ":a", id)
redis.call("HDEL", j, "l")
redis.call("HINCRBY", j, "a", -1)
redis.call("RPUSH", b .. ":w", id)
return 1
`;

const DEAD = `
local b = KEYS[1]
local ids = redis.call("ZREVRANGE", b .. ":x", 0, tonumber(ARGV[1]) - 1)
local out = {}
for _, id in ipairs(ids) do
  local f = redis.call("HMGET", b .. ":j:" .. id, "n", "p", "e", "a", "f")
  if f[1] then
    out[#out + 1] = id
    for i = 1, 5 do out[#out + 1] = f[i] or "" end
  end
end
return out
`;

const RETRY = `
local b, id = KEYS[1], ARGV[1]
if redis.call("ZREM", b .. ":x", id) == 0 then return 0 end
local j = b .. ":j:" .. id
redis.call("HSET", j, "a", 0)
redis.call("HDEL", j, "f")
redis.call("LPUSH", b .. ":w", id)
return 1
`;

const REMOVE = `
local b, id = KEYS[1], ARGV[1]
local j = b .. ":j:" .. id
if redis.call("EXISTS", j) == 0 or redis.call("ZSCORE", b .. ":a", id) then
  return 0
end
local key = redis.call("HGET", j, "k")
if key and key ~= "" and redis.call("GET", b .. ":k:" .. key) == id then
  redis.call("DEL", b .. ":k:" .. key)
end
redis.call("DEL", j)
redis.call("ZREM", b .. ":d", id)
redis.call("ZREM", b .. ":x", id)
redis.call("LREM", b .. ":w", 1, id)
return 1
`;

const COUNTS = `
local b, now = KEYS[1], ARGV[1]
local due = redis.call("ZCOUNT", b .. ":d", "-inf", now)
return {
  redis.call("LLEN", b .. ":w") + due,
  redis.call("ZCARD", b .. ":d") - due,
  redis.call("ZCARD", b .. ":a"),
  redis.call("ZCARD", b .. ":x"),
}
`;

/** The claimed jobs of a CLAIM reply (six fields each). */
function claimedJobs(reply: unknown[], lease: string): ClaimedJob[] {
  const jobs: ClaimedJob[] = [];
  for (let i = 0; i < reply.length; i += 6) {
    jobs.push({
      id: String(reply[i]),
      name: String(reply[i + 1]),
      payload: String(reply[i + 2]),
      attempt: Number(reply[i + 3]),
      maxAttempts: Number(reply[i + 4]),
      lease,
      leaseUntil: Number(reply[i + 5]),
    });
  }
  return jobs;
}

/**
 * Creates a job store on Redis (or Valkey): one node, or a Redis Cluster
 * through a node-redis cluster client. A queue's keys share the hash tag
 * `{queue name}`, so each queue lives on one master of a cluster (spread
 * queues, not jobs, across masters), and each step (add, claim, finish,
 * fail, hand back) is one Lua script: atomic, one round trip. Waiting
 * jobs are a list, delayed, active and dead ones sorted sets; a job is a
 * hash of its payload and state (about 300 bytes beside the payload,
 * see BENCHMARKS.md). Idle workers ask every `pollMs`; a worker whose
 * job just ended finishes it and claims the next in one script.
 *
 * Give the client `disableOfflineQueue: true`: node-redis otherwise
 * keeps commands made while disconnected and runs them once it is back,
 * after the store call's time limit gave up on them, and a claim run
 * then holds its jobs until their visibility timeout.
 *
 * @example
 * ```ts ignore
 * import { createClient } from "redis";
 * import { createJobQueue, createRedisJobStore } from "@fetchkit/toolkit/jobs";
 *
 * const client = await createClient({ url: "redis://127.0.0.1:6379" }).connect();
 * const queue = createJobQueue({ store: createRedisJobStore(client) });
 * queue.define("noop", () => {});
 * await queue.enqueue("noop", {});
 * ```
 *
 * @param client A connected node-redis client or cluster client.
 * @param options The key prefix.
 * @returns The store.
 */
export function createRedisJobStore(
  client: RedisJobClient,
  options: RedisJobStoreOptions = {},
): JobStore {
  if (client === null || typeof client !== "object") {
    throw new TypeError("createRedisJobStore(): a Redis client is required");
  }
  const prefix = options.prefix ?? "jobs:";
  const run = scriptRunner(client);
  const listeners = localListeners();
  const script = (
    source: string,
    queue: string,
    args: (string | number)[],
  ): Promise<unknown> => {
    const scriptOptions: ScriptOptions = {
      keys: [`${prefix}{${queue}}`],
      arguments: args.map(String),
    };
    return run(source, scriptOptions);
  };
  const yes = (reply: unknown) => Number(reply) === 1;

  return {
    kind: "Redis",
    async add(queue, job) {
      const reply = await script(ADD, queue, [
        job.id,
        job.name,
        job.payload,
        job.maxAttempts,
        job.visibilityMs,
        job.runAt,
        job.key ?? "",
        Date.now(),
      ]) as [string, number];
      const duplicate = Number(reply[1]) === 1;
      if (!duplicate) listeners.notify(queue);
      return { id: String(reply[0]), duplicate };
    },
    async claim(queue, limit, now) {
      // One lease token per claim call: each job's own hash holds it.
      const lease = crypto.randomUUID();
      const reply = await script(CLAIM, queue, [
        limit,
        now,
        lease,
      ]) as unknown[];
      const jobs = claimedJobs(reply, lease);
      return jobs;
    },
    async finish(queue, id, lease, keyRetentionMs) {
      return yes(
        await script(FINISH, queue, [id, lease, Math.ceil(keyRetentionMs)]),
      );
    },
    async finishAndClaim(queue, id, lease, keyRetentionMs, now, limit) {
      const next = crypto.randomUUID();
      const reply = await script(FINISH_CLAIM, queue, [
        id,
        lease,
        Math.ceil(keyRetentionMs),
        limit,
        now,
        next,
      ]) as unknown[];
      return {
        finished: Number(reply[0]) === 1,
        claimed: claimedJobs(reply.slice(1), next),
      };
    },
    async fail(queue, id, lease, failure) {
      return yes(
        await script(FAIL, queue, [
          id,
          lease,
          failure.error,
          failure.retryAt ?? "",
          failure.now,
        ]),
      );
    },
    async release(queue, id, lease) {
      const ok = yes(await script(RELEASE, queue, [id, lease]));
      if (ok) listeners.notify(queue);
      return ok;
    },
    async dead(queue, limit) {
      const reply = await script(DEAD, queue, [limit]) as unknown[];
      const jobs: DeadJob[] = [];
      for (let i = 0; i < reply.length; i += 6) {
        jobs.push({
          id: String(reply[i]),
          name: String(reply[i + 1]),
          payload: String(reply[i + 2]),
          error: String(reply[i + 3]),
          attempts: Number(reply[i + 4]),
          failedAt: Number(reply[i + 5]),
        });
      }
      return jobs;
    },
    async retry(queue, id) {
      const ok = yes(await script(RETRY, queue, [id]));
      if (ok) listeners.notify(queue);
      return ok;
    },
    async remove(queue, id) {
      return yes(await script(REMOVE, queue, [id]));
    },
    async counts(queue, now) {
      const reply = await script(COUNTS, queue, [now]) as number[];
      return {
        waiting: Number(reply[0]),
        delayed: Number(reply[1]),
        active: Number(reply[2]),
        dead: Number(reply[3]),
      };
    },
    subscribe: listeners.subscribe,
  };
}
