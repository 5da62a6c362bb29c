// Deno KV on a full disk: a KV file on a real 1 MB tmpfs (mounted in a user
// and mount namespace with `unshare`, so no privileges are needed), where
// SQLite answers "database or disk is full", a TypeError. Sessions and
// the rate limiter answer 503 with Retry-After, never 500, and the server
// keeps serving.
import assert from "node:assert/strict";
import { fullDiskOrSkip, startOnFullDisk } from "../_tools/full_disk.ts";

const canMount = await fullDiskOrSkip("the full-disk tests");

Deno.test({
  name:
    "Deno KV on a full disk: session saves and rate-limit counts answer 503 with Retry-After, never 500; the server keeps serving",
  ignore: !canMount,
  async fn() {
    const server = await startOnFullDisk(
      new URL("./_disk_full_server.ts", import.meta.url),
      "kv-full-",
    );
    try {
      const origin = server.origin;

      const statuses = new Map<number, number>();
      let full: Response | undefined;
      for (let i = 0; i < 400 && full === undefined; i++) {
        const response = await fetch(`${origin}/fill`, { method: "POST" });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 200) await response.body?.cancel();
        else full = response;
      }
      assert.ok(
        full,
        `the disk never filled: ${JSON.stringify([...statuses])}`,
      );
      assert.equal(full.status, 503, JSON.stringify([...statuses]));
      assert.equal(full.headers.get("retry-after"), "5");
      assert.match(await full.text(), /^Service Unavailable/);
      assert.ok(statuses.get(200)! > 10, "sessions were saved before");

      // New rate-limit keys need new entries (small ones may still fit in
      // what is left): the first refused one is a 503 too, not a 500.
      let limited: Response | undefined;
      for (let i = 0; i < 5000 && limited === undefined; i++) {
        const response = await fetch(`${origin}/limited?key=k${i}`);
        if (response.status === 200) await response.body?.cancel();
        else limited = response;
      }
      assert.equal(limited?.status, 503);
      assert.equal(limited.headers.get("retry-after"), "5");
      await limited.body?.cancel();
      const ping = await fetch(`${origin}/ping`);
      assert.equal(await ping.text(), "pong");
    } finally {
      const log = await server.stop();
      // The store's own words reached the log: it really was a full disk.
      assert.match(log, /database or disk is full/);
    }
  },
});
