import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serverTiming } from "@fetchkit/toolkit/server-timing-middleware";

// Deno-only: sets the environment.
Deno.test("off by default when DENO_ENV or NODE_ENV is production", async () => {
  for (const name of ["DENO_ENV", "NODE_ENV"]) {
    const before = Deno.env.get(name);
    Deno.env.set(name, "production");
    try {
      const router = createRouter({ middleware: [serverTiming()] });
      router.get("/", () => new Response("ok"));
      const response = await router.fetch(new Request("http://x/"));
      assert.equal(response.headers.get("Server-Timing"), null, name);
      const forced = createRouter({
        middleware: [serverTiming({ enabled: true })],
      });
      forced.get("/", () => new Response("ok"));
      assert.ok(
        (await forced.fetch(new Request("http://x/"))).headers.get(
          "Server-Timing",
        ),
      );
    } finally {
      if (before === undefined) Deno.env.delete(name);
      else Deno.env.set(name, before);
    }
  }
  const router = createRouter({ middleware: [serverTiming()] });
  router.get("/", () => new Response("ok"));
  assert.ok(
    (await router.fetch(new Request("http://x/"))).headers.get("Server-Timing"),
  );
});
