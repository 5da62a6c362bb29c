/**
 * Where the whole app's instructions go, per function: one contender
 * (`_server.ts`) under callgrind with V8 writing its code map
 * (`--perf-basic-prof`, `/tmp/perf-<pid>.map`), a request warmed, then
 * counted over `requests` requests; the dump's self cost of each code
 * address is credited to the JavaScript function (or V8 builtin) whose
 * code holds it, and to the symbol callgrind names for native code.
 * Prints the top `top` functions by self instructions per request.
 *
 *   deno run -A --unstable-kv bench/app/profile.ts [--contender=fetchkit] [--scenario=dashboard] [--requests=100] [--warm=3] [--top=60]
 *
 * `--encoding=identity` sends that `Accept-Encoding` (default: Deno's
 * fetch's own, `gzip, br`).
 *
 * Needs `valgrind`. Inclusive costs are not given: V8's generated code has
 * no call frames callgrind can follow.
 *
 * @module
 */
import { callgrindControl } from "../_callgrind.ts";
import {
  type Contender,
  formHeaders,
  loginBody,
  options,
  origin,
  signIn,
  startContender,
  USERS,
} from "./_contenders.ts";

const args = options();
const contender = (args.contender ?? "fetchkit") as Contender;
const scenario = args.scenario ?? "dashboard";
const requests = Number(args.requests ?? 100);
const warm = Number(args.warm ?? 3);
const top = Number(args.top ?? 60);
// Deno's fetch sends "gzip, br" unless told otherwise, as browsers do.
const encoding = args.encoding;
const extra: Record<string, string> = encoding === undefined
  ? {}
  : { "accept-encoding": encoding };

const dir = await Deno.makeTempDir({ prefix: "app-profile-" });
const server = await startContender(contender, {
  prefix: [
    "valgrind",
    "--tool=callgrind",
    "--smc-check=all-non-file",
    "--instr-atstart=no",
    "--compress-strings=no",
    "--compress-pos=no",
    `--callgrind-out-file=${dir}/callgrind`,
  ],
  flags: ["--v8-flags=--perf-basic-prof,--interpreted-frames-native-stack"],
  env: { STORE_TIMEOUT_MS: "120000" },
});

async function check(response: Promise<Response>, status: number) {
  const answer = await response;
  await answer.body?.cancel();
  if (answer.status !== status) throw new Error(`${answer.status}`);
}

let send: (i: number) => Promise<void>;
if (scenario === "dashboard") {
  const cookie = await signIn(server.port);
  send = () =>
    check(
      fetch(`${origin(server.port)}/dashboard`, {
        headers: { cookie, ...extra },
      }),
      200,
    );
} else {
  send = (i) =>
    check(
      fetch(`${origin(server.port)}/auth/login`, {
        method: "POST",
        headers: { ...formHeaders(server.port), ...extra },
        body: loginBody(i % USERS),
        redirect: "manual",
      }),
      303,
    );
}

try {
  for (let i = 0; i < warm * requests; i++) await send(i);
  await callgrindControl(server.pid, "--zero");
  await callgrindControl(server.pid, "--instr=on");
  for (let i = 0; i < requests; i++) await send(i);
  await callgrindControl(server.pid, "--instr=off");
  await callgrindControl(server.pid, "--dump");
  let dump = "";
  for (let tries = 0; tries < 600; tries++) {
    const names = [...Deno.readDirSync(dir)].map((entry) => entry.name)
      .filter((name) => name.startsWith("callgrind.") || name === "callgrind");
    const file = names.find((name) => name.endsWith(".1"));
    if (file !== undefined) {
      const text = await Deno.readTextFile(`${dir}/${file}`);
      if (/^totals: /m.test(text)) {
        dump = text;
        break;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const map = await codeMap(server.pid);
  report(dump, map);
} finally {
  await server.stop();
  await Deno.remove(dir, { recursive: true });
}

/** V8's code map: sorted starts, ends and names. */
async function codeMap(pid: number) {
  // Deno runs as valgrind's child with the same pid (valgrind execs it).
  const text = await Deno.readTextFile(`/tmp/perf-${pid}.map`);
  const rows = text.split("\n").filter(Boolean).map((line) => {
    const [start, size, ...name] = line.split(" ");
    const from = parseInt(start!, 16);
    return { from, to: from + parseInt(size!, 16), name: name.join(" ") };
  }).sort((a, b) => a.from - b.from);
  await Deno.remove(`/tmp/perf-${pid}.map`).catch(() => {});
  return rows;
}

function lookup(
  rows: { from: number; to: number; name: string }[],
  address: number,
): string | undefined {
  let low = 0, high = rows.length - 1, found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (rows[mid]!.from <= address) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  if (found < 0) return undefined;
  const row = rows[found]!;
  return address < row.to ? row.name : undefined;
}

function report(
  dump: string,
  rows: { from: number; to: number; name: string }[],
) {
  const self = new Map<string, number>();
  let fn = "";
  let skipNext = false;
  let total = 0;
  for (const line of dump.split("\n")) {
    if (line.startsWith("fn=")) {
      fn = line.slice(3).replace(/'\d+$/, "");
      continue;
    }
    if (line.startsWith("calls=")) {
      skipNext = true;
      continue;
    }
    if (/^[0-9+-]/.test(line)) {
      if (skipNext) {
        skipNext = false;
        continue;
      }
      const parts = line.split(" ");
      const cost = Number(parts[1] ?? 0);
      let name = fn;
      const address = /^0x([0-9a-f]+)('\d+)?$/.exec(fn);
      if (address !== null) {
        const found = lookup(rows, parseInt(address[1]!, 16));
        name = found === undefined ? "(unmapped JIT code)" : found;
      }
      self.set(name, (self.get(name) ?? 0) + cost);
      total += cost;
    }
  }
  const sorted = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  console.log(
    `${contender} ${scenario}: ${fmt(total / requests)} instructions/request`,
  );
  for (const [name, cost] of sorted) {
    console.log(
      `${fmt(cost / requests).padStart(10)}  ${
        (100 * cost / total).toFixed(1).padStart(5)
      }%  ${name}`,
    );
  }
}
