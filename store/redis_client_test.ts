// The seam's pure parts: Redis Cluster's hash slot of a key (CRC16/XMODEM
// of the key or its hash tag) and the evenly spread tags. (Against a real
// cluster's CLUSTER KEYSLOT: session/redis_cluster_test.ts.) Portable.
import assert from "node:assert/strict";
import { hashSlot, sameSlot, spreadTags } from "./redis_client.ts";

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
