// The process instructions.ts runs under callgrind: it reads lines
// `<contender> <size> <count>` from stdin, makes `count` calls of that
// contender and prints "ok" after each batch; the driver switches counting
// on and off around a batch.
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { parseJson } from "@fetchkit/toolkit/validation";
import { Hono } from "hono";
import { sValidator } from "@hono/standard-validator";
import { LARGE, Order, SMALL } from "./_fixtures.ts";

const encoder = new TextEncoder();
const BODIES = {
  "1k": encoder.encode(SMALL) as Uint8Array<ArrayBuffer>,
  "100k": encoder.encode(LARGE) as Uint8Array<ArrayBuffer>,
};
let bytes = BODIES["1k"];
const request = () =>
  new Request("http://localhost/orders", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "content-length": String(bytes.length),
    },
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
const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
let pending = "";
const out = new TextEncoder().encode("ok\n");
console.log("ready");
for await (const chunk of lines) {
  pending += chunk;
  let newline;
  while ((newline = pending.indexOf("\n")) !== -1) {
    const [contender, size, count] = pending.slice(0, newline).split(" ");
    pending = pending.slice(newline + 1);
    bytes = BODIES[size as keyof typeof BODIES];
    const fn = contenders[contender];
    for (let i = 0; i < Number(count); i++) await fn();
    await Deno.stdout.write(out);
  }
}
