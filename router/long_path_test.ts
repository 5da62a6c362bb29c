// A path longer than every static route is never hashed: V8 hashes strings
// over 16,383 characters by their length alone, so 17 KB paths would all
// collide in the static Map. Counted through Map lookups, not timed.
// Portable (Deno, Node, Bun).
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { setCodegen, SETTLE } from "../matcher/matcher.ts";
import { STATIC_WIDE } from "../matcher/trie.ts";
import { longestMapKey } from "../_tools/map_keys.ts";

const LONG = "/" + "a".repeat(17_000);

function app() {
  const router = createRouter();
  router.get("/", () => new Response("home"));
  router.get("/about", () => new Response("about"));
  router.get("/users/:id", ({ params }) => new Response(params.id));
  // Wide enough that the interpreter looks segments up in a Map.
  for (let i = 0; i <= STATIC_WIDE; i++) {
    router.get(`/wide/s${i}/:id`, () => new Response(String(i)));
  }
  return router;
}

async function status(
  router: ReturnType<typeof createRouter>,
  path: string,
): Promise<number> {
  const response = await router.fetch(new Request(`http://localhost${path}`));
  await response.body?.cancel();
  return response.status;
}

for (const codegen of [true, false]) {
  Deno.test(`router: a 17 KB path reaches no Map lookup (${codegen ? "generated" : "interpreted"})`, async () => {
    const previous = setCodegen(codegen);
    try {
      const router = app();
      // Past SETTLE lookups the generated matcher (when on) answers.
      for (let i = 0; i < SETTLE + 1; i++) await status(router, "/about");
      const paths = [
        LONG,
        "/wide/s" + "1".repeat(17_000) + "/x",
        "/users" + LONG,
      ];
      const statuses: number[] = [];
      const longest = await longestMapKey(async () => {
        for (const path of paths) statuses.push(await status(router, path));
      });
      assert.deepEqual(statuses, [404, 404, 200]);
      // The longest key any Map saw: at most the longest route text.
      assert.ok(
        longest < 100,
        `a Map was asked about a ${longest}-character key`,
      );
      // Routes still match.
      assert.equal(await status(router, "/about"), 200);
      assert.equal(await status(router, "/wide/s7/x"), 200);
    } finally {
      setCodegen(previous);
    }
  });
}
