// A 17 KB session cookie value is refused before any Map lookup or HMAC
// over it: V8 hashes strings over 16,383 characters by their length only,
// so long values of one length would all collide in the signer's cache.
// Timing-free: every Map lookup made while reading is recorded (portable:
// runs on Node and Bun too).
import assert from "node:assert/strict";
import type { SessionStorage } from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { longestMapKey } from "../_tools/map_keys.ts";

const cookie = { name: "session", secrets: ["secret".repeat(6)] };

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
