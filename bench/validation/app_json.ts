/**
 * The validated JSON scenario of `bench/runtimes/_apps.ts` (`POST
 * /api/orders`, 1,025 bytes of JSON, one valibot schema as the route's
 * `body`, a JSON answer) in process, on Deno, Node and Bun: our app's
 * `router.fetch` (`fetchkitFetch()`) against Hono's (`honoApp()`,
 * `sValidator("json")`), and with `--base=<dir>` our app on an earlier
 * checkout beside it. No server or socket takes part: each batch's
 * `Request`s (bytes with a `Content-Length`, as a server's requests carry)
 * are built before the batch runs, and every answer's body is read.
 *
 * Two measures, contenders interleaved A B C in every round:
 *
 * - `--mode=instructions` (default): one process per runtime under
 *   callgrind with counting off, switched on around each batch
 *   (`callgrind_control`); instructions per request (user space, every
 *   thread: JIT and GC included). The counts do not move with the
 *   machine's load.
 * - `--mode=cpu`: CPU time per request (`process.cpuUsage()`, GC
 *   included), no valgrind.
 *
 * ```sh
 * deno run -A bench/validation/app_json.ts [--runtimes=deno,node,bun]
 *   [--mode=instructions|cpu] [--rounds=3] [--requests=2000]
 *   [--warm=3000] [--base=/tmp/base-checkout] [--parts]
 * ```
 *
 * With `--parts`, `_app_json_parts.ts` adds `parseJson()` in a plain handler
 * (no router) and the bare `request.json()` + schema, answering the same.
 *
 * Each root's `_apps.ts` is bundled (`deno bundle`, from that root, so its
 * own `@fetchkit/toolkit` resolves) into `bench/runtimes/.out/`, where the
 * peers' `node_modules` resolve; the base checkout needs
 * `bench/runtimes/node_modules` (a symbolic link to this one's will do).
 *
 * @module
 */
import { countWhile } from "../_callgrind.ts";
import { denoBundle } from "../_bundle.ts";
import { childLines } from "../_child_lines.ts";
import { join } from "node:path";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";
import { ORDER_BODY } from "../runtimes/_app_data.ts";

const OUT = join(ROOT, "bench/runtimes/.out");

const args = new Map(
  Deno.args.map((arg) => {
    const [key, ...value] = arg.replace(/^--/, "").split("=");
    return [key!, value.join("=")] as const;
  }),
);
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const mode = args.get("mode") ?? "instructions";
const rounds = Number(args.get("rounds") ?? 3);
const requests = Number(args.get("requests") ?? 2000);
const base = args.get("base");
const warm = Number(args.get("warm") ?? 3000);
const withParts = args.has("parts");

/** Bundles `root`'s `_apps.ts` as a module that exports its apps. */
function bundle(
  root: string,
  name: string,
  file = "bench/runtimes/_apps.ts",
): Promise<string> {
  return denoBundle(join(root, file), join(OUT, `app_json_${name}.mjs`), {
    cwd: root,
    external: ["@hono/node-server"],
  });
}

/**
 * The program each runtime runs: lines `<contender> <count>` on stdin; for
 * each, `count` requests are built, "ready" is printed, and on the next line
 * they are sent and "done <cpu µs per request>" printed.
 */
function entry(
  bundles: [string, string][],
  partBundles: [string, string][],
): string {
  return `
import process from "node:process";
const ORDER_BODY = ${JSON.stringify(ORDER_BODY)};
const apps = {};
${
    bundles.map(([name, file], i) =>
      `const m${i} = await import(${JSON.stringify(file)});
apps[${JSON.stringify(name)}] = m${i}.fetchkitFetch();
${i === 0 ? `apps.hono = m0.honoApp();` : ""}`
    ).join("\n")
  }
${
    partBundles.map(([name, file], i) =>
      `const p${i} = (await import(${JSON.stringify(file)})).parts();
for (const part in p${i}) apps[${
        JSON.stringify(name)
      } + ":" + part] = p${i}[part];`
    ).join("\n")
  }
const bytes = new TextEncoder().encode(ORDER_BODY);
const request = () => new Request("http://127.0.0.1:8000/api/orders", {
  method: "POST",
  headers: {
    "content-type": "application/json",
    "content-length": String(bytes.length),
  },
  body: bytes,
});
async function send(app, list) {
  for (const r of list) {
    const response = await app(r);
    if (response.status !== 200) throw new Error("status " + response.status);
    await response.text();
  }
}
const lines = (async function* () {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of process.stdin) {
    buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk);
    let newline;
    while ((newline = buffer.indexOf("\\n")) !== -1) {
      yield buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
    }
  }
})();
const say = (text) => process.stdout.write(text + "\\n");
// Warm every contender up.
for (const app of Object.values(apps)) {
  for (let left = ${warm}; left > 0; left -= 500) {
    await send(app, Array.from({ length: Math.min(left, 500) }, request));
  }
}
say("warm " + Object.keys(apps).join(","));
for (;;) {
  const { value: line, done } = await lines.next();
  if (done || line === "") break;
  const [name, countText] = line.split(" ");
  const list = Array.from({ length: Number(countText) }, request);
  // A full collection before each batch, so no batch pays for garbage
  // an earlier contender left.
  if (globalThis.Bun) globalThis.Bun.gc(true);
  else globalThis.gc();
  say("ready");
  await lines.next();
  const start = process.cpuUsage();
  await send(apps[name], list);
  const used = process.cpuUsage(start);
  say("done " + ((used.user + used.system) / list.length));
}
process.exit(0);
`;
}

/** Per contender, the figure of each round (instructions or µs). */
async function run(
  command: string[],
  contenders: string[],
): Promise<Map<string, number[]>> {
  const instructions = mode === "instructions";
  const file = join(OUT, `app_json.${crypto.randomUUID()}.callgrind`);
  const child = new Deno.Command(
    instructions ? "valgrind" : command[0]!,
    {
      args: instructions
        ? [
          "--tool=callgrind",
          "--smc-check=all-non-file",
          "--instr-atstart=no",
          `--callgrind-out-file=${file}`,
          ...command,
        ]
        : command.slice(1),
      stdin: "piped",
      stdout: "piped",
      stderr: instructions ? "null" : "inherit",
    },
  ).spawn();
  const { send, line, close } = childLines(child, command.join(" "));
  const warm = await line();
  if (!warm.startsWith("warm")) throw new Error(`expected warm: ${warm}`);
  const figures = new Map(contenders.map((name) => [name, [] as number[]]));
  let dumps = 0;
  for (let round = 0; round < rounds; round++) {
    for (const name of contenders) {
      await send(`${name} ${requests}`);
      if (await line() !== "ready") throw new Error("expected ready");
      const batch = async () => {
        await send("go");
        const done = await line();
        if (!done.startsWith("done")) throw new Error(`expected done: ${done}`);
        return done;
      };
      if (instructions) {
        const { total } = await countWhile(
          child.pid,
          `${file}.${++dumps}`,
          batch,
        );
        figures.get(name)!.push(total / requests);
      } else {
        figures.get(name)!.push(Number((await batch()).split(" ")[1]));
      }
    }
  }
  await send("");
  await close();
  await child.status;
  await Deno.remove(file).catch(() => {});
  return figures;
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

await Deno.mkdir(OUT, { recursive: true });
const bundles: [string, string][] = [["ours", await bundle(ROOT, "ours")]];
if (base !== undefined) bundles.push(["base", await bundle(base, "base")]);
const program = join(OUT, "app_json_entry.mjs");
const partBundles: [string, string][] = [];
if (withParts) {
  const file = "bench/validation/_app_json_parts.ts";
  partBundles.push(["ours", await bundle(ROOT, "ours_parts", file)]);
  // An earlier checkout without this file has no parts to add.
  if (base !== undefined) {
    try {
      partBundles.push(["base", await bundle(base, "base_parts", file)]);
    } catch {
      console.error(`no ${file} in ${base}: its parts are left out`);
    }
  }
}
await Deno.writeTextFile(program, entry(bundles, partBundles));
const contenders = [
  ...bundles.map(([name]) => name),
  "hono",
  ...partBundles.flatMap(([name]) => [`${name}:parseJson`, `${name}:bare`]),
];

const unit = mode === "instructions" ? "instructions" : "µs CPU";
const fmt = (n: number) =>
  mode === "instructions"
    ? Math.round(n).toLocaleString("en-US")
    : n.toFixed(2);
console.log(
  `| runtime | ${
    contenders.map((name) => `${name} (${unit}/request)`).join(" | ")
  } | ours ÷ hono |${base === undefined ? "" : " ours ÷ base |"}`,
);
console.log(`|---|${"---:|".repeat(contenders.length + (base ? 2 : 1))}`);
for (const runtime of runtimes) {
  const command = runtime === "deno"
    ? [Deno.execPath(), "run", "-A", "--v8-flags=--expose-gc", program]
    : runtime === "node"
    ? ["node", "--expose-gc", program]
    : [await bunBinary() ?? "bun", program];
  const figures = await run(command, contenders);
  const cell = (name: string) => {
    const xs = figures.get(name)!;
    return `${fmt(median(xs))} [${xs.map(fmt).join(", ")}]`;
  };
  const ratio = (a: string, b: string) => {
    const xs = figures.get(a)!.map((x, i) => x / figures.get(b)![i]!);
    return `${median(xs).toFixed(3)} [${Math.min(...xs).toFixed(2)}-${
      Math.max(...xs).toFixed(2)
    }]`;
  };
  console.log(
    `| ${runtime} | ${contenders.map(cell).join(" | ")} | ${
      ratio("ours", "hono")
    } |${base === undefined ? "" : ` ${ratio("ours", "base")} |`}`,
  );
}
