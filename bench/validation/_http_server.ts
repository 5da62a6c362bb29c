// A server of http_load.ts: POST /orders validates the order with zod and
// answers its item count, through fetchkit's parseJson ("fetchkit"), the
// bare path in a fetchkit handler ("fetchkit-bare"), or Hono's
// sValidator('json') ("hono"). Args: name, port. Prints "ready".
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { parseJson } from "@fetchkit/toolkit/validation";
import { Hono } from "hono";
import { sValidator } from "@hono/standard-validator";
import { Order } from "./_fixtures.ts";

const [name, port] = Deno.args;

function app(): (request: Request) => Response | Promise<Response> {
  if (name === "hono") {
    const hono = new Hono();
    hono.post("/orders", sValidator("json", Order), (c) => {
      return c.json({ items: c.req.valid("json").items.length });
    });
    return hono.fetch;
  }
  const router = createRouter();
  if (name === "fetchkit-bare") {
    router.post("/orders", async ({ request }) => {
      const result = Order.safeParse(await request.json());
      if (!result.success) return new Response("refused", { status: 422 });
      return Response.json({ items: result.data.items.length });
    });
  } else {
    router.post("/orders", async ({ request }) => {
      const result = await parseJson(request, Order);
      if (!result.success) return new Response("refused", { status: 422 });
      return Response.json({ items: result.value.items.length });
    });
  }
  return router.fetch;
}

Deno.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  onListen: () => console.log("ready"),
}, app());
