// Params objects carry request data: they must not meet Object.prototype.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { setCodegen, SETTLE } from "../matcher/matcher.ts";

for (const codegen of [true, false]) {
  const mode = codegen ? "generated" : "interpreted";
  Deno.test(`params inherit nothing from Object.prototype (${mode})`, async () => {
    const previous = setCodegen(codegen);
    try {
      const router = createRouter();
      const seen: Record<string, unknown>[] = [];
      const keep = ({ params }: { params: Record<string, unknown> }) => {
        seen.push(params);
        return new Response("ok");
      };
      router.get("/api/animals(/:constructor)", keep);
      router.get("/p/:__proto__/:toString", keep);
      router.get("/w/*hasOwnProperty", keep);
      // Settle the table, so "generated" really runs generated code.
      for (let i = 0; i < SETTLE; i++) {
        await (await router.fetch(new Request("http://localhost/warm"))).text();
      }
      for (
        const path of ["/api/animals", "/api/animals/cat", "/p/x/y", "/w/a/b"]
      ) {
        await (await router.fetch(new Request(`http://localhost${path}`)))
          .text();
      }
      const [none, cat, proto, wild] = seen;
      assert.equal(none.constructor, undefined);
      assert.equal(cat.constructor, "cat");
      assert.equal(proto.__proto__, "x");
      assert.ok(Object.hasOwn(proto, "__proto__"));
      assert.equal(proto.toString, "y");
      assert.equal(wild.hasOwnProperty, "a/b");
      for (const params of seen) {
        assert.equal(
          Object.getPrototypeOf(Object.getPrototypeOf(params)),
          null,
        );
        assert.equal("valueOf" in params, false);
      }
      assert.deepEqual(JSON.parse(JSON.stringify(cat)), { constructor: "cat" });
    } finally {
      setCodegen(previous);
    }
  });
}
