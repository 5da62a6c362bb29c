// The seam's pure parts: Redis Cluster's hash slot of a key (CRC16/XMODEM
// of the key or its hash tag) and the evenly spread tags. (Against a real
// cluster's CLUSTER KEYSLOT: session/redis_cluster_test.ts.) Portable.
import assert from "node:assert/strict";
import {
  hashSlot,
  replicaWaiter,
  sameSlot,
  spreadTags,
} from "./redis_client.ts";
import { StoreUnavailableError } from "./errors.ts";

Deno.test("hashSlot: Redis Cluster's slots, hash tags as Redis reads them", () => {
  // CRC16/XMODEM's check value: "123456789" -> 0x31C3.
  assert.equal(hashSlot("123456789"), 0x31c3);
  assert.equal(hashSlot("foo"), 12182);
  assert.equal(hashSlot("{foo}bar"), hashSlot("foo"));
  assert.equal(hashSlot("a{foo}b{bar}"), hashSlot("foo"));
  // An empty tag does not count: the whole key is hashed.
  assert.notEqual(hashSlot("{}foo"), hashSlot("foo"));
  assert.equal(hashSlot("foo{"), hashSlot("foo{"));
  assert.ok(sameSlot(["{s}:a", "{s}:b", "x{s}"]));
  assert.ok(!sameSlot(["a", "b"]));
});

Deno.test("spreadTags: one tag per equal range of slots", () => {
  const tags = spreadTags(16);
  assert.equal(new Set(tags).size, 16);
  tags.forEach((tag, i) => {
    const slot = hashSlot(`{${tag}}`);
    assert.ok(slot >= i * 1024 && slot < (i + 1) * 1024, `${tag}: ${slot}`);
  });
});

Deno.test("replicaWaiter: on by default for a cluster client, WAIT routed by the written key", async () => {
  const sent: [string | undefined, boolean | undefined, string[]][] = [];
  let reply: unknown = 1;
  const cluster = {
    getSlotMaster: () => ({}),
    sendCommand(
      key: string | undefined,
      readonly: boolean | undefined,
      args: string[],
    ) {
      sent.push([key, readonly, args]);
      return Promise.resolve(reply);
    },
  };
  const wait = replicaWaiter(cluster, {}, "test");
  assert.ok(wait !== undefined, "on for a cluster client");
  await wait("session:abc", "sign-out");
  assert.deepEqual(sent, [["session:abc", false, ["WAIT", "1", "1000"]]]);
  reply = 0;
  await assert.rejects(
    wait("session:abc", "sign-out"),
    (error: unknown) =>
      error instanceof StoreUnavailableError && error.status === 503 &&
      /no replica confirmed the sign-out within 1000 ms \(WAIT 1 1000 answered 0\)/
        .test(error.message),
  );
  assert.equal(
    replicaWaiter(cluster, { durability: "none" }, "test"),
    undefined,
  );
});

Deno.test("replicaWaiter: off by default for one node; on when asked", async () => {
  const sent: string[][] = [];
  const single = {
    sendCommand(args: string[]) {
      sent.push(args);
      return Promise.resolve(1);
    },
  };
  assert.equal(replicaWaiter(single, {}, "test"), undefined);
  const wait = replicaWaiter(
    single,
    { durability: "replica", replicaTimeout: 250 },
    "test",
  );
  await wait!("k", "write");
  assert.deepEqual(sent, [["WAIT", "1", "250"]]);
  assert.throws(
    () => replicaWaiter({}, { durability: "replica" }, "makeStore"),
    /makeStore: durability "replica" needs a client with sendCommand/,
  );
});

Deno.test('replicaWaiter: "replica-aof" sends WAITAOF 0 1 and reads the replicas\' count', async () => {
  const sent: string[][] = [];
  let reply: unknown = [0, 1];
  const single = {
    sendCommand(args: string[]) {
      sent.push(args);
      return Promise.resolve(reply);
    },
  };
  const wait = replicaWaiter(
    single,
    { durability: "replica-aof", replicaTimeout: 250 },
    "test",
  )!;
  await wait("k", "write");
  assert.deepEqual(sent, [["WAITAOF", "0", "1", "250"]]);
  reply = [1, 0];
  await assert.rejects(wait("k", "write"), StoreUnavailableError);
});
