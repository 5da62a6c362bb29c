/**
 * Runs the portable part of the suite on Node and Bun: the test files that
 * use no Deno API (see `bundle.ts`), plus real HTTP (`serve_checks.ts`) and
 * the Deno KV storage on `@deno/kv` (`kv_checks.ts`), bundled once and run
 * as a subprocess of each runtime. A third run on Bun takes the router's
 * test files through `serve()` and Bun's native routes (`native_router.ts`).
 * The three run side by side; the test files that start Ceph are a bundle
 * of their own, run on Bun then on Node as those end, one Ceph at a time
 * (see `schedule()`).
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
import { bundleTests, portableTestFiles, reaches, ROOT } from "./bundle.ts";
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

/** The portable test files that start Ceph (`_tools/ceph.ts`). */
function cephTestFiles(): string[] {
  return portableTestFiles().filter((path) =>
    reaches(path, join(ROOT, "_tools/ceph.ts"))
  );
}

let bundled: Promise<string> | undefined;

/** Every portable test file but the Ceph ones, and the runtime checks. */
function bundle(): Promise<string> {
  const ceph = new Set(cephTestFiles());
  return bundled ??= bundleTests("portable", [
    ...portableTestFiles().filter((path) => !ceph.has(path)),
    join(HERE, "serve_checks.ts"),
    join(HERE, "kv_checks.ts"),
    join(HERE, "redis_checks.ts"),
    join(HERE, "pubsub_checks.ts"),
  ]);
}

let cephBundled: Promise<string> | undefined;

/** The portable test files that start Ceph, in a bundle of their own. */
function cephBundle(): Promise<string> {
  return cephBundled ??= bundleTests("portable_ceph", cephTestFiles());
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

interface Counts {
  passed: number;
  failed: number;
  ignored: number;
  steps: number;
}

/** Runs one bundle on one runtime; its counts and output. */
async function runBundle(
  runtime: string,
  binary: string,
  path: string,
): Promise<{ counts: Counts; stdout: string }> {
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
  return {
    counts: JSON.parse(line.slice("fetchkit-tests ".length)) as Counts,
    stdout,
  };
}

/** Prints and checks the counts of one runtime's runs, added up. */
function report(runtime: string, runs: { counts: Counts }[]): void {
  const sum = { passed: 0, failed: 0, ignored: 0, steps: 0 };
  for (const { counts } of runs) {
    for (const key of Object.keys(sum) as (keyof Counts)[]) {
      sum[key] += counts[key];
    }
  }
  console.log(
    `${runtime}: ${sum.passed} passed (${sum.steps} steps), ` +
      `${sum.failed} failed, ${sum.ignored} skipped (harness.ts says why)` +
      (runs.length > 1
        ? `; of which the Ceph bundle ${runs[1].counts.passed} passed`
        : ""),
  );
  assert.equal(sum.failed, 0);
  assert.ok(
    sum.passed >= MIN_PASSED,
    `only ${sum.passed} tests ran on ${runtime}`,
  );
}

type Run = Promise<{ counts: Counts; stdout: string }[] | string>;

let scheduled: { node: Run; bun: Run; native: Run } | undefined;

/**
 * Starts every run once, for the three tests below to await: the bundle
 * without Ceph on Node, on Bun and (the router's files) on Bun through
 * native routes, side by side, since they wait on sockets and timers more
 * than on the CPU; then the Ceph bundle on Bun, then on Node, one at a
 * time, so that one Ceph runs at once (two side by side on two busy cores
 * failed to come up in 2 of 4 runs). A string is why a runtime was
 * skipped. The Bun test ends after Bun's runs, the Node test after every
 * run, so nothing runs past the tests.
 */
function schedule(): { node: Run; bun: Run; native: Run } {
  if (scheduled !== undefined) return scheduled;
  const ready = dependencies().then((ok) =>
    ok ? undefined : "_tools/runtimes/install.sh failed (npm unreachable?)"
  );
  const nodeBinary = ready.then(async (why) =>
    why ?? await which("node") ?? "node is not installed"
  );
  const bunBinaryPath = ready.then(async (why) =>
    why ?? await bunBinary() ?? "bun is not installed"
  );
  // A binary is an absolute path; anything else is why it is missing.
  const found = (value: string) => value.startsWith("/");
  const plain = async (runtime: string, binary: Promise<string>) => {
    const path = await binary;
    return found(path) ? runBundle(runtime, path, await bundle()) : path;
  };
  const nodePlain = plain("node", nodeBinary);
  const bunPlain = plain("bun", bunBinaryPath);
  const native = bunBinaryPath.then(async (path) =>
    found(path)
      ? [await runBundle("bun (native routes)", path, await nativeBundle())]
      : path
  );
  const cephOn = async (
    runtime: string,
    binary: Promise<string>,
    after: Promise<unknown>,
  ) => {
    const path = await binary;
    if (!found(path)) return path;
    await after.catch(() => {});
    return runBundle(runtime, path, await cephBundle());
  };
  // Bundled now, beside the other bundles, not after the runs.
  cephBundle().catch(() => {});
  // Bun's runs end first (Node's plain run takes longest): Bun's Ceph run
  // goes beside the end of Node's, and Node's after both.
  const bunCeph = cephOn(
    "bun",
    bunBinaryPath,
    Promise.allSettled([bunPlain, native]),
  );
  const nodeCeph = cephOn(
    "node",
    nodeBinary,
    Promise.allSettled([nodePlain, bunCeph]),
  );
  const both = async (
    first: Promise<{ counts: Counts; stdout: string } | string>,
    second: Promise<{ counts: Counts; stdout: string } | string>,
  ) => {
    // Both settle before the test ends (nothing runs past the tests), and
    // both failures are reported.
    const settled = await Promise.allSettled([first, second]);
    const errors = settled.flatMap((result) =>
      result.status === "rejected" ? [String(result.reason)] : []
    );
    if (errors.length > 0) throw new Error(errors.join("\n\n"));
    const [a, b] = settled.map((result) =>
      (result as PromiseFulfilledResult<
        { counts: Counts; stdout: string } | string
      >).value
    );
    if (typeof a === "string") return a;
    if (typeof b === "string") return b;
    return [a, b];
  };
  scheduled = {
    node: both(nodePlain, nodeCeph),
    bun: both(bunPlain, bunCeph),
    native,
  };
  // Each test awaits its own run; a failure of another one meanwhile is
  // not an unhandled rejection.
  for (const run of Object.values(scheduled)) run.catch(() => {});
  return scheduled;
}

// The runs go on in the background between these tests (see schedule()),
// so the sanitizers that check a test leaves nothing running are off.
const background = { sanitizeOps: false, sanitizeResources: false };

Deno.test("portable tests on Node", background, async () => {
  const runs = await schedule().node;
  if (typeof runs === "string") return unavailable(runs);
  report("node", runs);
});

Deno.test("portable tests on Bun", background, async () => {
  const runs = await schedule().bun;
  if (typeof runs === "string") return unavailable(runs);
  report("bun", runs);
});

Deno.test(
  "the router's tests on Bun through serve() and its native routes",
  background,
  async () => {
    const runs = await schedule().native;
    if (typeof runs === "string") return unavailable(runs);
    report("bun (native routes)", runs);
    // The mode is real only if Bun's router answered some of the requests.
    const line = runs[0].stdout.split("\n").find((text) =>
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
  },
);

Deno.test("every portable test file is found", () => {
  const files = portableTestFiles().map((path) => path.slice(ROOT.length + 1));
  // A few that must stay portable: if one picks up a Deno API, it drops
  // out of the Node and Bun runs, and this says so.
  // The Ceph bundle holds the S3 suites, and only files that start Ceph.
  const ceph = cephTestFiles().map((path) => path.slice(ROOT.length + 1));
  assert.ok(ceph.includes("file_storage/s3_test.ts"), "s3_test.ts left out");
  assert.ok(!ceph.includes("router/mount_test.ts"));
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
