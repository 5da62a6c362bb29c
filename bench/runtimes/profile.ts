/**
 * Where a server's instructions go, per function: each server of
 * `--servers` runs under callgrind (counting off), every scenario of
 * `--scenarios` is warmed as `instructions.ts` warms it, then one window of
 * `--requests` answers is counted on the main thread and kept, and
 * `callgrind_annotate` prints its functions with their instructions per
 * request (self, not inclusive; JIT-compiled JavaScript by name from
 * V8's perf map or Bun's jitdump (`JS JSC-<tier>: <name>#<hash>` on Bun);
 * the runtime's builtins and C++ by name, Bun's stripped code as
 * `JS 0x<address>`). Dumps stay in
 * `bench/runtimes/.out/profile.<runtime>.<server>.<scenario>`.
 *
 * `--sim`: under callgrind's cache and branch simulation (`SIM_CACHES` in
 * `_bench.ts`), functions sorted by estimated cycles a request (`Ir` + 10 a
 * first-level miss + 100 more a last-level miss + 10 a mispredicted
 * branch, `estimatedCycles`), with their instructions, first-level misses
 * (instruction and data), last-level misses and mispredicts a request.
 *
 * ```sh
 * deno run -A bench/runtimes/profile.ts --runtimes=node --servers=fetchkit,fastify \
 *   --scenarios=middlewares [--requests=2000] [--warm=2] [--top=40] [--sim] \
 *   [--v8-flags=<flags>]
 * ```
 *
 * @module
 */
import { callgrindControl } from "../_callgrind.ts";
import { join } from "node:path";
import { wrkCount, wrkRun } from "../_load.ts";
import {
  build,
  callgrindWrap,
  estimatedCycles,
  loads,
  options,
  OUT,
  prepare,
  SCENARIOS,
  serversOf,
  start,
} from "./_bench.ts";

const args = options();
const requests = Number(args.get("requests") ?? 2000);
const warmSeconds = Number(args.get("warm") ?? 2);
const top = Number(args.get("top") ?? 40);
const simulate = args.has("sim");
// `--v8-flags=--a,--b`: more of V8's flags for Node and Deno (as in
// `instructions.ts`).
const v8Flags =
  args.get("v8-flags")?.split(",").filter((flag) => flag !== "") ?? [];
const runtimes = (args.get("runtimes") ?? "node").split(",");
const only = args.get("servers")?.split(",");
const words = args.get("scenarios")?.split(",");
const scenarios = SCENARIOS.filter((scenario) =>
  words === undefined || words.some((word) => scenario.name.includes(word))
);
const bundles = {
  bundle: runtimes.some((runtime) => runtime !== "deno")
    ? (await build()).bundle
    : "",
};

async function untilFile(file: string): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    try {
      const text = await Deno.readTextFile(file);
      if (/^totals: /m.test(text)) return;
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no callgrind dump at ${file}`);
}

/**
 * The code-load records of Bun's jitdump of `pid` (`/tmp/jit-<a>-<b>-*`,
 * one of the two numbers the process's id; written when the server runs
 * with `BUN_JSC_useJITDump=1`) as perf map lines, or "" when there is
 * none. Read after each window: code written later may reuse addresses.
 */
async function bunJitDump(pid: number): Promise<string> {
  let file: string | undefined;
  for await (const entry of Deno.readDir("/tmp")) {
    if (
      entry.name.startsWith("jit-") &&
      entry.name.split("-").slice(1, 3).includes(String(pid))
    ) {
      file = `/tmp/${entry.name}`;
    }
  }
  if (file === undefined) return "";
  const bytes = await Deno.readFile(file);
  const view = new DataView(bytes.buffer);
  const decoder = new TextDecoder();
  const lines: string[] = [];
  // A 40-byte header, then records of {id, size, timestamp}; id 0 is a
  // code load: pid, tid, vma, code address, size, index, name, code.
  for (let at = view.getUint32(8, true); at + 16 <= bytes.length;) {
    const id = view.getUint32(at, true);
    const size = view.getUint32(at + 4, true);
    if (size === 0) break;
    if (id === 0) {
      const address = view.getBigUint64(at + 32, true);
      const length = view.getBigUint64(at + 40, true);
      const start = at + 56;
      const end = bytes.indexOf(0, start);
      lines.push(
        `${address.toString(16)} ${length.toString(16)} ${
          decoder.decode(bytes.subarray(start, end))
        }`,
      );
    }
    at += size;
  }
  return lines.join("\n");
}

/** A lookup of JIT code addresses in Node's perf map of `pid` (Bun's jitdump). */
async function jitNames(pid: number): Promise<(address: number) => string> {
  let text = "";
  try {
    text = await Deno.readTextFile(`/tmp/perf-${pid}.map`);
  } catch {
    // Bun (JavaScriptCore) writes a jitdump with BUN_JSC_useJITDump=1.
    text = await bunJitDump(pid);
    if (text === "") return (address) => `0x${address.toString(16)}`;
  }
  const entries = text.split("\n").flatMap((line) => {
    const found = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    return found === null ? [] : [
      [parseInt(found[1]!, 16), parseInt(found[2]!, 16), found[3]!] as const,
    ];
  });
  return (address) => {
    // The latest code at an address wins (code space is reused).
    for (let i = entries.length - 1; i >= 0; i--) {
      const [start, size, name] = entries[i]!;
      if (address >= start && address < start + size) return name;
    }
    return `0x${address.toString(16)}`;
  };
}

// Bun names its JIT code in a jitdump (read by `bunJitDump`).
if (runtimes.includes("bun")) Deno.env.set("BUN_JSC_useJITDump", "1");

for (const runtime of runtimes) {
  for (
    const server of serversOf(runtime, undefined).filter((name) =>
      only === undefined || only.includes(name)
    )
  ) {
    for (const group of ["hello", "app"] as const) {
      const mine = scenarios.filter((scenario) =>
        scenario.group === group && loads(server, scenario.name)
      );
      if (mine.length === 0) continue;
      const base = join(OUT, `profile.${runtime}.${server}.${group}`);
      const running = await start(
        runtime,
        server,
        bundles,
        callgrindWrap(base, true, simulate),
        group,
        runtime === "bun" ? [] : ["--perf-basic-prof", ...v8Flags],
      );
      try {
        for (const scenario of mine) {
          const script = await prepare(
            running.port,
            scenario,
            `profile ${runtime} ${server}`,
          );
          const url = `http://127.0.0.1:${running.port}${scenario.path}`;
          const scriptFile = join(OUT, `profile_${server}.lua`);
          const answer = (count: number) =>
            wrkCount(url, {
              requests: count,
              seconds: 120,
              connections: 4,
              script,
              status: scenario.status,
              scriptFile,
            });
          for (let pass = 0; pass < 2; pass++) {
            const { total } = await wrkRun(url, {
              seconds: warmSeconds,
              connections: 4,
              timeout: 60,
              script,
            });
            if (total < 1000) await answer(1000 - total);
          }
          await answer(50);
          await callgrindControl(running.pid, "--zero");
          await callgrindControl(running.pid, "--instr=on");
          const { total } = await answer(requests);
          await callgrindControl(running.pid, "--instr=off");
          await callgrindControl(running.pid, "--dump");
          const slug = scenario.name.replaceAll(/\W+/g, "_");
          // The main thread's dump is the first: `<base>.<n>-01`.
          let dump: string | undefined;
          for (let tries = 0; tries < 600 && dump === undefined; tries++) {
            for await (const entry of Deno.readDir(OUT)) {
              const name = entry.name;
              if (
                name.startsWith(`profile.${runtime}.${server}.${group}.`) &&
                name.endsWith("-01")
              ) dump = join(OUT, name);
            }
            if (dump === undefined) {
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
          }
          await untilFile(dump!);
          const kept = `${base}.${slug}`;
          await Deno.rename(dump!, kept);
          for await (const entry of Deno.readDir(OUT)) {
            if (
              entry.name.startsWith(`profile.${runtime}.${server}.${group}.`) &&
              /-\d\d$/.test(entry.name)
            ) await Deno.remove(join(OUT, entry.name)).catch(() => {});
          }
          const { stdout } = await new Deno.Command("callgrind_annotate", {
            args: ["--inclusive=no", `--threshold=99`, kept],
            stdout: "piped",
          }).output();
          const lines = new TextDecoder().decode(stdout).split("\n");
          const totalLine = lines.find((line) => /PROGRAM TOTALS/.test(line));
          const count = Number(
            totalLine?.trim().split(/\s/)[0]?.replaceAll(",", ""),
          );
          console.log(
            `\n## ${runtime} ${server} ${scenario.name}: ${
              Math.round(count / total).toLocaleString("en-US")
            } instructions/request (${total} answers; ${kept})`,
          );
          // Node and Deno (V8) write their JIT code's names to /tmp/perf-<pid>.map
          // (`--perf-basic-prof`): JavaScript by name instead of `???`.
          const jit = await jitNames(running.pid);
          if (simulate) {
            printSimulated(lines, jit, total);
            continue;
          }
          const rows = new Map<string, number>();
          for (const line of lines) {
            const found = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$/.exec(line);
            if (found === null || /PROGRAM TOTALS/.test(line)) continue;
            let name = found[2]!;
            // `'2`: callgrind's name for the same code entered recursively.
            const address = /^\?\?\?:0x([0-9a-f]+)(?:'\d+)? /.exec(name);
            if (address !== null) name = `JS ${jit(parseInt(address[1]!, 16))}`;
            rows.set(
              name,
              (rows.get(name) ?? 0) + Number(found[1]!.replaceAll(",", "")),
            );
          }
          const sorted = [...rows].sort((a, b) => b[1] - a[1]).slice(0, top);
          for (const [name, count] of sorted) {
            console.log(`${(count / total).toFixed(0).padStart(8)}  ${name}`);
          }
          // All JIT code found by name (JavaScript, its inline caches and
          // thunks), however small each function.
          let named = 0;
          for (const [name, count] of rows) {
            if (name.startsWith("JS ") && !name.startsWith("JS 0x")) {
              named += count;
            }
          }
          console.log(
            `${
              (named / total).toFixed(0).padStart(8)
            }  (JIT code by name, all)`,
          );
        }
      } finally {
        await running.stop();
        // The perf map of the process, read for each of its scenarios.
        await Deno.remove(`/tmp/perf-${running.pid}.map`).catch(() => {});
        for await (const entry of Deno.readDir("/tmp")) {
          if (
            entry.name.startsWith("jit-") &&
            entry.name.split("-").slice(1, 3).includes(String(running.pid))
          ) {
            await Deno.remove(`/tmp/${entry.name}`).catch(() => {});
          }
        }
      }
    }
  }
}

/**
 * `--sim`: `callgrind_annotate`'s rows (every event a column: `N (P%)`,
 * `0` or `.`) summed by function, sorted by estimated cycles a request.
 */
function printSimulated(
  lines: string[],
  jit: (address: number) => string,
  answers: number,
): void {
  const shown = lines.find((line) => line.startsWith("Events shown:"))
    ?.slice("Events shown:".length).trim().split(/\s+/) ?? [];
  const rows = new Map<string, Record<string, number>>();
  for (const line of lines) {
    if (/PROGRAM TOTALS/.test(line) || !/^\s*[\d.]/.test(line)) continue;
    let rest = line.trimStart();
    const events: Record<string, number> = {};
    let whole = true;
    for (const event of shown) {
      const found = /^(\.|[\d,]+)(\s+\(\s*[\d.]+%\))?\s+/.exec(rest);
      if (found === null) {
        whole = false;
        break;
      }
      events[event] = found[1] === "."
        ? 0
        : Number(found[1]!.replaceAll(",", ""));
      rest = rest.slice(found[0].length);
    }
    if (!whole || rest === "") continue;
    let name = rest;
    const address = /^\?\?\?:0x([0-9a-f]+)(?:'\d+)? /.exec(name);
    if (address !== null) name = `JS ${jit(parseInt(address[1]!, 16))}`;
    const sum = rows.get(name) ?? {};
    for (const [event, value] of Object.entries(events)) {
      sum[event] = (sum[event] ?? 0) + value;
    }
    rows.set(name, sum);
  }
  const estimated = [...rows].map(([name, events]) =>
    [name, estimatedCycles(events, answers)] as const
  ).sort((a, b) => b[1].cycles - a[1].cycles).slice(0, top);
  console.log(
    "  est. cycles        Ir   L1 miss   LL miss   mispred  function (a request)",
  );
  for (const [name, sim] of estimated) {
    console.log(
      `${sim.cycles.toFixed(0).padStart(13)} ${sim.ir.toFixed(0).padStart(9)} ${
        (sim.i1 + sim.d1).toFixed(1).padStart(9)
      } ${sim.ll.toFixed(2).padStart(9)} ${
        (sim.bcm + sim.bim).toFixed(1).padStart(9)
      }  ${name}`,
    );
  }
}
