/**
 * Starting the whole-app contenders (`_server.ts`) and the two requests
 * measured: a signed-in `GET /dashboard` and a password `POST /auth/login`
 * (bcrypt at cost 4 in both apps), as wrk Lua scripts.
 *
 * @module
 */
import { freePort, type Running, untilReady } from "../_load.ts";

/** The contenders, ours first. */
export const CONTENDERS = ["fetchkit", "hono"] as const;
/** One of {@linkcode CONTENDERS}. */
export type Contender = typeof CONTENDERS[number];

/**
 * Users `_server.ts` seeds. The example keeps at most 100 sessions per
 * user (the oldest end), so `memory.ts` holds at most 6,400 live ones.
 */
export const USERS = 64;

const SERVER = new URL("./_server.ts", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;

/** Options of {@linkcode startContender}. */
export interface StartOptions {
  /** Words before `deno` (`valgrind --tool=callgrind ...`). */
  prefix?: string[];
  /** Deno flags (`--v8-flags=--expose-gc`). */
  flags?: string[];
  /** Deno KV's path. Default `:memory:`. */
  kvPath?: string;
  /** Environment variables of the server. */
  env?: Record<string, string>;
  /**
   * Another copy of this repository whose `bench/app/_server.ts` runs
   * (an older commit, to count before and after in one sitting).
   */
  root?: string;
}

/** Starts `name` on a free port and waits for "ready". */
export async function startContender(
  name: Contender,
  options: StartOptions = {},
): Promise<Running> {
  const port = freePort();
  const argv = [
    ...(options.prefix ?? []),
    Deno.execPath(),
    "run",
    "-A",
    "--unstable-kv",
    ...(options.flags ?? []),
    options.root === undefined
      ? SERVER
      : `${options.root}/bench/app/_server.ts`,
    name,
    String(port),
    options.kvPath ?? ":memory:",
  ];
  const child = new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd: options.root ?? ROOT,
    env: options.env,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  await untilReady(child, name);
  return {
    port,
    pid: child.pid,
    async stop() {
      child.kill("SIGKILL");
      await child.status;
    },
  };
}

/** The server's origin. */
export function origin(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/** The sign-in form of user `i`. */
export function loginBody(i: number): string {
  return `email=user${i}%40example.com&password=password-${i}`;
}

/** Headers of the sign-in POST, as a same-origin browser form sends them. */
export function formHeaders(port: number): Record<string, string> {
  return {
    "Content-Type": "application/x-www-form-urlencoded",
    "Sec-Fetch-Site": "same-origin",
    "Origin": origin(port),
  };
}

/**
 * Signs user `i` in; the session cookie (`name=value`). With `cookie`, the
 * client's session so far, which the sign-in ends.
 */
export async function signIn(
  port: number,
  i = 0,
  cookie?: string,
): Promise<string> {
  const response = await fetch(`${origin(port)}/auth/login`, {
    method: "POST",
    headers: cookie === undefined
      ? formHeaders(port)
      : { ...formHeaders(port), cookie },
    body: loginBody(i),
    redirect: "manual",
  });
  await response.body?.cancel();
  const session = response.headers.get("set-cookie")?.split(";")[0];
  if (response.status !== 303 || session === undefined) {
    throw new Error(`sign-in on port ${port}: ${response.status}`);
  }
  return session;
}

/** A measured request: its path and its wrk script. */
export interface Scenario {
  name: string;
  path: string;
  /** The wrk Lua script for a server on `port`. */
  script(port: number): Promise<string>;
}

/** The dashboard (signed in) and the sign-in POST. */
export const SCENARIOS: Scenario[] = [
  {
    name: "GET /dashboard (signed in)",
    path: "/dashboard",
    async script(port) {
      return `wrk.headers["Cookie"] = "${await signIn(port)}"`;
    },
  },
  {
    name: "POST /auth/login (bcrypt cost 4)",
    path: "/auth/login",
    script(port) {
      // Round robin over the users: at most a few attempts per email at
      // once, under the 5-per-email lockout.
      return Promise.resolve(`wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Sec-Fetch-Site"] = "same-origin"
wrk.headers["Origin"] = "${origin(port)}"
local i = 0
request = function()
  i = (i + 1) % ${USERS}
  return wrk.format(nil, nil, nil, "email=user" .. i .. "%40example.com&password=password-" .. i)
end`);
    },
  },
];

/** Writes `script` to a temp file; its path. */
export async function scriptFile(script: string): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(path, script);
  return path;
}

/** `--name=value` arguments. */
export function options(): Record<string, string | undefined> {
  return Object.fromEntries(
    Deno.args.map((arg) => /^--([^=]+)=(.*)$/.exec(arg))
      .filter((match) => match !== null)
      .map((match) => [match![1], match![2]]),
  );
}
