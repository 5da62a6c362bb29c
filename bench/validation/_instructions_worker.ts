// One contender of instructions.ts: `warm` calls, then `count` more, then
// exits; run under callgrind, twice with different counts, the difference
// of the two totals is the cost of the extra calls alone.
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { parseJson } from "@fetchkit/toolkit/validation";
import { Hono } from "hono";
import { sValidator } from "@hono/standard-validator";
import { LARGE, Order, SMALL } from "./_fixtures.ts";

const [contender, size, warmArg, countArg] = Deno.args;
const text = size === "100k" ? LARGE : SMALL;
const bytes = new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>;
const length = String(bytes.length);
const request = () =>
  new Request("http://localhost/orders", {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": length },
    body: bytes,
  });

const router = createRouter();
router.post("/orders", async ({ request }) => {
  const result = await parseJson(request, Order);
  if (!result.success) return new Response("refused", { status: 422 });
  return Response.json({ items: result.value.items.length });
});
const hono = new Hono();
hono.post("/orders", sValidator("json", Order), (c) => {
  return c.json({ items: c.req.valid("json").items.length });
});

const contenders: Record<string, () => Promise<unknown>> = {
  // In process, the bare path against parseJson.
  "bare": async () => {
    const result = Order.safeParse(await request().json());
    if (!result.success) throw new Error("refused");
  },
  "parseJson": async () => {
    const result = await parseJson(request(), Order);
    if (!result.success) throw new Error("refused");
  },
  // End to end: a router or app, a request in, a JSON answer out.
  "fetchkit": async () => {
    const response = await router.fetch(request());
    if (response.status !== 200) throw new Error(`${response.status}`);
    await response.text();
  },
  "hono": async () => {
    const response = await hono.fetch(request());
    if (response.status !== 200) throw new Error(`${response.status}`);
    await response.text();
  },
};
const fn = contenders[contender];
for (let i = 0; i < Number(warmArg); i++) await fn();
for (let i = 0; i < Number(countArg); i++) await fn();
