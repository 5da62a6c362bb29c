// What the error boundary logs for errors the client does not see: a 503 or
// 504 (a store or upstream down) is one line naming it and its cause, since
// an outage repeats it for every request; anything else keeps its stack.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { HttpError } from "@fetchkit/toolkit/http-error";

async function logged(error: unknown): Promise<unknown[][]> {
  const router = createRouter();
  router.get("/", () => {
    throw error;
  });
  const calls: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void calls.push(args);
  try {
    const response = await router.fetch(new Request("http://localhost/"));
    await response.body?.cancel();
  } finally {
    console.error = original;
  }
  return calls;
}

Deno.test("error log: a hidden 503 is one line with its cause, no stack", async () => {
  const outage = new HttpError(503, "Redis did not answer within 500 ms", {
    cause: new Error("connect ECONNREFUSED"),
  });
  const calls = await logged(outage);
  assert.deepEqual(calls, [[
    "503 HttpError: Redis did not answer within 500 ms (cause: Error: connect ECONNREFUSED)",
  ]]);
});

Deno.test("error log: a hidden 500 and a plain error keep their stack", async () => {
  const hidden = new HttpError(500, "db failed");
  assert.deepEqual(await logged(hidden), [[hidden]]);
  const plain = new TypeError("boom");
  assert.deepEqual(await logged(plain), [[plain]]);
});
