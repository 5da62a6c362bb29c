import assert from "node:assert/strict";
import { createRouter } from "./mod.ts";
import { rawGet } from "../_tools/raw_http.ts";

Deno.test("raw Host headers and backslashes route as context.url reads them", async () => {
  const router = createRouter();
  router.get("/", () => new Response("home"));
  router.get("/admin", () => new Response("admin"));
  router.get("/a/admin", () => new Response("a/admin"));
  router.get("/*rest", ({ params }) => new Response(`other /${params.rest}`));
  const errors: unknown[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
    onError(error) {
      errors.push(error);
      return new Response("onError", { status: 500 });
    },
  }, router.fetch);
  const { port } = server.addr;
  try {
    const cases: [string, string, number, string][] = [
      // URL ends the host at "?" or "#": the path is "/".
      ["a?x", "/admin", 200, "home"],
      ["a#x", "/admin", 200, "home"],
      // ... and reads "\" as "/", in the host and in the path.
      ["a\\b", "/admin", 200, "other /b/admin"],
      ["x", "/a\\admin", 200, "a/admin"],
      // Credentials change nothing.
      ["u:p@x", "/admin", 200, "admin"],
      // A Host that URL refuses: context.url would throw, so the path as
      // sent is routed, and nothing fails.
      ["a b", "/admin", 200, "admin"],
      ["a b?x", "/admin", 200, "admin"],
      ["x y", "/a\\admin", 200, "other /a\\admin"],
    ];
    for (const [host, target, status, body] of cases) {
      const response = await rawGet(port, target, { host });
      assert.deepEqual(
        { status: response.status, body: response.body },
        { status, body },
        `Host: ${host}, target ${target}`,
      );
    }
    assert.deepEqual(errors, []);
  } finally {
    await server.shutdown();
  }
});
