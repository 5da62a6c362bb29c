// Per-request cost of validation through a contract (a route with `params`
// and `body` schemas: the router validates, the handler reads
// `context.input`) against the same route written by hand (`parseParams` +
// `parseJson` in the handler), whole requests through `router.fetch`, on a
// 1 KB and a 100 KB JSON body, in the same run; plus the same route with no
// validation at all, for scale.
//
//   deno bench --allow-all bench/contracts/validation_bench.ts
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { route } from "@fetchkit/toolkit/fetch-router/routes";
import { parseJson, parseParams } from "@fetchkit/toolkit/validation";
import * as z from "zod";
import { LARGE, Order, SMALL } from "../validation/_fixtures.ts";

const Id = z.object({ id: z.coerce.number().int().positive() });
const routes = route({
  update: { method: "PUT", pattern: "/orders/:id", params: Id, body: Order },
});

const contract = createRouter();
contract.map(
  routes.update,
  ({ input }) =>
    new Response(String(input.params.id + input.body.items.length)),
);

const byHand = createRouter();
byHand.put("/orders/:id", async ({ params, request }) => {
  const id = await parseParams(params, Id);
  if (!id.success) {
    return Response.json({ fieldErrors: id.fieldErrors }, { status: 400 });
  }
  const body = await parseJson(request, Order);
  if (!body.success) {
    return Response.json({ fieldErrors: body.fieldErrors }, { status: 422 });
  }
  return new Response(String(id.value.id + body.value.items.length));
});

const unchecked = createRouter();
unchecked.put("/orders/:id", async ({ params, request }) => {
  const body = await request.json();
  return new Response(String(Number(params.id) + body.items.length));
});

const encoder = new TextEncoder();
const bytesOf = new Map(
  [SMALL, LARGE].map((text) => [text, encoder.encode(text)]),
);
const put = (body: string) =>
  new Request("http://localhost/orders/42", {
    method: "PUT",
    headers: {
      "content-type": "application/json",
      "content-length": String(bytesOf.get(body)!.length),
    },
    body: bytesOf.get(body)!,
  });

async function send(
  router: { fetch: (request: Request) => Response | Promise<Response> },
  body: string,
): Promise<void> {
  const response = await router.fetch(put(body));
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  await response.text();
}

for (const [size, body] of [["1 KB", SMALL], ["100 KB", LARGE]] as const) {
  const group = `PUT /orders/:id, ${size} JSON`;
  Deno.bench({
    name: `by hand: parseParams + parseJson (${size})`,
    group,
    baseline: true,
    fn: () => send(byHand, body),
  });
  Deno.bench({
    name: `contract: params + body schemas (${size})`,
    group,
    fn: () => send(contract, body),
  });
  Deno.bench({
    name: `no validation: request.json() (${size})`,
    group,
    fn: () => send(unchecked, body),
  });
}
