// `--runtime=` of `deno task deploy:local`: one runtime for all three
// instances, or one each; anything else is refused with what was wrong.
import assert from "node:assert/strict";
import { parseRuntimes } from "./runtimes.ts";

Deno.test("--runtime=node runs all three instances on Node", () => {
  assert.deepEqual(parseRuntimes("node"), ["node", "node", "node"]);
  assert.deepEqual(parseRuntimes("deno"), ["deno", "deno", "deno"]);
});

Deno.test("--runtime=node,deno,node gives each instance its own runtime", () => {
  assert.deepEqual(parseRuntimes("node, deno,node"), ["node", "deno", "node"]);
});

Deno.test("--runtime refuses an unknown runtime, naming it", () => {
  assert.throws(
    () => parseRuntimes("node,bun,deno"),
    new TypeError('--runtime: each runtime must be deno or node, got "bun"'),
  );
});

Deno.test("--runtime refuses a list that is not one runtime or three", () => {
  assert.throws(
    () => parseRuntimes("node,deno"),
    new RangeError("--runtime: one runtime or three (one per instance), got 2"),
  );
});
