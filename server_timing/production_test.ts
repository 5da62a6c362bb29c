import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serverTiming } from "@fetchkit/toolkit/server-timing-middleware";

// Deno-only: sets the environment.
Deno.test("off by default when DENO_ENV or NODE_ENV is production", async () => {
  for (const name of ["DENO_ENV", "NODE_ENV"]) {
    const before = Deno.env.get(name);
    Deno.env.set(name, "production");
    try {
      const router = createRouter({ middleware: [serverTiming()] });
      router.get("/", () => new Response("ok"));
      const response = await router.fetch(new Request("http://x/"));
      assert.equal(response.headers.get("Server-Timing"), null, name);
      const forced = createRouter({
        middleware: [serverTiming({ enabled: true })],
      });
      forced.get("/", () => new Response("ok"));
      assert.ok(
        (await forced.fetch(new Request("http://x/"))).headers.get(
          "Server-Timing",
        ),
      );
    } finally {
      if (before === undefined) Deno.env.delete(name);
      else Deno.env.set(name, before);
    }
  }
  const router = createRouter({ middleware: [serverTiming()] });
  router.get("/", () => new Response("ok"));
  assert.ok(
    (await router.fetch(new Request("http://x/"))).headers.get("Server-Timing"),
  );
});

Deno.test("fails closed: when the environment cannot be read, nothing is sent unless enabled says so", async () => {
  const script = `
    import { createRouter } from "@fetchkit/toolkit/fetch-router";
    import { serverTiming } from "@fetchkit/toolkit/server-timing-middleware";
    const plain = createRouter({ middleware: [serverTiming()] });
    plain.get("/", () => new Response("ok"));
    const forced = createRouter({ middleware: [serverTiming({ enabled: true })] });
    forced.get("/", () => new Response("ok"));
    const a = await plain.fetch(new Request("http://x/"));
    const b = await forced.fetch(new Request("http://x/"));
    console.log(JSON.stringify([a.headers.get("Server-Timing"), b.headers.get("Server-Timing") !== null]));
  `;
  // `deno eval` would grant every permission: a file, run with the
  // environment closed but for PORT.
  const root = new URL("..", import.meta.url).pathname;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, script);
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--config=${root}deno.json`,
      "--allow-env=PORT",
      file,
    ],
    env: { DENO_ENV: "production", NODE_ENV: "production" },
    cwd: root,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output().finally(() => Deno.remove(file));
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.deepEqual(
    JSON.parse(new TextDecoder().decode(output.stdout)),
    [null, true],
  );
});
