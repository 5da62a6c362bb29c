import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serverTiming } from "@fetchkit/toolkit/server-timing-middleware";

// Deno-only: runs a script in a process of its own with the environment it
// needs (not Deno.env.set here: the environment is the whole process's, and
// under `deno test --parallel` another test file's servers would start in
// production meanwhile).
const SCRIPT = `
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

/** SCRIPT's output, run with `env` and `--allow-env=<allowEnv>`. */
async function runScript(
  env: Record<string, string>,
  allowEnv: string,
): Promise<unknown> {
  // `deno eval` would grant every permission: a file.
  const root = new URL("..", import.meta.url).pathname;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, SCRIPT);
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--config=${root}deno.json`,
      `--allow-env=${allowEnv}`,
      file,
    ],
    env,
    cwd: root,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output().finally(() => Deno.remove(file));
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

Deno.test("off by default when DENO_ENV or NODE_ENV is production", async () => {
  for (const name of ["DENO_ENV", "NODE_ENV"]) {
    assert.deepEqual(
      await runScript({ [name]: "production" }, "DENO_ENV,NODE_ENV"),
      [null, true],
      name,
    );
  }
  const router = createRouter({ middleware: [serverTiming()] });
  router.get("/", () => new Response("ok"));
  assert.ok(
    (await router.fetch(new Request("http://x/"))).headers.get("Server-Timing"),
  );
});

Deno.test("fails closed: when the environment cannot be read, nothing is sent unless enabled says so", async () => {
  // The environment closed but for PORT.
  assert.deepEqual(
    await runScript({ DENO_ENV: "production", NODE_ENV: "production" }, "PORT"),
    [null, true],
  );
});
