import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  compilations,
  Matcher,
  setCodegen,
  SETTLE,
} from "../matcher/matcher.ts";

// 5,000 siblings of each shape: dispatched by static prefix, they answer
// like a narrow table would (speed is in bench/router/router_bench.ts).
Deno.test("5,000 sibling routes of every shape match and miss correctly", () => {
  for (const codegen of [true, false]) {
    const previous = setCodegen(codegen);
    try {
      const matcher = new Matcher<string>();
      for (let i = 0; i < 5000; i++) {
        matcher.add("GET", `/p${i}-:x`, `p${i}`);
        matcher.add("GET", `/f${i}x*`, `f${i}`);
        matcher.add("GET", `/s${i}/:x`, `s${i}`);
        matcher.add("GET", `/:x.t${i}`, `t${i}`);
        matcher.add("GET", `/g/*rest.e${i}`, `e${i}`);
      }
      matcher.add("GET", "/p1-a:x", "p1a"); // more static text: ranked first
      matcher.add("GET", "/:y", "y"); // the fallback parameter
      const at = (path: string) => {
        const found = matcher.match("GET", path);
        return found && [found.value, { ...found.params }];
      };
      for (let n = 0; n < 2; n++) { // interpreted, then settled
        assert.deepEqual(at("/p4321-abc"), ["p4321", { x: "abc" }]);
        assert.deepEqual(at("/p1-abc"), ["p1a", { x: "bc" }]);
        assert.deepEqual(at("/p1-zzz"), ["p1", { x: "zzz" }]);
        assert.deepEqual(at("/f99x/a/b"), ["f99", { "*": "/a/b" }]);
        assert.deepEqual(at("/s4999/q"), ["s4999", { x: "q" }]);
        assert.deepEqual(at("/p5000-a"), ["y", { y: "p5000-a" }]);
        assert.equal(at("/s5000/q"), undefined);
        assert.deepEqual(at("/a.b.t77"), ["t77", { x: "a.b" }]);
        assert.deepEqual(at("/g/x/y.e3"), ["e3", { rest: "x/y" }]);
        assert.equal(at("/g/x/y.e5000"), undefined);
        assert.equal(at("/f5000y/z"), undefined);
        for (let i = 0; i < SETTLE; i++) matcher.match("GET", "/x");
      }
    } finally {
      setCodegen(previous);
    }
  }
});

Deno.test("routes added while serving are compiled once per burst, on a settled table", async () => {
  const router = createRouter();
  const before = compilations;
  const started = performance.now();
  // 2,000 add-then-request pairs: each request is served (interpreted)
  // without compiling the whole table again.
  router.get("/posts/:id", ({ params }) => new Response(params.id));
  for (let i = 0; i < 2000; i++) {
    router.get(`/r/${i}`, () => new Response(`${i}`));
    const response = await router.fetch(new Request(`http://x/r/${i}`));
    assert.equal(await response.text(), `${i}`);
  }
  const took = performance.now() - started;
  assert.equal(compilations, before, "no compile while routes keep coming");
  for (let i = 0; i < SETTLE; i++) {
    await (await router.fetch(new Request("http://x/posts/1"))).text();
  }
  assert.equal(
    compilations,
    before + 1,
    `one compile once settled: ${compilations - before}`,
  );
  // Was 13 s when every add recompiled; generous bound for a busy machine.
  assert.ok(took < 5000, `took ${took.toFixed(0)} ms`);
});
