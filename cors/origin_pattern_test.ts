// Origin patterns: anchored for the user, and stateless. Portable.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { cors, type CorsOrigin } from "@fetchkit/toolkit/cors-middleware";
import { longestMapKey } from "../_tools/map_keys.ts";

/** The Access-Control-Allow-Origin answered to each origin, in order. */
async function answers(
  origin: CorsOrigin,
  origins: string[],
): Promise<(string | null)[]> {
  const router = createRouter({ middleware: [cors({ origin })] });
  router.get("/", () => new Response("ok"));
  const seen: (string | null)[] = [];
  for (const value of origins) {
    const response = await router.fetch(
      new Request("http://api.local/", { headers: { Origin: value } }),
    );
    await response.body?.cancel();
    seen.push(response.headers.get("Access-Control-Allow-Origin"));
  }
  return seen;
}

const APP = "https://app.example";
const EVIL = "https://app.example.evil.example";

Deno.test("cors: an unanchored RegExp is refused when cors() is created", () => {
  for (
    const pattern of [
      /https:\/\/app\.example/,
      /^https:\/\/app\.example/,
      /https:\/\/app\.example$/,
      /\.app\.example$/,
      /^https:\/\/app\.example\$/, // an escaped $ is a character
    ]
  ) {
    assert.throws(() => cors({ origin: pattern }), {
      name: "TypeError",
      message:
        /must match the whole origin: start it with \^ and end it with \$/,
    }, String(pattern));
    assert.throws(() => cors({ origin: [APP, pattern] }), TypeError);
  }
});

Deno.test("cors: each branch of an anchored alternation matches whole origins", async () => {
  const pattern = /^https:\/\/app\.example|https:\/\/other\.example$/;
  assert.deepEqual(
    await answers(pattern, [
      APP,
      EVIL,
      "https://other.example",
      "https://evil.example/https://other.example",
    ]),
    [APP, null, "https://other.example", null],
  );
  // A pattern meant for app.example and its subdomains, in a list.
  assert.deepEqual(
    await answers(
      ["https://b.example", /^https:\/\/([a-z]+\.)?app\.example$/],
      [
        EVIL,
        APP,
        "https://eu.app.example",
      ],
    ),
    [null, APP, "https://eu.app.example"],
  );
});

Deno.test("cors: a RegExp with the g or y flag gives the same answer every time", async () => {
  for (
    const pattern of [/^https:\/\/app\.example$/g, /^https:\/\/app\.example$/y]
  ) {
    const seen = await answers(pattern, [APP, APP, APP, APP, EVIL, APP]);
    assert.deepEqual(seen, [APP, APP, APP, APP, null, APP], String(pattern));
  }
});

Deno.test("cors: other flags are kept; the user's RegExp is not changed", async () => {
  const pattern = /^https:\/\/APP\.example$/gi;
  assert.deepEqual(await answers(pattern, [APP]), [APP]);
  assert.equal(pattern.lastIndex, 0);
  assert.equal(pattern.flags, "gi");
});

Deno.test("cors: a 17 KB Origin is not hashed against the listed origins", async () => {
  const long = "https://" + "a".repeat(17_000) + ".example";
  let seen: (string | null)[] = [];
  const longest = await longestMapKey(async () => {
    seen = await answers([APP, "https://b.example"], [long, APP]);
  });
  assert.deepEqual(seen, [null, APP]);
  assert.ok(
    longest < 100,
    `a Set or Map was asked about ${longest} characters`,
  );
});
