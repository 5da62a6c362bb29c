/**
 * System calls and minor page faults a request, per server and scenario
 * of `load.ts`: each server is started (no valgrind), its scenarios
 * warmed with wrk, then `strace -f -c` is attached to every thread of the
 * process for a window of `--requests` answers (wrk ends the window at
 * the last answer, as `instructions.ts` does), and each system call's
 * count is divided by the answers. strace slows the server, but a count
 * is what it is: how many `read`, `write`, `epoll_wait` and futex calls a
 * request costs, which is where a server's kernel time goes when its
 * instructions (user space, main thread) are level with a peer's and its
 * CPU is not. Minor page faults a request, and CPU a request by thread
 * name (the main thread, the runtime's GC and JIT helpers), are read from
 * `/proc` over a window of the same length without strace.
 *
 * ```sh
 * deno run -A bench/runtimes/syscalls.ts [--runtimes=bun,node] [--servers=fetchkit,elysia]
 *   [--scenarios=middlewares,404] [--requests=20000] [--connections=32] [--warm=2] [--repeat=1]
 * ```
 *
 * `--connections` (default 32, as `load.ts`'s CPU rounds): how many
 * requests are in flight, which decides how many answers one `epoll_wait`
 * and one `read` serve. Needs `strace` and `wrk`.
 *
 * @module
 */
import { join } from "node:path";
import { wrkCount, wrkRun } from "../_load.ts";
import { median } from "../_stats.ts";
import {
  build,
  cpuUse,
  loads,
  options,
  OUT,
  prepare,
  SCENARIOS,
  SERVERS,
  start,
} from "./_bench.ts";

const args = options();
const runtimes = (args.get("runtimes") ?? "bun,node,deno").split(",");
const only = args.get("servers")?.split(",");
const words = args.get("scenarios")?.split(",");
const requests = Number(args.get("requests") ?? 20_000);
const connections = Number(args.get("connections") ?? 32);
const warmSeconds = Number(args.get("warm") ?? 2);
const repeat = Number(args.get("repeat") ?? 1);
const scenarios = SCENARIOS.filter((scenario) =>
  words === undefined || words.some((word) => scenario.name.includes(word))
);
const bundled = runtimes.some((runtime) => runtime !== "deno");
const bundles = { bundle: bundled ? (await build()).bundle : "" };
await Deno.mkdir(OUT, { recursive: true });

/** Per runtime|scenario|server: calls a request by name, per repeat. */
const found = new Map<string, Map<string, number>[]>();
const faults = new Map<string, number[]>();
/** Per runtime|scenario|server: µs a request by thread name, per repeat. */
const threads = new Map<string, Map<string, number>[]>();

/**
 * CPU seconds (user + system, 100 ticks a second) of each live thread of
 * `pid` by thread name (threads of one name summed; the main thread as
 * `main`).
 */
async function threadSeconds(pid: number): Promise<Map<string, number>> {
  const seconds = new Map<string, number>();
  for await (const entry of Deno.readDir(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = await Deno.readTextFile(`/proc/${pid}/task/${entry.name}/stat`);
    } catch {
      continue; // the thread ended
    }
    const name = entry.name === String(pid)
      ? "main"
      : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const used = (Number(fields[11]) + Number(fields[12])) / 100;
    seconds.set(name, (seconds.get(name) ?? 0) + used);
  }
  return seconds;
}

/** `strace -c`'s summary: calls by system call name. */
function parseSummary(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const line of text.split("\n")) {
    // % time  seconds  usecs/call  calls  [errors]  syscall
    const match = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/
      .exec(line);
    if (match && match[2] !== "total") calls.set(match[2]!, Number(match[1]));
  }
  return calls;
}

for (const runtime of runtimes) {
  for (const server of SERVERS[runtime]!) {
    if (only !== undefined && !only.includes(server)) continue;
    for (const group of ["hello", "app"] as const) {
      const mine = scenarios.filter((scenario) =>
        scenario.group === group && loads(server, scenario.name)
      );
      if (mine.length === 0) continue;
      const running = await start(runtime, server, bundles, [], group);
      try {
        for (const scenario of mine) {
          const script = await prepare(
            running.port,
            scenario,
            `${runtime} ${server}`,
          );
          const url = `http://127.0.0.1:${running.port}${scenario.path}`;
          await wrkRun(url, { seconds: warmSeconds, connections, script });
          const key = `${runtime}|${scenario.name}|${server}`;
          const scriptFile = join(
            OUT,
            `syscalls_${runtime}_${server}.lua`.replaceAll(/[^\w.]+/g, "_"),
          );
          const count = () =>
            wrkCount(url, {
              requests,
              seconds: 300,
              connections,
              script,
              status: scenario.status,
              scriptFile,
            });
          for (let pass = 0; pass < repeat; pass++) {
            // Minor page faults a request, without strace.
            const before = await cpuUse(running.pid);
            const threadsBefore = await threadSeconds(running.pid);
            const plain = await count();
            const threadsAfter = await threadSeconds(running.pid);
            const after = await cpuUse(running.pid);
            faults.set(key, [
              ...(faults.get(key) ?? []),
              (after.faults - before.faults) / plain.total,
            ]);
            const byThread = new Map<string, number>();
            for (const [name, used] of threadsAfter) {
              const spent = used - (threadsBefore.get(name) ?? 0);
              if (spent > 0) byThread.set(name, spent / plain.total * 1e6);
            }
            threads.set(key, [...(threads.get(key) ?? []), byThread]);
            const out = join(OUT, `strace_${Date.now()}.txt`);
            const strace = new Deno.Command("strace", {
              args: ["-f", "-c", "-o", out, "-p", String(running.pid)],
              stdout: "null",
              stderr: "null",
            }).spawn();
            // strace attaches each thread in turn; give it a moment.
            await new Promise((resolve) => setTimeout(resolve, 500));
            const { total, unexpected } = await count();
            strace.kill("SIGINT");
            await strace.status;
            if (unexpected > 0) {
              throw new Error(`${key}: ${unexpected} unexpected answers`);
            }
            const calls = parseSummary(await Deno.readTextFile(out));
            await Deno.remove(out);
            const perRequest = new Map<string, number>();
            for (const [name, n] of calls) perRequest.set(name, n / total);
            found.set(key, [...(found.get(key) ?? []), perRequest]);
            console.error(
              `${key}: ${
                [...perRequest.values()].reduce((a, b) => a + b, 0).toFixed(2)
              } system calls a request over ${total} answers`,
            );
          }
        }
      } finally {
        await running.stop();
      }
    }
  }
}

const fixed = (n: number) => n.toFixed(n >= 10 ? 1 : 2);
for (const runtime of runtimes) {
  for (const scenario of scenarios) {
    const keys = [...found.keys()].filter((key) =>
      key.startsWith(`${runtime}|${scenario.name}|`)
    );
    if (keys.length === 0) continue;
    // The calls that any server makes at least once in 100 requests.
    const perCall = (key: string, name: string) =>
      median(found.get(key)!.map((calls) => calls.get(name) ?? 0));
    const called = new Set<string>();
    for (const key of keys) {
      for (const calls of found.get(key)!) {
        for (const name of calls.keys()) {
          if (perCall(key, name) >= 0.01) called.add(name);
        }
      }
    }
    const list = [...called].sort();
    console.log(
      `\n#### ${runtime}, ${scenario.name}: system calls a request (${requests} answers, ${connections} connections, median of ${repeat})\n`,
    );
    console.log(
      `| server | all | ${list.join(" | ")} | minor faults/req (no strace) |`,
    );
    console.log(`|---|${"---:|".repeat(list.length + 2)}`);
    for (const key of keys) {
      const all = median(
        found.get(key)!.map((calls) =>
          [...calls.values()].reduce((a, b) => a + b, 0)
        ),
      );
      console.log(
        `| ${key.split("|")[2]} | ${fixed(all)} | ${
          list.map((name) => fixed(perCall(key, name))).join(" | ")
        } | ${median(faults.get(key)!).toFixed(3)} |`,
      );
    }
    console.log(
      `\nCPU µs a request by thread (window without strace, median of ${repeat}; 100 ticks a second):\n`,
    );
    for (const key of keys) {
      const names = new Set(
        threads.get(key)!.flatMap((byThread) => [...byThread.keys()]),
      );
      const cells = [...names].map((name) => {
        const us = median(
          threads.get(key)!.map((byThread) => byThread.get(name) ?? 0),
        );
        return [name, us] as const;
      }).filter(([, us]) => us >= 0.005).sort((a, b) => b[1] - a[1]);
      console.log(
        `- ${key.split("|")[2]}: ${
          cells.map(([name, us]) => `${name} ${us.toFixed(2)}`).join(", ")
        }`,
      );
    }
  }
}
