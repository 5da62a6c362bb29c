// S3 file storage's requests in store_operations_total, against a gateway
// on loopback that answers as told (a node:http server, no Ceph needed):
// each request counted once under its S3 action, and each way it ends
// under its outcome. A refusal (403, 404 on a call that expects the key)
// is `error`, a 5xx or throttling or a refused connection `unavailable`,
// the storage's own deadline `timeout`. Portable: node: APIs only, so it
// also runs on Node and Bun through _tools/runtimes/.
import assert from "node:assert/strict";
import { S3Error } from "@fetchkit/toolkit/file-storage";
import {
  createMetricsRegistry,
  metricsHandler,
} from "@fetchkit/toolkit/metrics";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import { gateway, storageAt } from "./_test_gateway.ts";

/** The scrape's `store_operations_total` lines of S3. */
async function s3Lines(scrape: (request: Request) => Response) {
  const text = await scrape(new Request("http://localhost/metrics")).text();
  return text.split("\n").filter((line) =>
    line.startsWith("store_operations_total{") && line.includes('store="S3"')
  );
}

Deno.test("metrics: S3 requests are counted by action, with ok, error, unavailable and timeout", async () => {
  const registry = createMetricsRegistry();
  const scrape = metricsHandler({ registry, process: false });
  const server = await gateway();
  try {
    const storage = storageAt(server.port);
    await storage.set("a.txt", new Blob(["hi"]));
    await storage.set("b.txt", new Blob(["hi"]));
    assert.equal(await storage.has("a.txt"), true);
    // A missing key is the service's answer, not a failure.
    assert.equal(await storage.get("missing.txt"), null);
    await storage.remove("a.txt");
    await storage.list();
    // Signed locally: no request, nothing counted.
    await storage.presign("a.txt", { method: "GET", expiresIn: 60 });
    await assert.rejects(
      storage.set("forbidden.txt", new Blob(["x"])),
      (error) => error instanceof S3Error && error.s3Status === 403,
    );
    await assert.rejects(
      storage.set("busy.txt", new Blob(["x"])),
      StoreUnavailableError,
    );
    await assert.rejects(
      storage.set("hang.txt", new Blob(["x"])),
      /did not answer within 300 ms/,
    );
    assert.deepEqual(await s3Lines(scrape), [
      'store_operations_total{store="S3",operation="PutObject",outcome="ok"} 2',
      'store_operations_total{store="S3",operation="HeadObject",outcome="ok"} 2',
      'store_operations_total{store="S3",operation="DeleteObject",outcome="ok"} 1',
      'store_operations_total{store="S3",operation="ListObjectsV2",outcome="ok"} 1',
      'store_operations_total{store="S3",operation="PutObject",outcome="error"} 1',
      'store_operations_total{store="S3",operation="PutObject",outcome="unavailable"} 1',
      'store_operations_total{store="S3",operation="PutObject",outcome="timeout"} 1',
    ]);
    const text = await scrape(new Request("http://localhost/metrics")).text();
    assert.match(
      text,
      /^store_operation_duration_seconds_count\{store="S3",operation="PutObject"\} 5$/m,
    );
  } finally {
    registry.close();
    await server.close();
  }
});

Deno.test("metrics: an S3 endpoint that refuses the connection counts as unavailable", async () => {
  const registry = createMetricsRegistry();
  const scrape = metricsHandler({ registry, process: false });
  // A port that was free a moment ago: nothing listens on it.
  const server = await gateway();
  const port = server.port;
  await server.close();
  try {
    const storage = storageAt(port);
    await assert.rejects(storage.has("a.txt"), StoreUnavailableError);
    assert.deepEqual(await s3Lines(scrape), [
      'store_operations_total{store="S3",operation="HeadObject",outcome="unavailable"} 1',
    ]);
  } finally {
    registry.close();
  }
});
