// Every way node-redis gives a command up is an outage (503), by its real
// classes: they set no `name`, and its command timeout has no message.
// Portable: runs on Node and Bun too.
import assert from "node:assert/strict";
import * as redis from "redis";
import { isStoreOutage, toStoreError } from "@fetchkit/toolkit/store";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";

// deno-lint-ignore no-explicit-any
type AnyClass = new (...args: any[]) => Error;

Deno.test("isStoreOutage: every node-redis error that gives a command up", () => {
  const classes = redis as unknown as Record<string, AnyClass>;
  const made: [string, Error][] = [
    ["TimeoutError", new classes.TimeoutError()],
    ["ClientClosedError", new classes.ClientClosedError()],
    ["ClientOfflineError", new classes.ClientOfflineError()],
    ["DisconnectsClientError", new classes.DisconnectsClientError()],
    [
      "SocketClosedUnexpectedlyError",
      new classes.SocketClosedUnexpectedlyError(),
    ],
    ["ConnectionTimeoutError", new classes.ConnectionTimeoutError()],
    ["SocketTimeoutError", new classes.SocketTimeoutError(1000)],
    [
      "ReconnectStrategyError",
      new classes.ReconnectStrategyError(new Error("gave up"), new Error("x")),
    ],
    [
      "SocketTimeoutDuringMaintenanceError",
      new classes.SocketTimeoutDuringMaintenanceError(1000),
    ],
    [
      "CommandTimeoutDuringMaintenanceError",
      new classes.CommandTimeoutDuringMaintenanceError(1000),
    ],
    ["RootNodesUnavailableError", new classes.RootNodesUnavailableError()],
    ["MaxCommandRedirectionsError", new classes.MaxCommandRedirectionsError()],
    [
      "ScanIteratorInterruptedError",
      new classes.ScanIteratorInterruptedError(),
    ],
    // A full command queue (`maxCommandsQueueLength`) is a plain Error.
    ["queue full", new Error("The queue is full")],
  ];
  for (const [what, error] of made) {
    // The trap: nothing in the name, and for a timeout nothing in the text.
    assert.equal(error.name, "Error", what);
    assert.equal(isStoreOutage(error), true, what);
    assert.ok(toStoreError(error, "Redis") instanceof StoreUnavailableError);
  }
  assert.equal(new classes.TimeoutError().message, "");
});

Deno.test("isStoreOutage: Redis/Valkey replies of a server that cannot serve now; not the application's errors", () => {
  const ErrorReply = (redis as unknown as Record<string, AnyClass>).ErrorReply;
  for (
    const text of [
      "CLUSTERDOWN The cluster is down",
      "CLUSTERDOWN Hash slot not served",
      "TRYAGAIN Multiple keys request during rehashing of slot",
      "LOADING Redis is loading the dataset in memory",
      "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
      "READONLY You can't write against a read only replica.",
      "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT.",
      "NOREPLICAS Not enough good replicas to write.",
      "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
      "OOM command not allowed when used memory > 'maxmemory'.",
      "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)",
    ]
  ) {
    assert.equal(isStoreOutage(new ErrorReply(text)), true, text);
  }
  for (
    const text of [
      "ERR wrong number of arguments for 'get' command",
      "WRONGTYPE Operation against a key holding the wrong kind of value",
      "CROSSSLOT Keys in request don't hash to the same slot",
      "NOSCRIPT No matching script. Please use EVAL.",
      "BUSYKEY Target key name already exists.",
      "ERR Error running script: user_script:1: bad argument",
    ]
  ) {
    assert.equal(isStoreOutage(new ErrorReply(text)), false, text);
  }
  // The caller's own abort and a lost WATCH are not outages.
  const classes = redis as unknown as Record<string, AnyClass>;
  assert.equal(isStoreOutage(new classes.AbortError()), false);
  assert.equal(isStoreOutage(new classes.WatchError()), false);
  assert.equal(isStoreOutage(new Error("")), false);
});
