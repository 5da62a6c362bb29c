// parseJson() against `await request.json()` + the same zod schema, in CPU
// time per call (process CPU, so GC counts), contenders interleaved A B A B
// over several rounds; prints the median per contender and their ratio.
//
//   deno run --allow-all bench/validation/parse_json_cpu.ts [rounds] [ms per turn]
import process from "node:process";
import { parseJson } from "@fetchkit/toolkit/validation";
import { LARGE, Order, SMALL } from "./_fixtures.ts";

const rounds = Number(Deno.args[0] ?? 7);
const turnMs = Number(Deno.args[1] ?? 300);
const encoder = new TextEncoder();

// Bytes, as a server's requests carry (a string body would spare
// `request.json()` its decoding in process).
const bytesOf = new Map(
  [SMALL, LARGE].map((text) => [text, encoder.encode(text)]),
);

function post(body: string, length: string): Request {
  return new Request("http://localhost/orders", {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": length },
    body: bytesOf.get(body)!,
  });
}

type Contender = (body: string, length: string) => Promise<unknown>;

const contenders: [string, Contender][] = [
  ["request.json() + schema", async (body, length) => {
    const result = Order.safeParse(await post(body, length).json());
    if (!result.success) throw new Error("refused");
    return result.data;
  }],
  ["parseJson", async (body, length) => {
    const result = await parseJson(post(body, length), Order);
    if (!result.success) throw new Error("refused");
    return result.value;
  }],
];

/** Microseconds of CPU per call, over about `turnMs` of calls. */
async function turn(fn: Contender, body: string, length: string) {
  const start = process.cpuUsage();
  const wallStart = performance.now();
  let calls = 0;
  while (performance.now() - wallStart < turnMs) {
    for (let i = 0; i < 20; i++) await fn(body, length);
    calls += 20;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

for (const [size, body] of [["1 KB", SMALL], ["100 KB", LARGE]] as const) {
  const length = String(encoder.encode(body).length);
  // Warm up both.
  for (const [, fn] of contenders) await turn(fn, body, length);
  const samples = contenders.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (let c = 0; c < contenders.length; c++) {
      samples[c].push(await turn(contenders[c][1], body, length));
    }
  }
  const [bare, ours] = samples.map(median);
  console.log(
    `${size} (${length} bytes): ${
      contenders.map(([name], c) =>
        `${name} ${median(samples[c]).toFixed(2)} µs [${
          Math.min(...samples[c]).toFixed(2)
        }-${Math.max(...samples[c]).toFixed(2)}]`
      ).join(", ")
    }; parseJson ${(ours - bare).toFixed(2)} µs more, ${
      (ours / bare).toFixed(3)
    }x`,
  );
}
