/**
 * Runs the portable part of the suite on Node and Bun: the test files that
 * use no Deno API (see `bundle.ts`), plus real HTTP (`serve_checks.ts`) and
 * the Deno KV storage on `@deno/kv` (`kv_checks.ts`), bundled once and run
 * as a subprocess of each runtime.
 *
 * Node is the one on PATH (Debian's); Bun is the binary of the npm package
 * `@oven/bun-<platform>` that `install.sh` puts in `node_modules` (a `bun`
 * on PATH is used when that is missing). When `node_modules` is missing the
 * test runs `install.sh` itself. A runtime that cannot be found or set up
 * fails the run under `CI` or `TOOLKIT_REQUIRE_ALL`, and otherwise skips
 * with a one-line notice.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bundleTests, portableTestFiles, ROOT } from "./bundle.ts";
import { bunBinary, dependencies, which } from "./binaries.ts";

const HERE = join(ROOT, "_tools/runtimes");
const REQUIRE_ALL = Deno.env.get("CI") !== undefined ||
  Deno.env.get("TOOLKIT_REQUIRE_ALL") !== undefined;
/** Below this many passing tests a run counts as broken. */
const MIN_PASSED = 200;

function unavailable(what: string): void {
  if (REQUIRE_ALL) throw new Error(`${what} (required under CI)`);
  console.log(`%cskipped: ${what}`, "color: yellow");
}

async function output(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(command, {
    args,
    cwd: join(HERE, ".out"),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  try {
    const { code, stdout, stderr } = await child.output();
    const decoder = new TextDecoder();
    return {
      code,
      stdout: decoder.decode(stdout),
      stderr: decoder.decode(stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

let bundled: Promise<string> | undefined;

function bundle(): Promise<string> {
  return bundled ??= bundleTests("portable", [
    ...portableTestFiles(),
    join(HERE, "serve_checks.ts"),
    join(HERE, "kv_checks.ts"),
    join(HERE, "redis_checks.ts"),
    join(HERE, "pubsub_checks.ts"),
  ]);
}

async function runOn(runtime: string, binary: string): Promise<void> {
  const path = await bundle();
  const { code, stdout, stderr } = await output(binary, [path], 240_000);
  const line = stdout.split("\n").find((text) =>
    text.startsWith("fetchkit-tests ")
  );
  if (code !== 0 || line === undefined) {
    throw new Error(
      `${runtime} exited with ${code}:\n${stdout.slice(-6000)}\n${
        stderr.slice(-3000)
      }`,
    );
  }
  const counts = JSON.parse(line.slice("fetchkit-tests ".length)) as {
    passed: number;
    failed: number;
    ignored: number;
    steps: number;
  };
  console.log(
    `${runtime}: ${counts.passed} passed (${counts.steps} steps), ` +
      `${counts.failed} failed, ${counts.ignored} not portable`,
  );
  assert.equal(counts.failed, 0);
  assert.ok(
    counts.passed >= MIN_PASSED,
    `only ${counts.passed} tests ran on ${runtime}`,
  );
}

Deno.test("portable tests on Node", async () => {
  const node = await which("node");
  if (node === undefined) return unavailable("node is not installed");
  if (!await dependencies()) {
    return unavailable("_tools/runtimes/install.sh failed (npm unreachable?)");
  }
  await runOn("node", node);
});

Deno.test("portable tests on Bun", async () => {
  if (!await dependencies()) {
    return unavailable("_tools/runtimes/install.sh failed (npm unreachable?)");
  }
  const bun = await bunBinary();
  if (bun === undefined) return unavailable("bun is not installed");
  await runOn("bun", bun);
});

Deno.test("every portable test file is found", () => {
  const files = portableTestFiles().map((path) => path.slice(ROOT.length + 1));
  // A few that must stay portable: if one picks up a Deno API, it drops
  // out of the Node and Bun runs, and this says so.
  for (
    const file of [
      "router/mount_test.ts",
      "runtime/files_test.ts",
      "session/cookie_storage_test.ts",
      "form_data/parse_test.ts",
    ]
  ) {
    assert.ok(files.includes(file), `${file} is no longer portable`);
  }
});
