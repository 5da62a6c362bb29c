// Deno KV on a full disk: a KV file on a real 1 MB tmpfs (mounted in a user
// and mount namespace with `unshare`, so no privileges are needed), where
// SQLite answers "database or disk is full", a TypeError. Sessions and
// the rate limiter answer 503 with Retry-After, never 500, and the server
// keeps serving.
import assert from "node:assert/strict";

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
    "skipping the full-disk tests: `unshare -rm mount -t tmpfs` is not allowed here",
  );
}

Deno.test({
  name:
    "Deno KV on a full disk: session saves and rate-limit counts answer 503 with Retry-After, never 500; the server keeps serving",
  ignore: !canMount,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kv-full-" });
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

      const statuses = new Map<number, number>();
      let full: Response | undefined;
      for (let i = 0; i < 400 && full === undefined; i++) {
        const response = await fetch(`${origin}/fill`, { method: "POST" });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 200) await response.body?.cancel();
        else full = response;
      }
      assert.ok(
        full,
        `the disk never filled: ${JSON.stringify([...statuses])}`,
      );
      assert.equal(full.status, 503, JSON.stringify([...statuses]));
      assert.equal(full.headers.get("retry-after"), "5");
      assert.match(await full.text(), /^Service Unavailable/);
      assert.ok(statuses.get(200)! > 10, "sessions were saved before");

      // New rate-limit keys need new entries (small ones may still fit in
      // what is left): the first refused one is a 503 too, not a 500.
      let limited: Response | undefined;
      for (let i = 0; i < 5000 && limited === undefined; i++) {
        const response = await fetch(`${origin}/limited?key=k${i}`);
        if (response.status === 200) await response.body?.cancel();
        else limited = response;
      }
      assert.equal(limited?.status, 503);
      assert.equal(limited.headers.get("retry-after"), "5");
      await limited.body?.cancel();
      const ping = await fetch(`${origin}/ping`);
      assert.equal(await ping.text(), "pong");
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await lines.cancel();
      const log = await logs;
      await Deno.remove(dir, { recursive: true });
      // The store's own words reached the log: it really was a full disk.
      assert.match(log, /database or disk is full/);
    }
  },
});
