/**
 * A small stand-in for `Deno.test` on Node and Bun: the portable test files
 * are bundled with `Deno.test` renamed to `__fetchkitTest` (see
 * `bundle.ts`), register their tests here, and `run()` runs them one after
 * another and prints a summary line that `runtimes_test.ts` reads.
 *
 * It covers what the suite uses: `Deno.test(name, fn)`, `(fn)`,
 * `({ name, fn, ignore, only })`, `(name, options, fn)`, and `t.step()`
 * in the same forms. Deno's sanitizers and permissions are ignored.
 * `afterEach` and `afterAll` are for the run's own helpers (the native
 * routes run stops its servers with them), not for test files.
 */

/** What a test function receives. */
export interface TestContext {
  readonly name: string;
  step(
    nameOrDefinition: string | StepDefinition | ((t: TestContext) => unknown),
    fn?: (t: TestContext) => unknown,
  ): Promise<boolean>;
}

interface StepDefinition {
  name: string;
  fn: (t: TestContext) => unknown;
  ignore?: boolean;
}

interface TestDefinition extends StepDefinition {
  only?: boolean;
}

type TestFunction = (t: TestContext) => unknown;

const tests: TestDefinition[] = [];

/**
 * Tests that cannot hold in a bundle, by name, with why; reported as
 * ignored.
 */
const NOT_IN_A_BUNDLE: Record<string, string> = {
  "the first large in-memory file of a process does not wait for timers":
    "imports a second instance of a module with `?first`, which a bundle merges",
  "openapi: documents validate against the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator)":
    "the validator reads its JSON Schemas from files beside its own module, which a bundle moves; the documents' shape is tested portably",
};

const BUN_FILE_TYPE =
  "Bun's FormData copies each File, and Bun's File adds `;charset=utf-8` " +
  "to a text/* type, so a text/plain upload reads back with the charset";

/** Tests of behaviour Bun's own Web APIs change, by name, with why. */
const NOT_ON_BUN: Record<string, string> = {
  "a body in one chunk parses": BUN_FILE_TYPE,
  "every split point of a body across two chunks parses the same":
    BUN_FILE_TYPE,
  "every pair of split points (three chunks) parses the same": BUN_FILE_TYPE,
  "a body delivered one byte at a time parses": BUN_FILE_TYPE,
  "matches the native parser on a browser-built FormData body": BUN_FILE_TYPE,
  "a folded Content-Disposition is joined onto its header with one space":
    BUN_FILE_TYPE,
  "parseForm (zod): a name sent once gives its value; a File stays a File":
    BUN_FILE_TYPE,
  "parseForm (valibot): a name sent once gives its value; a File stays a File":
    BUN_FILE_TYPE,
  "parseForm (zod): an empty file input is left out, as if absent":
    BUN_FILE_TYPE,
  "parseForm (valibot): an empty file input is left out, as if absent":
    BUN_FILE_TYPE,
  "secureHeaders: the defaults, and no X-Powered-By":
    "Bun's Response keeps the Content-Type of a string body out of " +
    "`response.headers` (it adds it when sending), where Deno and Node " +
    "list it",
  "static text with | and ^ matches: URL pathnames keep them raw":
    "Bun's URL (WebKit's) percent-encodes `^` in a pathname, as the URL " +
    "standard now says; a route pattern must spell it `%5E` there",
};

/**
 * Tests that cannot hold when `router.fetch` goes over loopback HTTP
 * (the "native" run, `native_router.ts`), by name, with why.
 */
const BUN_URL_LIMIT =
  "Bun's server answers 431 to a request line over 16 KiB, before any " +
  "router code runs";

const SYNCHRONOUS = "asserts that `router.fetch` returns the Response " +
  "itself; over a socket the answer is always a promise";

const NOT_OVER_A_SOCKET: Record<string, string> = {
  "router: a 17 KB path reaches no Map lookup (generated)": BUN_URL_LIMIT,
  "router: a 17 KB path reaches no Map lookup (interpreted)": BUN_URL_LIMIT,
  "responseHeaders: staged by synchronous middleware, the answer stays synchronous":
    SYNCHRONOUS,
  "router.fetch answers a synchronous chain with the Response itself, else a promise":
    SYNCHRONOUS,
  "remoteAddr: the peer the server passes, undefined without info":
    "passes Bun's and Node's info objects by hand, with functions " +
    "(`requestIP()`) and sockets; only plain data crosses the socket",
  "remix router.test.ts › router.fetch() > uses a Request input directly":
    "asserts that `context.request` is the test's own Request object; the " +
    "server's request is another object",
  "context.url: a Host that makes the request URL unparsable is a 400 naming the Host header, on every runtime's server, and the server keeps serving":
    "serves router.fetch with serve() itself (so Bun's native routes are " +
    "on in the plain Bun run); here router.fetch would forward the bad " +
    "URL over a second socket, which cannot carry it",
  "context.url: a request whose url does not parse gives a 400 through the router's boundary, not a 500":
    "hands the router a Request whose url is not absolute; no socket can " +
    "carry one",
  "routes added while serving are compiled once per burst, on a settled table":
    "times 2,000 add-then-request pairs against a 5 s bound; here each add " +
    "starts a new server (Bun's routes are a snapshot), so it would time " +
    "the servers",
};

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

function skipReason(name: string, run: string): string | undefined {
  return NOT_IN_A_BUNDLE[name] ?? (isBun ? NOT_ON_BUN[name] : undefined) ??
    (run === "native" ? NOT_OVER_A_SOCKET[name] : undefined);
}

const afterEachHooks: (() => unknown)[] = [];
const afterAllHooks: (() => unknown)[] = [];

/** Runs `fn` after each test (its failure fails that test). */
export function afterEach(fn: () => unknown): void {
  afterEachHooks.push(fn);
}

/** Runs `fn` once after the last test, before the summary line. */
export function afterAll(fn: () => unknown): void {
  afterAllHooks.push(fn);
}

/** Registers a test, with the call forms of `Deno.test`. */
export function test(
  first: string | TestFunction | Partial<TestDefinition>,
  second?: TestFunction | Partial<TestDefinition>,
  third?: TestFunction,
): void {
  let definition: Partial<TestDefinition>;
  if (typeof first === "function") {
    definition = { name: first.name, fn: first };
  } else if (typeof first === "string") {
    definition = typeof second === "function"
      ? { name: first, fn: second }
      : { ...second, name: first, fn: third };
  } else {
    definition = typeof second === "function"
      ? { ...first, fn: second }
      : first;
  }
  if (typeof definition.fn !== "function") {
    throw new TypeError(`test "${definition.name}" has no function`);
  }
  tests.push(definition as TestDefinition);
}

(globalThis as Record<string, unknown>).__fetchkitTest = Object.assign(
  test,
  {
    ignore: (...args: Parameters<typeof test>) => {
      test(...args);
      tests[tests.length - 1].ignore = true;
    },
    only: (...args: Parameters<typeof test>) => {
      test(...args);
      tests[tests.length - 1].only = true;
    },
  },
);

// Node's Request refuses a stream body without `duplex: "half"` (the Fetch
// standard's rule; Deno and Bun default it). The tests build requests as
// Deno allows, so `new Request()` gets the default here. A Proxy keeps
// `instanceof Request` true for requests made by the runtime itself.
const NativeRequest = globalThis.Request;
globalThis.Request = new Proxy(NativeRequest, {
  construct(target, args: [RequestInfo | URL, RequestInit?], newTarget) {
    const [input, init] = args;
    const withDuplex = init?.body != null && !("duplex" in init)
      ? { ...init, duplex: "half" }
      : init;
    return Reflect.construct(target, [input, withDuplex], newTarget);
  },
});

// Node 20 has no Promise.withResolvers (Node 22 has); some test helpers
// use it. The library does not.
if (typeof Promise.withResolvers !== "function") {
  Promise.withResolvers = function <T>() {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    return { promise, resolve, reject };
  };
}

/** Per test, so that one that hangs fails instead of stopping the run. */
const TIMEOUT_MS = 60_000;

let steps = 0;

function contextFor(name: string): TestContext {
  return {
    name,
    async step(nameOrDefinition, fn) {
      const definition: StepDefinition = typeof nameOrDefinition === "string"
        ? { name: nameOrDefinition, fn: fn! }
        : typeof nameOrDefinition === "function"
        ? { name: nameOrDefinition.name, fn: nameOrDefinition }
        : nameOrDefinition;
      if (definition.ignore) return false;
      steps++;
      await definition.fn(contextFor(`${name} > ${definition.name}`));
      return true;
    },
  };
}

function withTimeout(
  promise: Promise<unknown>,
  name: string,
): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`"${name}" took over ${TIMEOUT_MS} ms`)),
      TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs every registered test (only the `only` ones when there are some),
 * prints `ok`/`FAILED` per test and a last line
 * `fetchkit-tests {"passed":..}`, and sets the exit code.
 */
export async function run(runtime: string): Promise<void> {
  const selected = tests.some((entry) => entry.only)
    ? tests.filter((entry) => entry.only)
    : tests;
  let passed = 0;
  let failed = 0;
  let ignored = 0;
  const started = performance.now();
  for (const entry of selected) {
    if (entry.ignore || skipReason(entry.name, runtime) !== undefined) {
      ignored++;
      continue;
    }
    try {
      await withTimeout(
        Promise.resolve().then(() => entry.fn(contextFor(entry.name))),
        entry.name,
      );
      for (const hook of afterEachHooks) await hook();
      passed++;
      if (verbose()) console.log(`ok ${entry.name}`);
    } catch (error) {
      // The hooks still run: a failed test must not leave servers behind.
      for (const hook of afterEachHooks) {
        await Promise.resolve(hook()).catch(() => {});
      }
      failed++;
      console.log(`FAILED ${entry.name}`);
      console.log(
        String((error as Error)?.stack ?? error).split("\n").slice(0, 16)
          .map((line) => `  ${line}`).join("\n"),
      );
    }
  }
  for (const hook of afterAllHooks) await hook();
  const ms = Math.round(performance.now() - started);
  console.log(
    `${runtime}: ${passed} passed (${steps} steps), ${failed} failed, ` +
      `${ignored} ignored (${ms} ms)`,
  );
  console.log(
    `fetchkit-tests ${JSON.stringify({ passed, failed, ignored, steps })}`,
  );
  const process = (globalThis as {
    process?: { exitCode?: number; exit(code: number): never };
  }).process;
  // Leftover sockets or timers must not keep the runner alive.
  process?.exit(failed > 0 ? 1 : 0);
}

function verbose(): boolean {
  const process = (globalThis as {
    process?: { env: Record<string, string | undefined> };
  }).process;
  return process?.env.FETCHKIT_TEST_VERBOSE === "1";
}
