/**
 * The one seam between the Redis-backed stores (sessions, rate limits,
 * caches and idempotency keys, pub/sub) and a Redis client: a node-redis
 * client (`createClient()`) or cluster client (`createCluster()`, from the
 * same `redis` package) given as the same `client` option. What differs on
 * a cluster is handled here, once:
 *
 * - a command goes to the node serving its key's slot: the cluster
 *   client's `sendCommand(firstKey, isReadonly, args)` against the single
 *   client's `sendCommand(args)`;
 * - a script may only touch keys of one slot: {@linkcode hashSlot} and
 *   {@linkcode sameSlot} let a store check before it sends;
 * - scripts go by their SHA-1 (`EVALSHA`) and by their text only when a
 *   node does not know them yet (each master of a cluster has its own
 *   script cache);
 * - a blocking read needs a connection of its own, which on a cluster
 *   is a cluster client of its own, so that it follows failovers.
 *
 * Internal to the package (the stores import it); not exported.
 *
 * @module
 */

import type { Buffer } from "node:buffer";
import { StoreUnavailableError } from "./errors.ts";

/** Keys and arguments of `EVAL`/`EVALSHA`, as node-redis takes them. */
export interface ScriptOptions {
  /** `KEYS` of the script: all in one hash slot on a cluster. */
  keys: string[];
  /** `ARGV` of the script. */
  arguments: (string | Buffer)[];
}

/** What a store needs to run scripts: `eval`, and `evalSha` if it has it. */
export interface ScriptClient {
  /** `EVAL script numkeys keys... args...`. */
  // deno-lint-ignore no-explicit-any
  eval(script: string, options: any): Promise<unknown>;
  /** `EVALSHA sha1 ...`: optional; with it a script's text is sent once per node. */
  // deno-lint-ignore no-explicit-any
  evalSha?(sha1: string, options: any): Promise<unknown>;
}

/** Options of one command: node-redis' own timeout for it, in ms. */
export interface SendOptions {
  /** Overrides the client's command timeout (node-redis: 5 s by default). */
  timeout?: number;
}

/** A single client's `sendCommand`. */
export interface SingleSender {
  sendCommand(args: string[], options?: SendOptions): Promise<unknown>;
}

/** A cluster client's `sendCommand`: routed by its first key. */
export interface ClusterSender {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
    options?: SendOptions,
  ): Promise<unknown>;
  /** node-redis' cluster client has it; a single client does not. */
  getSlotMaster(slot: number): unknown;
  /** The client of a node (node-redis 4 and later). */
  nodeClient?(node: unknown): Promise<unknown>;
  /** The client of the node serving `key` (node-redis 6). */
  getNodeClientForKey?(key: string): Promise<unknown>;
}

/**
 * Whether `client` is a cluster client (node-redis' `createCluster()`):
 * it routes commands by key and knows the slots' masters.
 */
export function isRedisCluster(client: unknown): client is ClusterSender {
  return client !== null && typeof client === "object" &&
    typeof (client as { getSlotMaster?: unknown }).getSlotMaster ===
      "function" &&
    typeof (client as { sendCommand?: unknown }).sendCommand === "function";
}

const encoder = new TextEncoder();

/** CRC-16/XMODEM, the checksum Redis Cluster hashes keys with. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    }
    crc &= 0xffff;
  }
  return crc;
}

/**
 * The Redis Cluster hash slot of `key` (0 to 16383): of the part between
 * the first `{` and the next `}` when that part is not empty (a hash
 * tag), else of the whole key. Keys with one tag share a slot.
 */
export function hashSlot(key: string): number {
  let bytes = encoder.encode(key);
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  }
  return crc16(bytes) % 16384;
}

/** Whether every key of `keys` hashes to one slot. */
export function sameSlot(keys: readonly string[]): boolean {
  const first = hashSlot(keys[0]);
  return keys.every((key) => hashSlot(key) === first);
}

/**
 * `n` hash tags (`{…}` contents) whose slots are spread evenly over the
 * 16384 slots: tag `i` falls in slot range `i * 16384 / n` and up, so
 * whatever way a cluster splits its slots among masters, keys tagged with
 * them spread alike.
 */
export function spreadTags(n: number): string[] {
  const tags: string[] = [];
  const width = 16384 / n;
  for (let i = 0; i < n; i++) {
    for (let candidate = 0;; candidate++) {
      const tag = `s${candidate}`;
      const slot = hashSlot(`{${tag}}`);
      if (slot >= i * width && slot < (i + 1) * width) {
        tags.push(tag);
        break;
      }
    }
  }
  return tags;
}

/**
 * Sends raw commands through a single or a cluster client: on a cluster
 * routed by `key` (the command's first key; `undefined` for any node).
 */
export function commandSender(
  client: SingleSender | ClusterSender,
): (
  key: string | undefined,
  args: string[],
  options?: SendOptions,
) => Promise<unknown> {
  if (isRedisCluster(client)) {
    return (key, args, options) =>
      client.sendCommand(key, false, args, options);
  }
  const single = client as SingleSender;
  return (_key, args, options) => single.sendCommand(args, options);
}

/**
 * The connection a command about `key` travels on: the client itself,
 * or on a cluster the client of the master serving `key`'s slot now.
 * For commands that must reach one node and name no key the cluster
 * client could route by (`CLIENT ID`, `CLIENT UNBLOCK`: node-redis sends
 * keyless commands to any node).
 */
export function nodeFor(
  client: SingleSender | ClusterSender,
): (key: string) => Promise<SingleSender> {
  if (!isRedisCluster(client)) {
    const single = client as SingleSender;
    return () => Promise.resolve(single);
  }
  return async (key) => {
    if (typeof client.getNodeClientForKey === "function") {
      return await client.getNodeClientForKey(key) as SingleSender;
    }
    return await client.nodeClient!(
      client.getSlotMaster(hashSlot(key)),
    ) as SingleSender;
  };
}

async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", encoder.encode(text));
  return Array.from(
    new Uint8Array(digest),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
}

/**
 * A function that runs a Lua script on `client` by its SHA-1 (`EVALSHA`),
 * sending its text (`EVAL`) only when the node answers `NOSCRIPT` (a
 * restarted server, a new master after a failover, a node of a cluster
 * that has not run it yet). A client without `evalSha` gets `EVAL`.
 * On a cluster the script goes to the node of `options.keys[0]`; every
 * key must be in that slot.
 */
export function scriptRunner(
  client: ScriptClient,
): (script: string, options: ScriptOptions) => Promise<unknown> {
  const shas = new Map<string, string>();
  return async (script, options) => {
    if (typeof client.evalSha !== "function") {
      return await client.eval(script, options);
    }
    let sha = shas.get(script);
    if (sha === undefined) shas.set(script, sha = await sha1Hex(script));
    try {
      return await client.evalSha(sha, options);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes("NOSCRIPT")) {
        throw error;
      }
      return await client.eval(script, options);
    }
  };
}

/** A connection for blocking reads, as the stores use it. */
export interface BlockingConnection {
  /** Connects. */
  connect(): Promise<unknown>;
  /** Closes at once. */
  destroy(): void;
  /** node-redis emits `"error"` when the connection drops. */
  on?(event: "error", listener: (error: unknown) => void): unknown;
}

/** A client that can open another connection like itself. */
export interface Duplicable {
  // deno-lint-ignore no-explicit-any
  duplicate(overrides?: any): BlockingConnection;
}

/**
 * Opens a connection of its own for blocking reads, like `client`: a
 * single client's duplicate, or on a cluster a cluster client of its own
 * (connecting to a node only when a read needs it), so a read blocked on
 * one node holds no connection another caller needs, and a read after a
 * failover finds the new master (once the old connection is dropped).
 * Its `node(key)` is the connection to the node serving `key`, as
 * {@linkcode nodeFor} gives it: a blocking read and the `CLIENT ID` of
 * the connection it blocks go there.
 */
export function duplicateForBlocking(
  client: Duplicable & (SingleSender | ClusterSender),
): {
  connection: BlockingConnection;
  node: (key: string) => Promise<SingleSender>;
} {
  const connection = isRedisCluster(client)
    ? client.duplicate({ minimizeConnections: true })
    : client.duplicate();
  return {
    connection,
    node: nodeFor(connection as unknown as SingleSender | ClusterSender),
  };
}

/**
 * How a Redis store confirms its security-relevant writes (a sign-out, a
 * regenerated session id, the rate-limit count that refuses, an
 * idempotency claim or answer), as each Redis store's options spell it:
 *
 * - `"replica"`: after the write, `WAIT 1 <replicaTimeout>` on the
 *   connection that made it (on a cluster, sent to the master that owns
 *   the key): the write is confirmed only once a replica has it; when
 *   none confirms in time the call fails with a `StoreUnavailableError`
 *   (503). Default for a cluster client.
 * - `"replica-aof"`: as `"replica"`, with `WAITAOF 0 1 <replicaTimeout>`:
 *   a replica has also written it to its append-only file (fsync per its
 *   `appendfsync`). Needs Redis or Valkey 7.2 or later and replicas with
 *   `appendonly yes`.
 * - `"none"`: confirmed once the master has it (Redis replicates
 *   asynchronously). Default for a one-node client.
 */
export interface ReplicaWaitOptions {
  /** `"replica"` (default on a cluster client), `"replica-aof"` or `"none"` (default otherwise). */
  durability?: "replica" | "replica-aof" | "none";
  /** Milliseconds `WAIT` gives a replica to confirm. Default 1000. */
  replicaTimeout?: number;
}

/** Default of `replicaTimeout`, in ms. */
export const DEFAULT_REPLICA_TIMEOUT_MS = 1000;

/**
 * Waits until a replica confirms the writes made so far on the
 * connection of `key` (the write just made); `what` names the write for
 * the error.
 */
export type ReplicaWait = (key: string, what: string) => Promise<void>;

/**
 * The replica wait of a store made with `options` on `client`, or
 * `undefined` when its writes are confirmed by the master alone
 * (`durability: "none"`, the default for a one-node client).
 *
 * `WAIT` counts the replicas that have every write of the connection it
 * is sent on, so it goes on the connection the write went on: the
 * single client's, or on a cluster the connection to the master serving
 * `key` (routed by `key`, as the write was). It blocks that connection
 * (and the commands queued behind it on the same connection) for up to
 * `replicaTimeout` ms when no replica answers.
 *
 * @throws {TypeError} When `durability` is neither value, or is
 *   `"replica"` with a client that has no `sendCommand`.
 * @throws {RangeError} When `replicaTimeout` is not a finite number >= 1.
 */
export function replicaWaiter(
  client: unknown,
  options: ReplicaWaitOptions,
  owner: string,
): ReplicaWait | undefined {
  const cluster = isRedisCluster(client);
  const durability = options.durability ?? (cluster ? "replica" : "none");
  if (
    durability !== "replica" && durability !== "replica-aof" &&
    durability !== "none"
  ) {
    throw new TypeError(
      `${owner}: durability must be "replica", "replica-aof" or "none", got ${
        JSON.stringify(durability)
      }`,
    );
  }
  const ms = options.replicaTimeout ?? DEFAULT_REPLICA_TIMEOUT_MS;
  if (typeof ms !== "number" || !Number.isFinite(ms) || !(ms >= 1)) {
    throw new RangeError(
      `${owner}: replicaTimeout must be a finite number >= 1, got ${ms}`,
    );
  }
  if (durability === "none") return undefined;
  if (
    client === null || typeof client !== "object" ||
    typeof (client as { sendCommand?: unknown }).sendCommand !== "function"
  ) {
    throw new TypeError(
      `${owner}: durability "${durability}" needs a client with sendCommand (node-redis); ` +
        'pass durability: "none" for a client without it',
    );
  }
  const send = commandSender(client as SingleSender | ClusterSender);
  const aof = durability === "replica-aof";
  const args = aof
    ? ["WAITAOF", "0", "1", String(Math.ceil(ms))]
    : ["WAIT", "1", String(Math.ceil(ms))];
  const command = args.join(" ");
  return async (key, what) => {
    let reply: unknown;
    try {
      reply = await send(key, args);
    } catch (error) {
      if (
        aof && error instanceof Error && /unknown command/i.test(error.message)
      ) {
        throw new TypeError(
          `${owner}: durability "replica-aof" needs WAITAOF (Redis or Valkey 7.2 or later); this server answered: ${error.message}`,
          { cause: error },
        );
      }
      throw error;
    }
    // WAITAOF answers [local fsyncs, replica fsyncs].
    const confirmed = Number(aof && Array.isArray(reply) ? reply[1] : reply);
    if (confirmed >= 1) return;
    throw new StoreUnavailableError(
      "Redis",
      `Redis: no replica confirmed the ${what} within ${ms} ms ` +
        `(${command} answered ${JSON.stringify(reply)}); the master ` +
        "has it but would lose it in a failover, so it is not confirmed " +
        `(durability "${durability}")`,
      { cause: reply },
    );
  };
}
