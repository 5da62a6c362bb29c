// Over HTTP, in instructions: the servers of http_load.ts (fetchkit with
// parseJson, fetchkit with the bare path, Hono with sValidator('json')),
// each run under callgrind with counting off, warmed with wrk, then counted
// over `seconds` of wrk per round with `callgrind_control` switching
// counting on and off; the count is divided by the requests wrk completed.
// User space, every thread of the server (JIT and GC included), not the
// kernel's share; independent of the machine's load, unlike req/s.
//
//   deno run --allow-all bench/validation/http_instructions.ts [rounds=2] [seconds=10] [1k|100k]
import { freePort, untilReady, wrkRun } from "../_load.ts";
import { LARGE, SMALL } from "./_fixtures.ts";

const rounds = Number(Deno.args[0] ?? 2);
const seconds = Number(Deno.args[1] ?? 10);
const size = Deno.args[2] ?? "1k";
const body = size === "100k" ? LARGE : SMALL;
const SERVERS = ["fetchkit", "fetchkit-bare", "hono"];
// valgrind runs a server some 30x slower: few connections suffice.
const CONNECTIONS = 4;
const WARM_REQUESTS = size === "100k" ? 1_000 : 10_000;

const dir = await Deno.makeTempDir({ prefix: "validation_http_instr_" });
const script = `${dir}/post.lua`;
await Deno.writeTextFile(
  script,
  `wrk.method = "POST"
wrk.body = ${JSON.stringify(body)}
wrk.headers["Content-Type"] = "application/json"
`,
);

async function control(pid: number, ...args: string[]): Promise<void> {
  const { success } = await new Deno.Command("callgrind_control", {
    args: [...args, String(pid)],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!success) throw new Error(`callgrind_control ${args.join(" ")} failed`);
}

async function dumpTotal(file: string): Promise<number> {
  for (let tries = 0; tries < 300; tries++) {
    try {
      const total = /^totals: (\d+)/m.exec(await Deno.readTextFile(file));
      if (total !== null) return Number(total[1]);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no callgrind dump at ${file}`);
}

async function load(port: number, secs: number) {
  const result = await wrkRun(`http://127.0.0.1:${port}/orders`, {
    seconds: secs,
    connections: CONNECTIONS,
    script,
    timeout: 30,
  });
  if (result.non2xx > 0) throw new Error(`errors under load:\n${result.text}`);
  return result.total;
}

const perRequest: Record<string, number[]> = {};
try {
  for (const name of SERVERS) {
    const port = freePort();
    const out = `${dir}/callgrind.${name}`;
    const child = new Deno.Command("valgrind", {
      args: [
        "--tool=callgrind",
        // V8 writes and rewrites machine code on the heap.
        "--smc-check=all-non-file",
        "--instr-atstart=no",
        `--callgrind-out-file=${out}`,
        Deno.execPath(),
        "run",
        "--allow-net=127.0.0.1",
        new URL("./_http_server.ts", import.meta.url).pathname,
        name,
        String(port),
      ],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    try {
      await untilReady(child, name);
      let warmed = 0;
      const started = Date.now();
      while (warmed < WARM_REQUESTS && Date.now() - started < 90_000) {
        warmed += await load(port, 5);
      }
      for (let round = 1; round <= rounds; round++) {
        await control(child.pid, "-i", "on");
        const requests = await load(port, seconds);
        await control(child.pid, "-d");
        await control(child.pid, "-i", "off");
        const total = await dumpTotal(`${out}.${round}`);
        (perRequest[name] ??= []).push(total / requests);
        console.error(`${name} round ${round}: ${requests} requests`);
      }
    } finally {
      child.kill("SIGTERM");
      await child.status;
    }
  }
  const median = (xs: number[]) =>
    [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
  console.log(
    `POST ${size} JSON (${body.length} bytes) over HTTP, instructions per request in the server (${rounds} rounds of ${seconds} s of wrk -t1 -c${CONNECTIONS}):`,
  );
  for (const name of SERVERS) {
    console.log(
      `  ${name}: ${k(median(perRequest[name]))} [${
        perRequest[name].map(k).join(", ")
      }]`,
    );
  }
  console.log(
    `  fetchkit / Hono: ${
      (median(perRequest.fetchkit) / median(perRequest.hono)).toFixed(3)
    }; fetchkit / fetchkit-bare: ${
      (median(perRequest.fetchkit) / median(perRequest["fetchkit-bare"]))
        .toFixed(3)
    }`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
