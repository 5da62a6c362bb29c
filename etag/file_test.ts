// Deno-only (Deno.open): a file streamed by a handler with its size as
// Content-Length is tagged on every request, whatever the disk's timing.
// Before, whether its chunks were "at hand" decided, and runs differed.

import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { etag } from "@fetchkit/toolkit/etag-middleware";

Deno.test("etag: a file with its Content-Length is tagged on 100 of 100 requests, at every size", async () => {
  for (const size of [0, 5000, 70_000, 200_000]) {
    const path = await Deno.makeTempFile();
    try {
      await Deno.writeFile(path, new Uint8Array(size).fill(97));
      const router = createRouter({ middleware: [etag()] });
      router.get("/file", async () => {
        const file = await Deno.open(path);
        const { size } = await file.stat();
        return new Response(file.readable, {
          headers: {
            "Content-Type": "text/plain",
            "Content-Length": String(size),
          },
        });
      });
      const tags = new Set<string | null>();
      for (let i = 0; i < 100; i++) {
        const response = await router.fetch(new Request("http://x/file"));
        tags.add(response.headers.get("ETag"));
        assert.equal((await response.arrayBuffer()).byteLength, size);
      }
      assert.equal(tags.size, 1, `${size} bytes: ${[...tags]}`);
      assert.ok(!tags.has(null), `${size} bytes: tagged`);
    } finally {
      await Deno.remove(path);
    }
  }
});
