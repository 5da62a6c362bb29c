// A 17 KB session cookie value is refused before any Map lookup or HMAC
// over it: V8 hashes strings over 16,383 characters by their length only,
// so long values of one length would all collide in the signer's cache.
// Timing-free: every Map lookup made while reading is recorded (portable:
// runs on Node and Bun too).
import assert from "node:assert/strict";
import type { SessionStorage } from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";

const cookie = { name: "session", secrets: ["secret".repeat(6)] };

/** The longest string key given to Map get/has/set while `fn` runs. */
async function longestMapKey(fn: () => Promise<unknown>): Promise<number> {
  const methods = ["get", "has", "set"] as const;
  const originals = methods.map((name) => Map.prototype[name]);
  let longest = 0;
  methods.forEach((name, i) => {
    const original = originals[i] as (...args: unknown[]) => unknown;
    (Map.prototype as unknown as Record<string, unknown>)[name] = function (
      this: Map<unknown, unknown>,
      ...args: unknown[]
    ) {
      if (typeof args[0] === "string" && args[0].length > longest) {
        longest = args[0].length;
      }
      return original.apply(this, args);
    };
  });
  try {
    await fn();
  } finally {
    methods.forEach((name, i) => {
      (Map.prototype as unknown as Record<string, unknown>)[name] =
        originals[i];
    });
  }
  return longest;
}

const stores: [string, SessionStorage, number][] = [
  ["memory (a signed id)", createMemorySessionStorage({ cookie }), 68],
  ["cookie (signed data)", createCookieSessionStorage({ cookie }), 4096],
];

for (const [label, storage, bound] of stores) {
  Deno.test(`session cookie, ${label}: a 17 KB value is refused before any lookup of it`, async () => {
    // A genuine cookie still works.
    const session = await storage.read(null);
    session.set("n", 1);
    const genuine = (await storage.save(session))!.split(";")[0];
    assert.equal((await storage.read(genuine)).get("n"), 1);

    for (
      const value of [
        "a".repeat(17_000),
        "a".repeat(16_957) + "." + "A".repeat(43),
      ]
    ) {
      const longest = await longestMapKey(async () => {
        const read = await storage.read(`session=${value}`);
        assert.equal(read.get("n"), undefined);
      });
      assert.ok(
        longest <= bound,
        `a Map was asked about a ${longest}-character string (bound ${bound})`,
      );
    }
  });
}
