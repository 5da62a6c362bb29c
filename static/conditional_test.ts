// Preconditions (RFC 9110 §13.1.1, §13.1.4, order of §13.2.2) and the
// nosniff header of serveStatic().

import assert from "node:assert/strict";
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import { type Fixture, makeFixture } from "./_test_fixture.ts";

const fixture: Fixture = await makeFixture();
globalThis.addEventListener("unload", () => {
  Deno.removeSync(fixture.dir, { recursive: true });
});

const router: Router = createRouter({
  middleware: [serveStatic({ root: fixture.root })],
});

async function get(
  headers: Record<string, string>,
  init: { method?: string; path?: string } = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await router.fetch(
    new Request(`http://localhost${init.path ?? "/app.css"}`, {
      method: init.method ?? "GET",
      headers,
    }),
  );
  return {
    status: response.status,
    headers: response.headers,
    text: await response.text(),
  };
}

const { mtime } = await Deno.stat(`${fixture.root}/app.css`);
const etag = (await get({})).headers.get("ETag")!;
const before = new Date(mtime!.getTime() - 60_000).toUTCString();
const after = new Date(mtime!.getTime() + 60_000).toUTCString();

Deno.test("serveStatic: If-Match that lists the entity tag or * serves the file", async () => {
  // An empty If-Match lists nothing and is ignored, as in Go.
  for (const value of [etag, `"x", ${etag}`, "*", ` ${etag} `, ""]) {
    const response = await get({ "If-Match": value });
    assert.equal(response.status, 200, value);
    assert.equal(response.text, "body{margin:0}");
  }
});

Deno.test("serveStatic: If-Match that does not match is 412, weak tags included", async () => {
  for (const value of ['"stale"', `W/${etag}`, '"a", "b"']) {
    for (const method of ["GET", "HEAD"]) {
      const response = await get({ "If-Match": value }, { method });
      assert.equal(response.status, 412, `${method} ${value}`);
      assert.equal(response.headers.get("ETag"), etag);
      assert.equal(
        response.headers.get("X-Content-Type-Options"),
        "nosniff",
      );
      assert.equal(
        response.text,
        method === "GET" ? "Precondition Failed" : "",
      );
    }
  }
});

Deno.test("serveStatic: If-Unmodified-Since before the file's time is 412; at or after it, 200", async () => {
  assert.equal((await get({ "If-Unmodified-Since": before })).status, 412);
  assert.equal(
    (await get({ "If-Unmodified-Since": mtime!.toUTCString() })).status,
    200,
  );
  assert.equal((await get({ "If-Unmodified-Since": after })).status, 200);
  // Not an HTTP date: ignored (RFC 9110 §13.1.4).
  assert.equal((await get({ "If-Unmodified-Since": "yesterday" })).status, 200);
});

Deno.test("serveStatic: If-Unmodified-Since is ignored when If-Match is sent", async () => {
  assert.equal(
    (await get({ "If-Match": etag, "If-Unmodified-Since": before })).status,
    200,
  );
  assert.equal(
    (await get({ "If-Match": '"stale"', "If-Unmodified-Since": after }))
      .status,
    412,
  );
});

Deno.test("serveStatic: a failed precondition wins over If-None-Match and Range", async () => {
  assert.equal(
    (await get({ "If-Match": '"stale"', "If-None-Match": etag })).status,
    412,
  );
  assert.equal(
    (await get({ "If-Unmodified-Since": before, Range: "bytes=0-3" })).status,
    412,
  );
  // Preconditions that hold go on to the conditional GET and the range.
  assert.equal(
    (await get({ "If-Match": etag, "If-None-Match": etag })).status,
    304,
  );
  const ranged = await get({ "If-Match": etag, Range: "bytes=0-3" });
  assert.equal(ranged.status, 206);
  assert.equal(ranged.text, "body");
});

Deno.test("serveStatic: served files carry X-Content-Type-Options: nosniff", async () => {
  for (const path of ["/app.css", "/data.bin", "/", "/empty.txt"]) {
    const response = await get({}, { path });
    assert.equal(response.status, 200, path);
    assert.equal(
      response.headers.get("X-Content-Type-Options"),
      "nosniff",
      path,
    );
  }
  const partial = await get({ Range: "bytes=0-1" });
  assert.equal(partial.headers.get("X-Content-Type-Options"), "nosniff");
});
