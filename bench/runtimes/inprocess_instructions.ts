/**
 * Instructions per request of our router in process, on Deno, Node and
 * Bun: the hello-world app of `_servers.ts` (its five scenarios), each
 * scenario's request sent `--requests` times to `router.fetch` in one
 * process under callgrind, less the same process sending none, divided by
 * the count. No server, socket or load generator takes part, so the
 * figure does not move with the machine's load (where `instructions.ts`,
 * whose windows need the server to answer under valgrind within seconds,
 * can fail on a loaded machine); it counts the router, not the runtime's
 * HTTP server. With `--base=<dir>` the same app on an earlier checkout
 * runs beside it, for before/after.
 *
 * ```sh
 * deno run -A bench/runtimes/inprocess_instructions.ts [--requests=20000]
 *   [--runtimes=deno,node,bun] [--scenarios=static,404] [--base=<dir>]
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";
import { options, OUT, SCENARIOS } from "./_bench.ts";

const args = options();
const requests = Number(args.get("requests") ?? 20_000);
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const words = args.get("scenarios")?.split(",");
const scenarios = SCENARIOS.filter((scenario) =>
  scenario.group === "hello" &&
  (words === undefined || words.some((word) => scenario.name.includes(word)))
);
const baseRoot = args.get("base");
const roots: [string, string][] = [["ours", ROOT]];
if (baseRoot !== undefined) roots.push(["base", baseRoot]);

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
const argv = globalThis.Deno?.args ?? globalThis.process.argv.slice(2);
const [path, post, count] = [argv[0], argv[1] === "post", Number(argv[2])];
const body = "text=hello+world&n=1";
const request = () => new Request("http://127.0.0.1:8000" + path, post
  ? { method: "POST", body, headers: {
      "content-type": "application/x-www-form-urlencoded",
      "content-length": String(body.length) } }
  : { headers: { accept: "*/*", "user-agent": "bench" } });
// Warm-up, so the optimising compilers are done before the counted part
// (both runs warm up alike, so it cancels out).
for (let i = 0; i < 5000; i++) await (await router.fetch(request())).text();
for (let i = 0; i < count; i++) await (await router.fetch(request())).text();
`;
}

async function run(command: string[]): Promise<number> {
  const file = join(OUT, `inprocess.${crypto.randomUUID()}.callgrind`);
  const { success, stderr } = await new Deno.Command("valgrind", {
    args: [
      "--tool=callgrind",
      "--smc-check=all-non-file",
      `--callgrind-out-file=${file}`,
      ...command,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) {
    throw new Error(
      `${command.join(" ")}: ${new TextDecoder().decode(stderr).slice(-2000)}`,
    );
  }
  const text = await Deno.readTextFile(file);
  await Deno.remove(file);
  return Number(/^totals: (\d+)/m.exec(text)![1]);
}

await Deno.mkdir(OUT, { recursive: true });
const programs = new Map<string, { js: string }>();
for (const [name, root] of roots) {
  const ts = join(OUT, `inprocess_${name}.ts`);
  await Deno.writeTextFile(ts, entry(root));
  const js = join(OUT, `inprocess_${name}.mjs`);
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform=deno", "-o", js, ts],
    cwd: root,
  }).output();
  if (!built.success) {
    throw new Error(new TextDecoder().decode(built.stderr));
  }
  programs.set(name, { js });
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const rows: string[] = [];
for (const runtime of runtimes) {
  for (const scenario of scenarios) {
    const cells: number[] = [];
    for (const [name] of roots) {
      const { js } = programs.get(name)!;
      const command = runtime === "deno"
        ? [Deno.execPath(), "run", "-A", js]
        : [runtime === "node" ? "node" : await bunBinary() ?? "bun", js];
      const argv = [scenario.path, scenario.post ? "post" : "get"];
      const none = await run([...command, ...argv, "0"]);
      const some = await run([...command, ...argv, String(requests)]);
      const per = (some - none) / requests;
      cells.push(per);
      console.error(`${runtime} ${name} ${scenario.name}: ${fmt(per)}`);
    }
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
