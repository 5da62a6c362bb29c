/**
 * Instructions per request of our router in process, on Deno, Node and
 * Bun: the hello-world app of `_servers.ts` (its five scenarios), each
 * scenario's request sent `--requests` times to `router.fetch` in one
 * process under callgrind, counted only while those requests run (after
 * `--warm` of warm-up, 3,000 by default; `callgrind_control` switches
 * counting on and off), divided by the count. No server, socket or load
 * generator takes part, so the figure does not move with the machine's load (where `instructions.ts`,
 * whose windows need the server to answer under valgrind within seconds,
 * can fail on a loaded machine); it counts the router, not the runtime's
 * HTTP server. With `--base=<dir>` the same app on an earlier checkout
 * runs beside it, for before/after.
 *
 * With `--serve`, the app runs under `serve()` on a loopback port and each
 * request goes over one keep-alive socket from the same process (a raw
 * HTTP/1.1 client of a few lines): the count then holds the runtime's
 * server, `serve()`'s adapter (Bun's native routes, `@hono/node-server`)
 * and that client too, which is the same for every checkout; still no
 * other process and no timing window, so a loaded machine does not move it.
 *
 * With `--native` (Bun), each request goes to the function the router
 * hands `Bun.serve` as its route, called as Bun calls it and wrapped as
 * `serve()` wraps it, with no socket: a POST's body is a stream that gets
 * its bytes after the route function returned (as most bodies arrive on
 * Bun's server), so the count holds the router's whole wait for the body.
 *
 * ```sh
 * deno run -A bench/runtimes/inprocess_instructions.ts [--requests=20000]
 *   [--runtimes=deno,node,bun] [--scenarios=static,404] [--base=<dir>]
 *   [--serve | --native] [--warm=3000] [--threads=main]
 * ```
 *
 * @module
 */
import { countWhile } from "../_callgrind.ts";
import { denoBundle } from "../_bundle.ts";
import { childLines } from "../_child_lines.ts";
import { join } from "node:path";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";
import { options, OUT, SCENARIOS } from "./_bench.ts";

const args = options();
const requests = Number(args.get("requests") ?? 20_000);
// Requests of each scenario before counting (JIT tiers compile meanwhile,
// on threads callgrind counts too).
const warm = Number(args.get("warm") ?? 3_000);
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const words = args.get("scenarios")?.split(",");
const scenarios = SCENARIOS.filter((scenario) =>
  scenario.group === "hello" &&
  (words === undefined || words.some((word) => scenario.name.includes(word)))
);
const baseRoot = args.get("base");
const overHttp = args.has("serve");
// `--native` (Bun): the router's Bun routes called directly, as Bun.serve
// calls them, with a POST body that arrives after the route returned.
const native = args.has("native");
// `--threads=main`: count the main thread only (as instructions.ts does),
// not the JIT compiler's and GC's helper threads, whose share moves.
const mainThread = args.get("threads") === "main";
// `--only=base` counts the base checkout alone (to run it beside a
// separate count of ours, on a machine with cores to spare).
const only = args.get("only");
const roots: [string, string][] = [["ours", ROOT]];
if (baseRoot !== undefined) roots.push(["base", baseRoot]);
if (only !== undefined) {
  roots.splice(
    0,
    roots.length,
    ...roots.filter(([name]) => name === only),
  );
}

/**
 * `send(path, post)` for the loop: `router.fetch` in process, or (with
 * `--serve`) the request over a keep-alive socket to `serve(router.fetch)`.
 */
function sender(root: string): string {
  if (native) {
    // The functions the router hands Bun.serve as routes, called as Bun
    // calls them (Bun's server as the info, `request.params` set as Bun's
    // router sets it), wrapped as serve() wraps them (`track`: one WeakMap
    // look-up); a POST's body arrives after the route function returned,
    // as most do on Bun's server.
    return `
const BUN_ROUTES = Symbol.for("fetchkit.serve.bunRoutes");
const TRACKED = Symbol.for("fetchkit.serve.bunTracked");
const table = new WeakMap();
const track = (response: Response) => { table.get(response); return response; };
const routes = (router.fetch as any)[BUN_ROUTES](track);
const own = routes[TRACKED] === true;
const info = { requestIP: () => ({ address: "127.0.0.1", port: 40000 }) };
const encoded = new TextEncoder().encode(body);
const KEYS: Record<string, [string, Record<string, string> | undefined]> = {
  "/": ["/", undefined],
  "/users/42/posts/7": ["/users/:userId/posts/:postId", { userId: "42", postId: "7" }],
  "/mw": ["/mw", undefined],
  "/echo": ["/echo", undefined],
};
const send = async (path: string, post: boolean) => {
  const [key, params] = KEYS[path] ?? ["/*", undefined];
  const entry = routes[key];
  const method = post ? "POST" : "GET";
  const route = typeof entry === "function" ? entry : entry[method];
  let controller: ReadableStreamDefaultController | undefined;
  const request = new Request("http://127.0.0.1:8000" + path, post
    ? { method, headers: {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": String(body.length) },
        body: new ReadableStream({ start(c) { controller = c; } }) }
    : { headers: { accept: "*/*", "user-agent": "bench" } });
  if (params !== undefined) (request as any).params = params;
  const result = route(request, info);
  const answer = result instanceof Promise
    ? (own ? result : result.then(track))
    : track(result);
  if (controller !== undefined) {
    controller.enqueue(encoded);
    controller.close();
  }
  await (await answer).text();
};`;
  }
  if (!overHttp) {
    return `
const send = async (path: string, post: boolean) => {
  const request = new Request("http://127.0.0.1:8000" + path, post
    ? { method: "POST", body, headers: {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": String(body.length) } }
    : { headers: { accept: "*/*", "user-agent": "bench" } });
  await (await router.fetch(request)).text();
};`;
  }
  return `
import { serve } from "${root}/serve/mod.ts";
import { connect } from "node:net";
const server = serve(router.fetch, { hostname: "127.0.0.1", port: 0, handleSignals: false });
await new Promise((resolve) => setTimeout(resolve, 100));
const socket = connect(server.addr.port, "127.0.0.1");
socket.setNoDelay(true);
socket.setEncoding("latin1");
let received = "";
let wake: (() => void) | undefined;
socket.on("data", (chunk: string) => { received += chunk; wake?.(); });
await new Promise((resolve) => socket.once("connect", resolve));
/** Waits for one whole response (Content-Length or chunked) and drops it. */
async function response(): Promise<void> {
  for (;;) {
    const end = received.indexOf("\\r\\n\\r\\n");
    if (end !== -1) {
      const head = received.slice(0, end).toLowerCase();
      const length = /\\r\\ncontent-length: *(\\d+)/.exec(head);
      if (length !== null) {
        const total = end + 4 + Number(length[1]);
        if (received.length >= total) { received = received.slice(total); return; }
      } else {
        const last = received.indexOf("\\r\\n0\\r\\n\\r\\n", end);
        if (last !== -1) { received = received.slice(last + 7); return; }
      }
    }
    await new Promise<void>((resolve) => wake = resolve);
    wake = undefined;
  }
}
const send = async (path: string, post: boolean) => {
  socket.write(post
    ? "POST " + path + " HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/x-www-form-urlencoded\\r\\nContent-Length: " + body.length + "\\r\\n\\r\\n" + body
    : "GET " + path + " HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAccept: */*\\r\\nUser-Agent: bench\\r\\n\\r\\n");
  await response();
};`;
}

/** The app and the loop, importing the router of `root`. */
function entry(root: string): string {
  return `
import { createRouter } from "${root}/router/mod.ts";
import { formData, FormFields } from "${root}/form_data/mod.ts";
const router = createRouter();
router.get("/", () => new Response("home"));
router.get("/users/:userId/posts/:postId", ({ params }) =>
  Response.json({ userId: params.userId, postId: params.postId }));
router.get(
  "/mw",
  (context, next) => { context.headers.get("accept"); return next(); },
  (context, next) => { context.headers.get("user-agent"); return next(); },
  (context, next) => { context.responseHeaders.set("x-bench", "1"); return next(); },
  () => new Response("mw"),
);
router.post("/echo", formData(), ({ get }) =>
  new Response(String(get(FormFields)?.text ?? "")));
// Scenarios as "path post|get" lines on stdin; for each: warm up, say
// "ready", wait for a line (counting is switched on then), send
// \`count\` requests, say "done", wait for a line (counting is off).
const count = Number((globalThis.Deno?.args ?? globalThis.process.argv.slice(2))[0]);
const body = "text=hello+world&n=1";
${sender(root)}
const lines = (async function* () {
  const decoder = new TextDecoder();
  let buffer = "";
  const input = globalThis.Deno?.stdin.readable ?? globalThis.process.stdin;
  for await (const chunk of input) {
    buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk);
    let newline;
    while ((newline = buffer.indexOf("\\n")) !== -1) {
      yield buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
    }
  }
})();
const say = (text: string) => globalThis.Deno
  ? globalThis.Deno.stdout.writeSync(new TextEncoder().encode(text + "\\n"))
  : globalThis.process.stdout.write(text + "\\n");
for (;;) {
  const { value: line, done } = await lines.next();
  if (done || line === "") break;
  const [path, method] = line.split(" ");
  const post = method === "post";
  for (let i = 0; i < ${warm}; i++) await send(path, post);
  say("ready");
  await lines.next();
  for (let i = 0; i < count; i++) await send(path, post);
  say("done");
  await lines.next();
}
${overHttp ? "socket.destroy(); await server.shutdown();" : ""}
`;
}

/**
 * Runs `command` under callgrind with counting off, and counts each
 * scenario's requests alone: instructions per request, by scenario name.
 */
async function count(command: string[]): Promise<Map<string, number>> {
  const file = join(OUT, `inprocess.${crypto.randomUUID()}.callgrind`);
  const child = new Deno.Command("valgrind", {
    args: [
      "--tool=callgrind",
      "--smc-check=all-non-file",
      "--instr-atstart=no",
      ...(mainThread ? ["--separate-threads=yes"] : []),
      `--callgrind-out-file=${file}`,
      ...command,
      String(requests),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const { send, line, close } = childLines(child, command.join(" "));
  const counts = new Map<string, number>();
  let dumps = 0;
  // Over HTTP, every scenario once uncounted first: the server's and the
  // client's code compiles on JIT threads that the first scenario's count
  // would hold otherwise.
  for (const scenario of overHttp ? scenarios : []) {
    await send(`${scenario.path} ${scenario.post ? "post" : "get"}`);
    if (await line() !== "ready") throw new Error("expected ready");
    await send("go");
    if (await line() !== "done") throw new Error("expected done");
    await send("next");
  }
  for (const scenario of scenarios) {
    await send(`${scenario.path} ${scenario.post ? "post" : "get"}`);
    if (await line() !== "ready") throw new Error("expected ready");
    const { total } = await countWhile(
      child.pid,
      `${file}.${++dumps}`,
      async () => {
        await send("go");
        if (await line() !== "done") throw new Error("expected done");
      },
      { thread: mainThread ? 1 : undefined },
    );
    counts.set(scenario.name, total / requests);
    await send("next");
  }
  await send("");
  await close();
  await child.status;
  await Deno.remove(file).catch(() => {});
  return counts;
}

await Deno.mkdir(OUT, { recursive: true });
const programs = new Map<string, { js: string }>();
for (const [name, root] of roots) {
  const ts = join(OUT, `inprocess_${name}.ts`);
  await Deno.writeTextFile(ts, entry(root));
  const js = await denoBundle(ts, join(OUT, `inprocess_${name}.mjs`), {
    cwd: root,
    external: ["@hono/node-server"],
  });
  programs.set(name, { js });
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const rows: string[] = [];
for (const runtime of runtimes) {
  const byRoot: Map<string, number>[] = [];
  for (const [name] of roots) {
    const { js } = programs.get(name)!;
    const command = runtime === "deno"
      ? [Deno.execPath(), "run", "-A", js]
      : [runtime === "node" ? "node" : await bunBinary() ?? "bun", js];
    const counts = await count(command);
    for (const [scenario, per] of counts) {
      console.error(`${runtime} ${name} ${scenario}: ${fmt(per)}`);
    }
    byRoot.push(counts);
  }
  for (const scenario of scenarios) {
    const cells = byRoot.map((counts) => counts.get(scenario.name)!);
    rows.push(
      `| ${runtime}, ${scenario.name} | ${cells.map(fmt).join(" | ")} |${
        cells.length > 1 ? ` ${(cells[0]! / cells[1]!).toFixed(3)} |` : ""
      }`,
    );
  }
}
console.log(
  `| runtime, scenario | ${roots.map(([name]) => name).join(" | ")} |${
    roots.length > 1 ? " ours ÷ base |" : ""
  }`,
);
console.log(
  `|---|${"---:|".repeat(roots.length + (roots.length > 1 ? 1 : 0))}`,
);
for (const row of rows) console.log(row);
