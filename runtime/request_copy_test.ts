import assert from "node:assert/strict";
import { requestWithBody } from "./request_copy.ts";

Deno.test("requestWithBody(): the copy reads its own body (a teed branch), not the original's, and keeps a server's symbols", async () => {
  const original = new Request("http://localhost/auth/register", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: "a@x.example", name: "A" }),
  });
  const serverSet = Symbol("fetchkit.server-set");
  (original as unknown as Record<symbol, unknown>)[serverSet] = "kept";
  const [peek, rest] = original.body!.tee();
  const copy = requestWithBody(original, rest);
  // The peek is read in full, as methodOverride() may.
  assert.equal(await new Response(peek).text(), "email=a%40x.example&name=A");
  // Before the fix, the runtime's internal body symbol came over from the
  // original (whose stream is now teed), so the copy's body read as used.
  assert.equal(copy.bodyUsed, false);
  assert.equal(await copy.text(), "email=a%40x.example&name=A");
  assert.equal((copy as unknown as Record<symbol, unknown>)[serverSet], "kept");
  assert.equal(copy.method, "POST");
  assert.equal(
    copy.headers.get("content-type"),
    original.headers.get("content-type"),
  );
});
