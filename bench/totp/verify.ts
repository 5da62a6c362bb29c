/**
 * Instructions per `verifyTotp()` call against npm `otpauth`'s
 * `TOTP.validate()`, side by side in one process on Deno, Node and Bun,
 * counted by callgrind (so the machine's load does not move them).
 *
 * One program (bundled once by `deno bundle`, the same JavaScript on the
 * three runtimes) holds both; for each contender it runs `--warm` calls
 * uncounted (the JIT tiers compile meanwhile), then `--calls` calls with
 * counting on, then the next contender: ours, otpauth, ours, otpauth (A B
 * A B), and the table gives each one's mean of its two rounds. Every
 * call checks a 6-digit code of a 20-byte SHA-1 secret with a window of
 * one step either side, as an app does at sign-in: the secret comes as
 * its stored base32 text each call (otpauth: `Secret.fromBase32()` and a
 * `new TOTP()` per call, and also one `TOTP` made once and reused).
 * "wrong" codes make every library compute all three candidates; a right
 * code may stop early in otpauth (ours always computes all three).
 *
 * ```sh
 * bash _tools/runtimes/install.sh   # Bun, once
 * deno run -A bench/totp/verify.ts [--calls=5000] [--warm=3000] [--runtimes=deno,node,bun]
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { countWhile } from "../_callgrind.ts";
import { denoBundle } from "../_bundle.ts";
import { childLines } from "../_child_lines.ts";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";

const args = new Map(
  Deno.args.map((arg) => {
    const [key, value = ""] = arg.replace(/^--/, "").split("=");
    return [key, value] as const;
  }),
);
const calls = Number(args.get("calls") ?? 5_000);
const warm = Number(args.get("warm") ?? 3_000);
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const OUT = join(ROOT, "bench/runtimes/.out");

const CONTENDERS = [
  "ours, right code",
  "otpauth per call, right code",
  "otpauth reused, right code",
  "ours, wrong code",
  "otpauth per call, wrong code",
  "otpauth reused, wrong code",
];

const ENTRY = `
import { totpCode, verifyTotp } from "${ROOT}/totp/mod.ts";
import { Secret, TOTP } from "otpauth";

const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const time = 1_800_000_000_000;
const right = await totpCode(secret, { time });
const wrong = right === "000000" ? "000001" : "000000";
const reused = new TOTP({ secret: Secret.fromBase32(secret) });
let accepted = 0;
const contenders: Record<string, () => Promise<void> | void> = {
  "ours, right code": async () => { if (await verifyTotp(secret, right, { time })) accepted++; },
  "otpauth per call, right code": () => {
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    if (totp.validate({ token: right, timestamp: time, window: 1 }) !== null) accepted++;
  },
  "otpauth reused, right code": () => {
    if (reused.validate({ token: right, timestamp: time, window: 1 }) !== null) accepted++;
  },
  "ours, wrong code": async () => { if (await verifyTotp(secret, wrong, { time })) accepted++; },
  "otpauth per call, wrong code": () => {
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    if (totp.validate({ token: wrong, timestamp: time, window: 1 }) !== null) accepted++;
  },
  "otpauth reused, wrong code": () => {
    if (reused.validate({ token: wrong, timestamp: time, window: 1 }) !== null) accepted++;
  },
};
const count = Number((globalThis.Deno?.args ?? globalThis.process.argv.slice(2))[0]);
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
  const { value: name, done } = await lines.next();
  if (done || name === "") break;
  const run = contenders[name];
  for (let i = 0; i < ${warm}; i++) await run();
  accepted = 0;
  say("ready");
  await lines.next();
  for (let i = 0; i < count; i++) await run();
  say("done " + accepted);
  await lines.next();
}
`;

/** Instructions per call of each contender, two rounds, under callgrind. */
async function count(command: string[]): Promise<Map<string, number[]>> {
  const file = join(OUT, `totp.${crypto.randomUUID()}.callgrind`);
  const child = new Deno.Command("valgrind", {
    args: [
      "--tool=callgrind",
      "--smc-check=all-non-file",
      "--instr-atstart=no",
      `--callgrind-out-file=${file}`,
      ...command,
      String(calls),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const { send, line, close } = childLines(child, command.join(" "));
  const counts = new Map<string, number[]>();
  let dumps = 0;
  // A B A B: each pair of ours and otpauth's alternates, twice.
  const order = [...CONTENDERS, ...CONTENDERS];
  for (const name of order) {
    await send(name);
    if (await line() !== "ready") throw new Error("expected ready");
    const { total, result } = await countWhile(
      child.pid,
      `${file}.${++dumps}`,
      async () => {
        await send("go");
        return await line();
      },
    );
    const accepted = Number(result.split(" ")[1]);
    const expected = name.includes("right") ? calls : 0;
    if (accepted !== expected) {
      throw new Error(`${name}: ${accepted} of ${calls} accepted`);
    }
    counts.set(name, [...counts.get(name) ?? [], total / calls]);
    await send("next");
  }
  await send("");
  await close();
  await child.status;
  await Deno.remove(file).catch(() => {});
  return counts;
}

await Deno.mkdir(OUT, { recursive: true });
const ts = join(OUT, "totp_verify.ts");
await Deno.writeTextFile(ts, ENTRY);
const js = await denoBundle(ts, join(OUT, "totp_verify.mjs"), { cwd: ROOT });

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log("| runtime | contender | instructions per call (round 1, 2) |");
console.log("|---|---|---:|");
for (const runtime of runtimes) {
  const command = runtime === "deno"
    ? [Deno.execPath(), "run", "-A", js]
    : [runtime === "node" ? "node" : await bunBinary() ?? "bun", js];
  const counts = await count(command);
  for (const name of CONTENDERS) {
    const rounds = counts.get(name)!;
    const mean = rounds.reduce((a, b) => a + b, 0) / rounds.length;
    console.log(
      `| ${runtime} | ${name} | ${fmt(mean)} (${rounds.map(fmt).join(", ")}) |`,
    );
  }
}
