/**
 * The servers and scenarios of the HTTP benchmarks (`http_load.ts` and
 * `http_ab.ts` by time, `http_instructions.ts` by instructions): starting a
 * server (with the login that gives the session scenario its cookie), and
 * loading one scenario with `wrk`.
 *
 * @module
 */

import { freePort, untilReady, type WrkResult, wrkRun } from "./_load.ts";

/** The server processes of `_http_servers.ts`. */
export const SERVERS = [
  "bare",
  "bare-url",
  "fetchkit",
  "hono",
  "remix",
] as const;
/** One of {@linkcode SERVERS}. */
export type Server = typeof SERVERS[number];

/** One request shape, and the servers that can answer it. */
export interface Scenario {
  name: string;
  path: string;
  /** The servers that have the feature. */
  servers: readonly Server[];
  /** `post` sends a urlencoded body; `session` the server's session cookie. */
  kind?: "post" | "session";
  /** Status the scenario answers with; wrk counts others as errors. */
  status?: number;
}

const ROUTERS = ["fetchkit", "hono", "remix"] as const;

/** Every scenario, in the order the tables show them. */
export const ALL_SCENARIOS: Scenario[] = [
  { name: "static route", path: "/", servers: SERVERS },
  { name: "one param, JSON", path: "/users/42", servers: ROUTERS },
  { name: "two params, JSON", path: "/users/42/posts/7", servers: ROUTERS },
  { name: "three middlewares", path: "/mw", servers: ROUTERS },
  { name: "miss (404)", path: "/no/such/page", servers: ROUTERS, status: 404 },
  {
    name: "KV session read",
    path: "/session",
    servers: ["fetchkit", "remix"],
    kind: "session",
  },
  {
    name: "html table, 50 rows",
    path: "/table",
    servers: ["fetchkit", "hono"],
  },
  {
    name: "POST urlencoded body",
    path: "/echo",
    servers: ROUTERS,
    kind: "post",
  },
];

/** `deno` arguments that serve `name` from `_http_servers.ts` on `port`. */
function serverArgs(name: Server, port: number): string[] {
  return [
    "run",
    "--unstable-kv",
    "--allow-net=127.0.0.1",
    new URL("./_http_servers.ts", import.meta.url).pathname,
    name,
    String(port),
  ];
}

/** The scenarios whose name contains one of `words` (all without). */
export function pickScenarios(words: string[] | undefined): Scenario[] {
  return words === undefined
    ? ALL_SCENARIOS
    : ALL_SCENARIOS.filter(({ name }) =>
      words.some((word) => name.includes(word))
    );
}

/** Scripts written so far, by their text: each is written once a run. */
const scripts = new Map<string, string>();

/** Writes wrk's script for a scenario into `dir`, if it needs one. */
async function wrkScript(
  scenario: Scenario,
  dir: string,
  cookie: string | undefined,
): Promise<string | undefined> {
  let text: string;
  if (scenario.kind === "post") {
    text =
      `wrk.method = "POST"\nwrk.body = "text=hello+world&n=1"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n`;
  } else if (scenario.kind === "session") {
    text = `wrk.headers["Cookie"] = "${cookie}"\n`;
  } else return undefined;
  let script = scripts.get(dir + text);
  if (script === undefined) {
    script = `${dir}/wrk-${scripts.size}.lua`;
    await Deno.writeTextFile(script, text);
    scripts.set(dir + text, script);
  }
  return script;
}

/**
 * Logs in on a server with sessions and checks the session reads back;
 * returns its `session=...` cookie (undefined for servers without).
 */
async function login(
  server: Server,
  port: number,
): Promise<string | undefined> {
  if (server !== "fetchkit" && server !== "remix") return undefined;
  const response = await fetch(`http://127.0.0.1:${port}/login`, {
    method: "POST",
  });
  await response.body?.cancel();
  const cookie = response.headers.getSetCookie()[0]?.split(";")[0];
  const check = await fetch(`http://127.0.0.1:${port}/session`, {
    headers: { cookie: cookie ?? "" },
  });
  const text = await check.text();
  if (text !== "user 42") throw new Error(`${server}: no session: ${text}`);
  return cookie;
}

/** A server of `_http_servers.ts` that printed "ready". */
export interface HttpServer {
  port: number;
  process: Deno.ChildProcess;
  /** `session=...` for the session scenario, when the server has one. */
  cookie?: string;
}

/**
 * Starts server `name` on a free port, waits for it, and logs in where it
 * has sessions. `wrap` runs it under another command (valgrind and its
 * arguments); `log` appends its stderr to that file (else it is dropped).
 */
export async function startHttpServer(
  name: Server,
  options: { wrap?: string[]; log?: string } = {},
): Promise<HttpServer> {
  const port = freePort();
  const [command, ...args] = [
    ...(options.wrap ?? []),
    Deno.execPath(),
    ...serverArgs(name, port),
  ];
  const process = new Deno.Command(command, {
    args,
    stdout: "piped",
    stderr: options.log === undefined ? "null" : "piped",
  }).spawn();
  if (options.log !== undefined) {
    const log = Deno.openSync(options.log, { append: true, create: true });
    process.stderr.pipeTo(log.writable);
  }
  await untilReady(process, `${name} server`);
  return { port, process, cookie: await login(name, port) };
}

/**
 * One `wrk` run of a scenario against a server. Throws when an answer has
 * another status than the scenario's (for the miss, wrk counts every
 * answer as non-2xx), or, with `socketErrors: false`, on a socket error.
 */
export async function loadScenario(
  server: HttpServer,
  scenario: Scenario,
  dir: string,
  options: {
    seconds: number;
    connections?: number;
    timeout?: number;
    socketErrors?: boolean;
  },
): Promise<WrkResult> {
  const result = await wrkRun(
    `http://127.0.0.1:${server.port}${scenario.path}`,
    {
      seconds: options.seconds,
      connections: options.connections,
      timeout: options.timeout,
      script: await wrkScript(scenario, dir, server.cookie),
    },
  );
  const expected = (scenario.status ?? 200) >= 400 ? result.total : 0;
  if (
    result.non2xx !== expected ||
    (options.socketErrors === false && result.socketErrors)
  ) {
    throw new Error(`unexpected answers:\n${result.text}`);
  }
  return result;
}
