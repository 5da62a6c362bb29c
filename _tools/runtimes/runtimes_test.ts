/**
 * Runs the portable part of the suite on Node and Bun: the test files that
 * use no Deno API (see `bundle.ts`), plus real HTTP (`serve_checks.ts`) and
 * the Deno KV storage on `@deno/kv` (`kv_checks.ts`), bundled once and run
 * as a subprocess of each runtime. A third run on Bun takes the router's
 * test files through `serve()` and Bun's native routes (`native_router.ts`).
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

/**
 * The router's test files (and methodOverride's) for the "native" run:
 * `@fetchkit/toolkit/fetch-router` is `native_router.ts` there, whose
 * routers answer over loopback HTTP through serve() and Bun's native
 * routes.
 */
function routerTestFiles(): string[] {
  return portableTestFiles().filter((path) => {
    const file = path.slice(ROOT.length + 1);
    // It serves router.fetch itself and compares the native routes with
    // the router's matcher; a wrapped router.fetch has no hook to compare.
    if (file === "router/native_routes_test.ts") return false;
    return file.startsWith("router/") || file.startsWith("routes/");
  });
}

let nativeBundled: Promise<string> | undefined;

function nativeBundle(): Promise<string> {
  return nativeBundled ??= bundleTests("native", routerTestFiles(), {
    replace: {
      "@fetchkit/toolkit/fetch-router": join(HERE, "native_router.ts"),
    },
  });
}

async function runOn(
  runtime: string,
  binary: string,
  path?: string,
): Promise<string> {
  path ??= await bundle();
  // A guard against a hung run, not a timing target: the Node run of the
  // whole bundle takes 3-4 minutes on two busy cores.
  const { code, stdout, stderr } = await output(binary, [path], 600_000);
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
      `${counts.failed} failed, ${counts.ignored} skipped (harness.ts says why)`,
  );
  assert.equal(counts.failed, 0);
  assert.ok(
    counts.passed >= MIN_PASSED,
    `only ${counts.passed} tests ran on ${runtime}`,
  );
  return stdout;
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

Deno.test("the router's tests on Bun through serve() and its native routes", async () => {
  if (!await dependencies()) {
    return unavailable("_tools/runtimes/install.sh failed (npm unreachable?)");
  }
  const bun = await bunBinary();
  if (bun === undefined) return unavailable("bun is not installed");
  const stdout = await runOn("bun (native routes)", bun, await nativeBundle());
  // The mode is real only if Bun's router answered some of the requests.
  const line = stdout.split("\n").find((text) =>
    text.startsWith("fetchkit-native ")
  );
  assert.ok(line !== undefined, "no count of native answers");
  const { native, all } = JSON.parse(
    line.slice("fetchkit-native ".length),
  ) as { native: number; all: number };
  console.log(
    `bun (native routes): ${native} of ${all} requests matched by Bun's router`,
  );
  assert.ok(native > 0, "no request reached a native route");
});

Deno.test("every portable test file is found", () => {
  const files = portableTestFiles().map((path) => path.slice(ROOT.length + 1));
  // A few that must stay portable: if one picks up a Deno API, it drops
  // out of the Node and Bun runs, and this says so.
  for (
    const file of [
      "router/mount_test.ts",
      "router/router_test.ts",
      "router/method_override_test.ts",
      "runtime/fs_test.ts",
      "session/cookie_storage_test.ts",
      "form_data/parse_test.ts",
    ]
  ) {
    assert.ok(files.includes(file), `${file} is no longer portable`);
  }
});
