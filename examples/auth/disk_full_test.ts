// The app on a full disk: a Deno KV file on a real 1 MB tmpfs (mounted in
// a user and mount namespace with `unshare`), filled until SQLite answers
// "database or disk is full". A registration, whose user the example's
// own store cannot write, gets the same 503 page with Retry-After as a
// login whose session cannot be saved, never a 500.
import assert from "node:assert/strict";
import type { Router } from "@fetchkit/toolkit/fetch-router";
import { Client } from "./_test_app.ts";

async function unshareWorks(): Promise<boolean> {
  try {
    const dir = await Deno.makeTempDir();
    const { success } = await new Deno.Command("unshare", {
      args: ["-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir],
      stdout: "null",
      stderr: "null",
    }).output();
    await Deno.remove(dir);
    return success;
  } catch {
    return false;
  }
}

const canMount = await unshareWorks();
if (!canMount) {
  console.log(
    "skipping the full-disk test: `unshare -rm mount -t tmpfs` is not allowed here",
  );
}

Deno.test({
  name:
    "KV disk full: registration gets the 503 page with Retry-After, like the login, never a 500",
  ignore: !canMount,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "auth-kv-full-" });
    const script = new URL("./_disk_full_server.ts", import.meta.url).pathname;
    const child = new Deno.Command("unshare", {
      args: [
        "-rm",
        "sh",
        "-c",
        'mount -t tmpfs -o size=1m tmpfs "$1" && exec "$2" run --unstable-kv --allow-all "$3" "$1/kv.sqlite"',
        "sh",
        dir,
        Deno.execPath(),
        script,
      ],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const logs = new Response(child.stderr).text();
    try {
      let output = "";
      while (!output.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) break;
        output += value;
      }
      const port = /listening (\d+)/.exec(output)?.[1];
      assert.ok(port, `server did not start: ${output}`);
      const origin = `http://127.0.0.1:${port}`;
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
      child.kill("SIGTERM");
      await child.status;
      await lines.cancel();
      const log = await logs;
      await Deno.remove(dir, { recursive: true });
      assert.match(log, /database or disk is full/);
    }
  },
});
