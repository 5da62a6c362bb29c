// The app on a full disk: a Deno KV file on a real 1 MB tmpfs (mounted in
// a user and mount namespace with `unshare`), filled until SQLite answers
// "database or disk is full". A registration, whose user the example's
// own store cannot write, gets the same 503 page with Retry-After as a
// login whose session cannot be saved, never a 500.
import assert from "node:assert/strict";
import type { Router } from "@fetchkit/toolkit/fetch-router";
import { Client } from "./_test_app.ts";
import { fullDiskOrSkip, startOnFullDisk } from "../../_tools/full_disk.ts";

const canMount = await fullDiskOrSkip("the full-disk test");

Deno.test({
  name:
    "KV disk full: registration gets the 503 page with Retry-After, like the login, never a 500",
  ignore: !canMount,
  async fn() {
    const server = await startOnFullDisk(
      new URL("./_disk_full_server.ts", import.meta.url),
      "auth-kv-full-",
    );
    try {
      const origin = server.origin;
      // The test client, over HTTP to the server process.
      const remote = {
        fetch: (request: Request) => {
          const url = new URL(request.url);
          return fetch(
            new Request(origin + url.pathname + url.search, request),
            { redirect: "manual" },
          );
        },
      } as unknown as Router;

      for (
        const [what, send] of [
          ["register", (c: Client) => c.register("ada@example.com")],
          [
            "login",
            (c: Client) => c.login("admin@example.com", "admin-password"),
          ],
        ] as const
      ) {
        const page = await new Client(remote).request(
          what === "register" ? "/auth/register" : "/auth/login",
          {
            method: "POST",
            form: what === "register"
              ? {
                email: "ada@example.com",
                password: "correct horse",
                name: "Ada",
              }
              : { email: "admin@example.com", password: "admin-password" },
            headers: { accept: "text/html" },
          },
        );
        assert.equal(page.status, 503, what);
        assert.equal(page.headers.get("retry-after"), "5", what);
        assert.match(await page.text(), /Something went wrong on our side/);
        const plain = await send(new Client(remote));
        assert.equal(plain.status, 503, `${what} (plain)`);
        assert.match(await plain.text(), /^Service Unavailable/);
      }
    } finally {
      const log = await server.stop();
      assert.match(log, /database or disk is full/);
    }
  },
});
