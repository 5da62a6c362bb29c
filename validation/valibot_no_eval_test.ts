// Where code from text is refused (a Content-Security-Policy without
// 'unsafe-eval', Workers), valibot schemas are validated by valibot's own
// validate: the same results. Deno only (a child process with V8's flag).
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

Deno.test("valibot compiled: refused code from text falls back to valibot's validate", async () => {
  const script = `
    import * as v from "valibot";
    import { parseParams } from "@fetchkit/toolkit/validation";
    import { compileValibot, validatorOf } from "./validation/_valibot.ts";
    const Id = v.object({ id: v.pipe(v.string(), v.regex(/^[0-9]+$/)) });
    let refused = false;
    try { new Function("return 1"); } catch (error) { refused = error instanceof EvalError; }
    const good = await parseParams({ id: "42", x: "1" }, Id);
    const bad = await parseParams({ id: "x" }, Id);
    console.log(JSON.stringify({
      refused,
      compiled: compileValibot(Id) !== undefined,
      // valibot's own dataset carries typed: true; the compiled path does not
      own: "typed" in validatorOf(Id)({ id: "1" }),
      good,
      bad: bad.fieldErrors,
    }));
  `;
  const root = fileURLToPath(new URL("..", import.meta.url));
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--v8-flags=--disallow-code-generation-from-strings",
      script,
    ],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.ok(output.success, stderr);
  const result = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.deepStrictEqual(result, {
    refused: true,
    compiled: false,
    own: true,
    good: { success: true, value: { id: "42" } },
    bad: { id: ['Invalid format: Expected /^[0-9]+$/ but received "x"'] },
  });
});
