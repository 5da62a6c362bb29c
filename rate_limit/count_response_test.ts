// countResponse on the memory store (portable: runs on Node and Bun too).
import assert from "node:assert/strict";
import {
  createMemoryRateLimitStore,
  rateLimit,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { countResponseSuite } from "./_count_response_suite.ts";

for (const algorithm of ["gcra", "lockout"] as const) {
  countResponseSuite("memory", () =>
    Promise.resolve({
      store: createMemoryRateLimitStore(),
      close() {},
    }), algorithm);
}

Deno.test("countResponse: refused without a store that can give back, or when not a function", () => {
  const memory = createMemoryRateLimitStore();
  const store: RateLimitStore = {
    hit: (key, policy) => memory.hit(key, policy),
    reset: (key) => memory.reset(key),
  };
  assert.throws(
    () =>
      rateLimit({ limit: 1, windowMs: 1000, store, countResponse: () => true }),
    {
      name: "TypeError",
      message:
        "rateLimit(): countResponse needs a store with giveBack(key, policy); this store has none",
    },
  );
  assert.throws(
    () =>
      rateLimit({
        limit: 1,
        windowMs: 1000,
        countResponse: true as unknown as () => boolean,
      }),
    /countResponse must be a function/,
  );
});
