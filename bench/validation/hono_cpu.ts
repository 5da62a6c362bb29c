// End to end in process: a POST of JSON through a fetchkit router with
// parseJson() against a Hono app with validator('json') from
// @hono/standard-validator, both with the same zod schema, answering the
// validated value as JSON. CPU time per request (process CPU, GC included),
// contenders interleaved A B A B over several rounds; medians and ranges.
//
//   deno run --allow-all bench/validation/hono_cpu.ts [rounds] [ms per turn]
import process from "node:process";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { parseJson } from "@fetchkit/toolkit/validation";
import { Hono } from "hono";
import { sValidator } from "@hono/standard-validator";
import { LARGE, Order, SMALL } from "./_fixtures.ts";

const rounds = Number(Deno.args[0] ?? 7);
const turnMs = Number(Deno.args[1] ?? 300);
const encoder = new TextEncoder();
const bytesOf = (text: string) =>
  encoder.encode(text) as Uint8Array<ArrayBuffer>;

const router = createRouter();
router.post("/orders", async ({ request }) => {
  const result = await parseJson(request, Order);
  if (!result.success) {
    return Response.json({ fieldErrors: result.fieldErrors }, { status: 422 });
  }
  return Response.json({ items: result.value.items.length });
});

// The same router with the bare path, to tell the router's share from
// parseJson's.
const bare = createRouter();
bare.post("/orders", async ({ request }) => {
  const result = Order.safeParse(await request.json());
  if (!result.success) {
    return Response.json({ issues: result.error.issues }, { status: 422 });
  }
  return Response.json({ items: result.data.items.length });
});

const hono = new Hono();
hono.post("/orders", sValidator("json", Order), (c) => {
  const value = c.req.valid("json");
  return c.json({ items: value.items.length });
});

type App = (request: Request) => Promise<Response> | Response;
const apps: [string, App][] = [
  ["fetchkit parseJson", router.fetch],
  ["Hono sValidator('json')", (request) => hono.fetch(request)],
  ["fetchkit request.json() + schema", bare.fetch],
];

async function turn(
  app: App,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<number> {
  const length = String(bytes.length);
  const start = process.cpuUsage();
  const wallStart = performance.now();
  let calls = 0;
  while (performance.now() - wallStart < turnMs) {
    for (let i = 0; i < 20; i++) {
      const response = await app(
        new Request("http://localhost/orders", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": length,
          },
          body: bytes,
        }),
      );
      if (response.status !== 200) throw new Error(`${response.status}`);
      await response.text();
    }
    calls += 20;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

for (const [size, text] of [["1 KB", SMALL], ["100 KB", LARGE]] as const) {
  const bytes = bytesOf(text);
  for (const [, app] of apps) await turn(app, bytes);
  const samples = apps.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (let a = 0; a < apps.length; a++) {
      samples[a].push(await turn(apps[a][1], bytes));
    }
  }
  const [ours, theirs] = samples.map(median);
  console.log(
    `${size}: ${
      apps.map(([name], a) =>
        `${name} ${median(samples[a]).toFixed(2)} µs [${
          Math.min(...samples[a]).toFixed(2)
        }-${Math.max(...samples[a]).toFixed(2)}]`
      ).join(", ")
    }; fetchkit/Hono ${(ours / theirs).toFixed(3)}`,
  );
}
